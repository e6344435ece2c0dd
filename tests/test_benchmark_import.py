"""`mfact import` of a benchmark's answers (Mu-SHROOM JSONL, mFAVA JSON): the annotators' marks are
human labels on the facts they cover, shown in the TUI; after `mfact rejudge`, `mfact report` gives
the agreement (kappa) between mfact and the annotators. The files are tiny ones written here in the
benchmarks' formats."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mfact.core.benchmarks import mfava_marks

ROOT = Path(__file__).resolve().parents[1]
ANSWER = "Marie Curie wurde 1869 in Warschau geboren. Sie war Physikerin."


def _mfact(home: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "MFACT_HOME": str(home), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "mfact.core.cli", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=ROOT)


def _mushroom_file(tmp_path: Path) -> Path:
    rows = [{"id": "val-de-1", "lang": "DE", "model_input": "Wann wurde Marie Curie geboren?",
             "model_output_text": ANSWER, "hard_labels": [[18, 22]],
             "soft_labels": [{"start": 18, "end": 22, "prob": 1.0}]}]
    path = tmp_path / "mushroom.de-val.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_mfava_tags_become_marks_on_the_plain_answer():
    text, marks = mfava_marks("Elle est née en <entity>1869</entity>. <subjective>Elle était géniale.</subjective>")
    assert text == "Elle est née en 1869. Elle était géniale."
    assert [text[a:b] for a, b in marks] == ["1869"]


def test_import_mushroom_gives_the_annotators_marks_as_human_labels(tmp_path):
    from mfact.core.store import Store
    home = tmp_path / "home"
    done = _mfact(home, "import", str(_mushroom_file(tmp_path)))
    assert done.returncode == 0, done.stderr
    os.environ["MFACT_HOME"] = str(home)
    try:
        store = Store()
        (s,) = [store.get_session(r.id) for r in store.list_sessions()]
    finally:
        os.environ.pop("MFACT_HOME", None)
    assert s.language == "de" and s.question == "Wann wurde Marie Curie geboren?" and s.text == ANSWER
    labels = {f.text: f.human.label for f in s.facts}
    wrong = [t for t in labels if "1869" in t]
    assert wrong and all(labels[t] == "NS" for t in wrong), labels
    assert any(lab == "S" for t, lab in labels.items() if "1869" not in t), labels


def test_import_mfava_and_report_the_agreement_with_the_annotators(tmp_path):
    items = [{"references": "Marie Curie, née le 7 novembre 1867 à Varsovie, était une physicienne.",
              "generated_text": "Marie Curie est née en 1869 à Varsovie.",
              "silver_annotations": "Marie Curie est née en <entity>1869</entity> à Varsovie."}]
    path = tmp_path / "silver_french.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    home = tmp_path / "home"
    done = _mfact(home, "import", str(path))
    assert done.returncode == 0, done.stderr
    assert _mfact(home, "rejudge", "--all", "--offline").returncode == 0
    rep = _mfact(home, "report", "--json")
    assert rep.returncode == 0, rep.stderr
    fr = json.loads(rep.stdout)["languages"]["fr"]
    facts = fr["facts"]
    # every fact has the annotators' label and mfact's verdict: all of them are compared
    assert facts >= 2 and fr["agreement"]["n"] == facts and fr["agreement"]["accuracy"] is not None
    assert fr["agreement"]["kappa"] is not None or fr["reasons"]["agreement"]
    table = _mfact(home, "report")
    assert table.returncode == 0 and "κ" in table.stdout and "agree" in table.stdout
    row = [line for line in table.stdout.splitlines() if line.startswith("fr") and "mfava" in line][-1]
    acc = fr["agreement"]["accuracy"]
    assert f"{100 * acc:.1f}" in row


def _mfava_file(tmp_path: Path) -> Path:
    items = [{"references": "Marie Curie, née le 7 novembre 1867 à Varsovie, était une physicienne.",
              "generated_text": "Marie Curie est née en 1869 à Varsovie. Elle était physicienne.",
              "silver_annotations": "Marie Curie est née en <entity>1869</entity> à Varsovie. Elle était physicienne."}]
    path = tmp_path / "silver_french.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_malformed_or_out_of_range_hard_label_is_refused_in_one_line(tmp_path):
    for bad in ([[1]], [["a", "b"]], "zz", [[5, 900]], [[4, 2]]):
        row = {"id": "val-de-1", "lang": "de", "model_output_text": ANSWER, "hard_labels": bad}
        path = tmp_path / "bad.jsonl"
        path.write_text(json.dumps(row) + "\n", encoding="utf-8")
        done = _mfact(tmp_path / "home", "import", str(path))
        err = done.stderr.strip()
        assert done.returncode != 0 and "\n" not in err and "Traceback" not in err, err
        assert "bad.jsonl:1: hard_labels" in err and "nothing was imported" in err, err
    assert not (tmp_path / "home" / "data").exists() or "val-de-1" not in _mfact(
        tmp_path / "home", "sessions", "list").stdout


def test_a_benchmark_file_of_an_unknown_language_is_refused_in_one_line(tmp_path):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps([{"generated_text": "x", "silver_annotations": "x"}]), encoding="utf-8")
    done = _mfact(tmp_path / "home", "import", str(path), "--format", "mfava")
    assert done.returncode != 0 and "silver_<language>.json" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.anyio
async def test_the_tui_shows_an_imported_answer_with_its_annotators_marks(tmp_path, monkeypatch):
    from mfact.core.config import Config
    from mfact.core.formats import read_sessions
    from mfact.tui.app import MfactApp, Services
    from mfact.tui.screens.check import CheckScreen

    from _pilot import wait_for
    monkeypatch.setenv("MFACT_HOME", str(tmp_path / "home"))
    (s,) = read_sessions(_mushroom_file(tmp_path))
    app = MfactApp(Config(workers=1), session=s, services=Services(resolve=lambda *a: None, suggest=lambda *a: []))
    app.animation_level = "none"
    async with app.run_test(size=(150, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))
        await pilot.pause(0.3)
        scr = app.screen
        assert [f.human.label for f in scr.session.facts if "1869" in f.text] == ["NS"]
        svg = app.export_screenshot().replace("&#160;", " ")
        assert "Wann wurde Marie Curie geboren?" in svg      # the question in the header
        assert "1869" in svg and "NS" in svg


def _fact_lines(app) -> list[str]:
    from mfact.tui.widgets.fact_list import FactList
    fl = app.screen.query_one(FactList)
    return [fl.render_line(y).text for y in range(fl.size.height)]


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["mushroom", "mfava"])
async def test_the_tui_lists_each_fact_with_the_annotators_label(tmp_path, monkeypatch, kind):
    """Both benchmarks' files, opened in the TUI: the fact holding the marked year shows the
    annotators' NS in the human column, the others their S; an mFAVA answer keeps its reference as
    evidence."""
    from mfact.core.config import Config
    from mfact.core.formats import read_sessions
    from mfact.tui.app import MfactApp, Services
    from mfact.tui.screens.check import CheckScreen

    from _pilot import wait_for
    monkeypatch.setenv("MFACT_HOME", str(tmp_path / "home"))
    (s,) = read_sessions(_mushroom_file(tmp_path) if kind == "mushroom" else _mfava_file(tmp_path))
    assert (kind == "mfava") == bool(s.evidence)
    app = MfactApp(Config(workers=1), session=s, services=Services(resolve=lambda *a: None, suggest=lambda *a: []))
    app.animation_level = "none"
    async with app.run_test(size=(150, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))
        await pilot.pause(0.3)
        rows = [line for line in _fact_lines(app) if line.strip()[:1].isdigit()]
        facts = app.screen.session.facts
        assert len(rows) == len(facts) >= 2, rows
        # the list is in the facts' order: the human column holds the annotators' label of each
        shown = ["NS" if " NS " in r else "S" if " S " in r else "?" for r in rows]
        assert shown == ["NS" if "1869" in f.text else "S" for f in facts], (rows, [f.text for f in facts])
        assert "NS" in shown and "S" in shown


def test_an_mfava_answer_is_the_generated_text_with_the_marks_carried_onto_it(tmp_path):
    """Offsets refer to the answer as the file gives it (`generated_text`), not to the annotator's
    copy, which may differ from it in spacing or a word."""
    from mfact.core.benchmarks import carry_marks
    from mfact.core.formats import read_sessions
    given = "Marie Curie est  née en 1869 à Varsovie.  Elle était physicienne."
    items = [{"references": "Marie Curie, née le 7 novembre 1867 à Varsovie, était une physicienne.",
              "generated_text": given,
              "silver_annotations": "Marie Curie est née en <entity>1869</entity> à Varsovie. Elle était physicienne."}]
    path = tmp_path / "silver_french.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    (s,) = read_sessions(path)
    assert s.text == given
    wrong = [f for f in s.facts if "1869" in given[f.span[0]:f.span[1]]]
    assert wrong and all(f.human.label == "NS" for f in wrong)
    assert all(f.human.label == "S" for f in s.facts if f not in wrong)
    plain = "Born in 1869 in Warsaw."
    assert [t[a:b] for t in ["Born in 1896 in Warsaw."] for a, b in carry_marks(plain, [(8, 12)], t)] == ["1896"]
    assert carry_marks(plain, [(8, 12)], "Born  in 1869 in Warsaw.") == [(9, 13)]
    assert carry_marks(plain, [], "other") == [] and carry_marks(plain, [(8, 12)], plain) == [(8, 12)]
