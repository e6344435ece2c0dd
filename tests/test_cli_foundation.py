"""The foundation's must-shows through the real `mfact` console script (subprocess, own MFACT_HOME)."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

MFACT = Path(sys.executable).with_name("mfact")


def run(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    exe = [str(MFACT)] if MFACT.exists() else [sys.executable, "-m", "mfact.core.cli"]
    env = dict(os.environ, MFACT_HOME=str(home), COLUMNS="160", NO_COLOR="1")
    p = subprocess.run(exe + list(args), capture_output=True, text=True, env=env, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"mfact {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return p


def session_doc(**over) -> dict:
    text = "Marie Curie was a physicist. She won two Nobel Prizes."
    d = {
        "schema": "mfact.session/1", "id": "s1", "language": "en",
        "entity": {"name": "Marie Curie"}, "text": text,
        "facts": [
            {"id": "f1", "text": "Marie Curie was a physicist.", "sentence": 0, "span": [0, 28],
             "auto": {"label": "S", "confidence": 0.9, "verifier": "v", "evidence": []}, "human": None},
            {"id": "f2", "text": "She won two Nobel Prizes.", "sentence": 1, "span": [29, 54],
             "auto": None, "human": {"label": "NS", "time": "2026-01-01T00:00:00+00:00"}},
        ],
    }
    d.update(over)
    return d


def store_state(home: Path) -> list:
    db = home / "data" / "sessions.sqlite3"
    if not db.exists():
        return []
    con = sqlite3.connect(db)
    try:
        return [con.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
                for t in ("sessions", "facts", "evidence", "label_history")]
    finally:
        con.close()


def test_chatgpt_reproduces_58_3_and_62_3(shared_dir, tmp_path):
    home = tmp_path / "home"
    p = run(home, "import", str(shared_dir / "data" / "factscore" / "ChatGPT.jsonl"))
    assert "imported 183 sessions (26 abstentions" in p.stdout
    rep = json.loads(run(home, "report", "--json").stdout)
    en = rep["languages"]["en"]
    assert round(100 * en["factscore"], 1) == 58.3
    assert round(100 * en["factscore_relevant_only"], 1) == 62.3
    assert en["sessions"] == 183 and en["abstentions"] == 26
    for key in ("factscore_gamma", "semantic_drift", "drifting_share", "drifting_p_value",
                "drift_position", "calm", "hallucination_rate", "agreement", "facts_per_text"):
        assert key in en
    # every null figure says why
    for key, value in en.items():
        if value is None:
            assert key in en["reasons"], key


def test_instructgpt_by_rarity_falls_from_frequent_to_rare(shared_dir, tmp_path):
    home = tmp_path / "home"
    run(home, "import", str(shared_dir / "data" / "factscore" / "InstructGPT.jsonl"))
    groups = json.loads(run(home, "report", "--by", "rarity", "--json").stdout)["groups"]
    order = ["en/very freq", "en/freq", "en/medium", "en/rare", "en/very rare"]
    assert list(groups) == order
    fs = [groups[g]["factscore"] for g in order]
    assert fs == sorted(fs, reverse=True) and fs[0] - fs[-1] > 0.5
    table = run(home, "report", "--by", "rarity").stdout
    rows = [line.split() for line in table.splitlines() if line.startswith("en/")]
    first = rows[:5]                     # the FActScore table comes first
    assert [r[0] for r in first] == ["en/very", "en/freq", "en/medium", "en/rare", "en/very"]
    shown = [float(r[-7]) for r in first]           # FS column
    assert shown == sorted(shown, reverse=True)
    assert shown == [round(100 * x, 1) for x in fs]
    md = run(home, "report", "--by", "rarity", "--markdown").stdout
    assert "| en/very freq | InstructGPT |" in md
    csv_out = run(home, "report", "--by", "rarity", "--csv").stdout
    assert csv_out.splitlines()[0].startswith("group,model,sessions")


@pytest.mark.parametrize("name, content, expected", [
    ("malformed.json", '{"schema": "mfact.session/1", "id": ', "not valid JSON"),
    ("schema.json", json.dumps(session_doc(schema="mfact.session/2")), "schema: expected 'mfact.session/1'"),
    ("span.json", json.dumps(session_doc(facts=[dict(session_doc()["facts"][0], span=[0, 500])])),
     "facts[0].span: [0, 500) lies outside the text"),
    ("label.json", json.dumps(session_doc(facts=[dict(session_doc()["facts"][1],
                                                      human={"label": "MAYBE"})])),
     "facts[0].human.label: unknown label 'MAYBE'"),
    ("label.jsonl", '{"topic": "A", "output": "A b.", "annotations": [{"text": "A b.", '
                    '"human-atomic-facts": [{"text": "A b.", "label": "TRUE"}]}]}\n',
     ":1: annotations[0].human-atomic-facts[0].label: unknown label 'TRUE'"),
])
def test_bad_input_one_error_line_store_unchanged(tmp_path, name, content, expected):
    home = tmp_path / "home"
    good = tmp_path / "good.json"
    good.write_text(json.dumps(session_doc(id="keep")))
    run(home, "import", str(good))
    before = store_state(home)
    assert before[0]
    bad = tmp_path / name
    bad.write_text(content)
    p = run(home, "import", str(bad), check=False)
    assert p.returncode != 0
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("mfact: error: ") and str(bad) in lines[0] and expected in lines[0]
    assert p.stdout == ""
    assert store_state(home) == before


def test_a_batch_with_one_bad_record_imports_nothing(tmp_path):
    home = tmp_path / "home"
    bad = session_doc(id="b")
    bad["facts"][0]["span"] = [5, 2]
    f = tmp_path / "batch.json"
    f.write_text(json.dumps({"sessions": [session_doc(id="a"), bad]}, indent=2))
    p = run(home, "import", str(f), check=False)
    assert p.returncode == 1 and "sessions[1].facts[0].span" in p.stderr
    assert "imported" not in p.stdout
    assert json.loads(run(home, "sessions", "list", "--json").stdout) == {"sessions": []}


def test_store_from_a_newer_mfact_is_refused(tmp_path):
    home = tmp_path / "home"
    good = tmp_path / "good.json"
    good.write_text(json.dumps(session_doc()))
    run(home, "import", str(good))
    db = home / "data" / "sessions.sqlite3"
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    con.commit()
    con.close()
    p = run(home, "sessions", "list", check=False)
    assert p.returncode == 1
    assert "newer mfact (schema 99" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_sessions_score_export_round_trip(tmp_path):
    home = tmp_path / "home"
    src = tmp_path / "s.json"
    src.write_text(json.dumps(session_doc(id="abcdef123456")))
    run(home, "import", str(src))
    listing = run(home, "sessions", "list").stdout
    assert "abcdef123456" in listing and "Marie Curie" in listing
    score = json.loads(run(home, "score", "abcdef", "--json").stdout)
    assert score["factscore"] == 0.5 and score["factscore_relevant_only"] == 0.5
    assert score["calm"]["language_ok"] is True and score["calm"]["non_empty"] is True
    assert score["semantic_drift"] is None and score["drift_p_value"] is None
    from_file = json.loads(run(home, "score", str(src), "--json").stdout)
    assert from_file["factscore"] == 0.5
    assert "FActScore" in run(home, "score", "abcdef").stdout
    out = tmp_path / "exp.json"
    run(home, "export", "abcdef", "-o", str(out))
    exported = json.loads(out.read_text())
    assert exported["id"] == "abcdef123456" and exported["facts"][1]["auto"] is None
    assert exported["facts"][1]["human"]["label"] == "NS"
    assert exported["metrics"]["factscore"] == 0.5        # figures from the effective labels
    run(home, "sessions", "rename", "abcdef", "Curie (first try)")
    assert "Curie (first try)" in run(home, "sessions", "list").stdout
    shown = run(home, "sessions", "show", "abcdef").stdout
    assert "She won two Nobel Prizes." in shown
    run(home, "export", "--all", "-o", str(tmp_path / "all.json"))
    assert len(json.loads((tmp_path / "all.json").read_text())["sessions"]) == 1
    run(home, "export", "--all", "--format", "factscore", "-o", str(tmp_path / "all.jsonl"))
    rec = json.loads((tmp_path / "all.jsonl").read_text().splitlines()[0])
    assert rec["topic"] == "Marie Curie"
    assert [f["label"] for a in rec["annotations"] for f in a["human-atomic-facts"]] == ["S", "NS"]
    run(home, "sessions", "delete", "abcdef")
    assert json.loads(run(home, "sessions", "list", "--json").stdout) == {"sessions": []}
    p = run(home, "score", "abcdef", check=False)
    assert p.returncode == 1 and "no session 'abcdef'" in p.stderr
    # the exported file imports again
    run(home, "import", str(out))
    assert json.loads(run(home, "sessions", "list", "--json").stdout)["sessions"][0]["name"] == ""


def test_factscore_cli_round_trip(shared_dir, tmp_path):
    home = tmp_path / "home"
    src = shared_dir / "data" / "factscore" / "ChatGPT.jsonl"
    run(home, "import", str(src))
    out = tmp_path / "back.jsonl"
    run(home, "export", "--all", "--format", "factscore", "-o", str(out))
    key = lambda r: r["topic"]  # noqa: E731
    orig = sorted((json.loads(x) for x in src.read_text().splitlines()), key=key)
    back = sorted((json.loads(x) for x in out.read_text().splitlines()), key=key)
    assert [r["topic"] for r in back] == [r["topic"] for r in orig]
    assert back == orig


def test_config_path_and_show(tmp_path):
    home = tmp_path / "home"
    assert run(home, "config", "path").stdout.strip() == str(home / "config" / "config.toml")
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text('k = 20\nmodel = "from-file"\n')
    shown = run(home, "config", "show").stdout
    assert "k = 20" in shown and 'model = "from-file"' in shown
    env_shown = subprocess.run([str(MFACT), "config", "show"], capture_output=True, text=True,
                               env=dict(os.environ, MFACT_HOME=str(home), MFACT_K="5")).stdout
    assert "k = 5" in env_shown


def test_report_on_empty_store_and_bad_language(tmp_path):
    home = tmp_path / "home"
    assert json.loads(run(home, "report", "--json").stdout) == {"languages": {}}
    assert "No sessions" in run(home, "report").stdout
    p = run(home, "report", "--lang", "xx", check=False)
    assert p.returncode == 1 and "unknown language 'xx'" in p.stderr


def test_report_and_score_do_not_import_torch(tmp_path):
    code = ("import sys; from mfact.core.cli import main; rc = main(['report', '--json']); "
            "bad = [m for m in ('torch', 'transformers', 'textual') if m in sys.modules]; "
            "print(bad, file=sys.stderr); sys.exit(1 if bad else rc)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, MFACT_HOME=str(tmp_path / "home")), timeout=120)
    assert p.returncode == 0, p.stderr


@pytest.fixture(autouse=True)
def _need_console_script():
    if not MFACT.exists() and shutil.which("mfact") is None:
        pytest.skip("the mfact console script is not installed")
