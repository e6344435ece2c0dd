"""bench/mushroom.py: the task's scoring definitions on hand examples, the team table, the fixed
halves, and a run on a small layout made here (three answers through the real CLI)."""
from __future__ import annotations

import importlib.util
import io
import json
import sys
import tarfile
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "bench" / "mushroom.py"
_spec = importlib.util.spec_from_file_location("mushroom_bench", _PATH)
assert _spec is not None and _spec.loader is not None
B = importlib.util.module_from_spec(_spec)
sys.modules["mushroom_bench"] = B
_spec.loader.exec_module(B)
_spec_r = importlib.util.spec_from_file_location("mushroom_remark_bench", _PATH.with_name("mushroom_remark.py"))
assert _spec_r is not None and _spec_r.loader is not None
R = importlib.util.module_from_spec(_spec_r)
sys.modules["mushroom_remark_bench"] = R
_spec_r.loader.exec_module(R)
_spec_w = importlib.util.spec_from_file_location("mushroom_windows_bench", _PATH.with_name("mushroom_windows.py"))
assert _spec_w is not None and _spec_w.loader is not None
W = importlib.util.module_from_spec(_spec_w)
sys.modules["mushroom_windows_bench"] = W
_spec_w.loader.exec_module(W)


def test_iou_is_of_characters_and_one_when_nothing_is_marked_on_either_side():
    assert B.iou([], []) == 1.0
    assert B.iou([(0, 4)], []) == 0.0
    assert B.iou([(0, 4)], [(2, 6)]) == pytest.approx(2 / 6)
    assert B.iou([(0, 2), (4, 6)], [(0, 6)]) == pytest.approx(4 / 6)


def test_rho_ranks_characters_and_is_exact_match_where_one_side_is_constant():
    gold = [{"start": 0, "end": 2, "prob": 0.9}, {"start": 2, "end": 4, "prob": 0.3}]
    assert B.rho(6, gold, [(0, 2, 0.8), (2, 4, 0.5)]) == pytest.approx(1.0)
    assert B.rho(6, gold, [(2, 4, 0.8), (0, 2, 0.5)]) < B.rho(6, gold, [(0, 2, 0.8), (2, 4, 0.5)])
    assert B.rho(6, [], []) == 1.0 and B.rho(6, gold, []) == 0.0
    assert B.spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert B.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


def test_rho_on_hand_computed_examples_with_ties_and_the_scorers_constant_rule():
    # ranks with ties averaged: [1.5, 1.5, 3.5, 3.5] against [1, 3, 3, 3] -> 2 / sqrt(12)
    assert B.spearman([0, 0, 1, 1], [0, 1, 1, 1]) == pytest.approx(2 / 12 ** 0.5)
    gold = [{"start": 2, "end": 4, "prob": 1.0}]
    assert B.rho(4, gold, [(1, 4, 0.7)]) == pytest.approx(2 / 12 ** 0.5)
    # both sides constant: 1.0 even at different values (the scorer compares how many values each has)
    assert B.rho(4, [{"start": 0, "end": 4, "prob": 1.0}], []) == 1.0
    assert B.rho(4, [], [(0, 4, 0.9)]) == 1.0
    # spans past the end of the text are cut there; the IoU counts characters, not spans
    assert B.rho(4, gold, [(2, 9, 0.5)]) == pytest.approx(1.0)
    assert B.iou([(0, 3), (2, 5)], [(0, 5)]) == 1.0


RANKINGS = ("# Rankings by IoU\n\n## DE\n\n|    | Team name | IoU | ρ |\n|---:|:--|--:|--:|\n"
            "|  1 | A | 0.6 | 0.5 |\n|  2 | B | 0.4 | 0.7 |\n|  3 | C | 0.2 | 0.1 |\n"
            "|    | _Baseline (mark all)_ | 0.9 | 0 |\n\n## SV\n\n| | Team | IoU | ρ |\n|---:|:--|--:|--:|\n"
            "| 2 | Y | 0.3 | 0.2 |\n| 1 | X | 0.5 | 0.1 |\n|    | _Baseline (mark none)_ | 0.05 | 0.01 |\n")


def test_team_figures_are_the_median_and_best_team_without_baselines(tmp_path):
    (tmp_path / "iou_rankings.md").write_text(RANKINGS, encoding="utf-8")
    t = B.team_figures(tmp_path)
    assert set(t) == {"de", "sv"}
    assert t["de"] == B.Teams(median_iou=0.4, median_rho=0.5, best_iou=0.6, best_rho=0.5)
    assert t["sv"] == B.Teams(median_iou=pytest.approx(0.4), median_rho=pytest.approx(0.15), best_iou=0.5,
                              best_rho=0.1)
    assert B.team_figures(tmp_path / "nowhere") == {}


def test_a_page_is_matched_by_its_canonical_url_whatever_its_spelling():
    assert B.canonical_url('<head><link rel="canonical" href="https://de.wikipedia.org/wiki/A_B"></head>') == \
        "https://de.wikipedia.org/wiki/A_B"
    assert B.canonical_url("<LINK href='https://fi.wikipedia.org/wiki/X&amp;Y' REL=canonical />") == \
        "https://fi.wikipedia.org/wiki/X&Y"
    assert B.canonical_url('<link rel="stylesheet" href="a.css"><p>no canonical</p>') == ""
    moved = '<script>RLCONF={"wgRedirectedFrom":"FK_Astana-1964","wgX":1};</script>'
    assert B.page_keys("https://fr.wikipedia.org/wiki/FK_Jenis", moved) == [
        "fr.wikipedia.org/wiki/fk_jenis", "fr.wikipedia.org/wiki/fk_astana-1964"]
    assert B.page_keys("https://fr.wikipedia.org/wiki/FK_Jenis", "<p>not moved</p>") == [
        "fr.wikipedia.org/wiki/fk_jenis"
    ]
    enc = B._norm_url("https://de.m.wikipedia.org/wiki/Cilleruelo_de_San_Mam%C3%A9s")
    assert enc == B._norm_url("http://de.wikipedia.org/wiki/Cilleruelo de San Mamés/")
    assert enc != B._norm_url("https://de.wikipedia.org/wiki/Cilleruelo_de_Bezana")


def test_the_halves_are_fixed_and_split_the_answers():
    ids = [f"val-de-{i}" for i in range(200)]
    halves = [B.half_of(i) for i in ids]
    assert halves == [B.half_of(i) for i in ids]
    assert 60 < halves.count("tuning") < 140


def _layout(root: Path) -> None:
    rows = [
        {"id": "val-de-1", "lang": "de", "model_input": "Wann wurde Marie Curie geboren?",
         "model_output_text": "Marie Curie wurde am 7. November 1869 geboren.",
         "hard_labels": [[33, 37]], "soft_labels": [{"start": 33, "end": 37, "prob": 1.0}],
         "wikipedia_url": "https://de.wikipedia.org/wiki/Marie_Curie"},
        {"id": "val-de-2", "lang": "de", "model_input": "Wo wurde Marie Curie geboren?",
         "model_output_text": "Marie Curie wurde in Warschau geboren.", "hard_labels": [], "soft_labels": [],
         "wikipedia_url": "https://de.wikipedia.org/wiki/Marie_Curie"},
    ]
    (root / "val").mkdir(parents=True)
    (root / "val" / "mushroom.de-val.v2.extra.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    ctx = root / "context" / "de-val.v2_perplexity-sonar-pro"
    ctx.mkdir(parents=True)
    page = ("Marie Curie wurde am 7. November 1867 in Warschau geboren. Sie war eine Physikerin und "
            "Chemikerin.")
    for r in rows:
        (ctx / f"{r['id']}.context.txt").write_text(page, encoding="utf-8")
    html = (f'<html><head><title>Marie Curie</title><link rel="canonical" '
            f'href="https://de.wikipedia.org/wiki/Marie_Curie"></head><body><p>{page}</p></body></html>')
    (root / "url-pages").mkdir()
    with tarfile.open(root / "url-pages" / "de.tar.gz", "w:gz") as tar:
        data = html.encode("utf-8")
        info = tarfile.TarInfo("de/1.html")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


def test_a_small_layout_runs_through_the_cli_in_both_settings(tmp_path, capsys, monkeypatch):
    _layout(tmp_path / "data")
    (tmp_path / "data" / "iou_rankings.md").write_text(RANKINGS, encoding="utf-8")
    monkeypatch.setenv("MFACT_HOME", str(tmp_path / "home"))
    loaded = B.load_answers(tmp_path / "data", ["de"])["de"]
    assert all(set(a.evidence) == {"pages", "context"} for a in loaded)
    assert "7. November 1867" in loaded[0].evidence["pages"]
    argv = ["--data", str(tmp_path / "data"), "--half", "all", "--langs", "de,fr", "--keep", str(tmp_path / "runs")]
    assert B.main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {tuple(c.strip() for c in line.split("|")[1:3]): line for line in out if line.startswith("| de")}
    assert set(rows) == {("de", "pages"), ("de", "context")}
    cells = [c.strip() for c in rows[("de", "context")].split("|")[1:-1]]
    # mfact, mark-all, mark-nothing (IoU / rho), then the median and best team read from the file
    assert cells[2] == "2" and cells[6:] == ["0.400 / 0.500", "0.600 / 0.500"]
    assert cells[5] == "0.500 / 0.500"           # marking nothing: right on the answer without marks
    assert any(line.startswith("| fr | skipped: no val/mushroom.fr-val.v2.extra.jsonl") for line in out)
    lines = [x for x in out if "95% interval" in x]
    assert [x.split(":")[0] for x in lines] == ["pages", "context", "context minus pages (answers with both)"]
    # the wrong year alone is marked: IoU 1.0 on both answers (the right one marks nothing)
    assert out[-1].startswith("mushroom_val_iou_mean: ") and float(out[-1].split()[-1]) == pytest.approx(1.0)
    assert out[-2] == "mushroom_val_below_median: 0"
    sent = [json.loads(x) for x in (tmp_path / "runs" / "context" / "texts.jsonl").read_text().splitlines()]
    assert sent[0]["question"] == "Wann wurde Marie Curie geboren?" and "entity" not in sent[0]
    assert "Warschau" in sent[0]["evidence"][0]["text"]
    # the same code and answers again: both settings read from the cache, the same figures
    assert B.main(argv[:-2]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("(cached; --fresh runs it)") == 2 and captured.out.splitlines()[-2:] == out[-2:]
    # the kept run marked again by bench/mushroom_remark.py: the same figures as stored, in both settings
    remark = ["--data", str(tmp_path / "data"), "--keep", str(tmp_path / "runs"), "--half", "all"]
    assert R.main(remark) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("|")[1:3] for line in lines if line.startswith("| de")] == [[" de ", " pages "],
                                                                                   [" de ", " context "]]
    assert lines[-3:] == ["remark_stored_mean: 1.0000", "remark_mean: 1.0000", "remark_below_median: 0"]
    # bench/mushroom_windows.py on the kept run: one window per evidence, so the ceiling is the run
    assert W.main(remark) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == ["windows_remark_mean: 1.0000",
                                                         "windows_ceiling_mean: 1.0000"]
    # a constant set for the run: with no evidence window read, every word but the asked ones is unsaid
    from mfact.core.checking.verify import answer
    monkeypatch.setattr(answer, "WINDOWS", answer.WINDOWS)
    assert R.main(remark + ["--set", "WINDOWS=0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-3] == "remark_stored_mean: 1.0000" and float(out[-2].split()[-1]) < 0.6
    for bad, why in (("NOPE=1", "not a constant of the answer marks; one of: "), ("GAP_WORDS=two", "GAP_WORDS is int")):
        assert R.main(remark + ["--set", bad]) == 2
        assert why in capsys.readouterr().err
    assert R.main(["--data", str(tmp_path / "data"), "--keep", str(tmp_path / "nothing")]) == 2
    assert "no kept run in" in capsys.readouterr().err


def test_missing_data_says_where_it_comes_from(tmp_path, capsys, monkeypatch):
    assert B.main(["--data", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(tmp_path / "nothing") in err
    for where in ("Helsinki-NLP/mu-shroom", "splits/val/v2", "data/url-pages", "nlp-ucsc/semeval-2025-task3",
                  "Helsinki-NLP/shroom", "iou_rankings.md", "never commit"):
        assert where in err
    monkeypatch.delenv("MFACT_MUSHROOM", raising=False)
    assert B.main([]) == 2
    assert "set $MFACT_MUSHROOM or pass --data DIR" in capsys.readouterr().err
    assert B.main(["--data", str(tmp_path), "--langs", "xx"]) == 2
    assert "unknown language or setting 'xx'" in capsys.readouterr().err


def test_a_language_mfact_refuses_is_named_with_the_reason():
    assert B.refused_languages(["de", "sv", "zh"]) == {}
    (why,) = B.refused_languages(["qqq"]).values()
    assert "'qqq'" in why


def _answer(i: int, lang: str = "de", marked: bool = True) -> "B.Answer":
    text = "eins zwei drei"
    return B.Answer(f"val-{lang}-{i}", lang, "Frage?", text, [(5, 9)] if marked else [],
                    [{"start": 5, "end": 9, "prob": 1.0}] if marked else [], "", {"context": "x", "pages": "y"})


def test_the_tuning_sample_and_per_lang_are_fixed_and_disjoint_from_the_reported_half():
    rows = {"de": [_answer(i) for i in range(60)]}
    rep, tun = {"de": list(rows["de"])}, {"de": list(rows["de"])}
    B.select(rep, "reported", 5)
    B.select(tun, "tuning", 5)
    assert len(rep["de"]) == len(tun["de"]) == 5
    assert not {a.id for a in rep["de"]} & {a.id for a in tun["de"]}
    again = {"de": list(rows["de"])}
    B.select(again, "reported", 5)
    assert [a.id for a in again["de"]] == [a.id for a in rep["de"]]
    assert B._args(["--tuning-sample"]).half == "tuning" and B._args([]).half == "reported"


def test_bootstrap_intervals_and_paired_differences():
    answers = {"de": [_answer(i) for i in range(6)], "fi": [_answer(i, "fi") for i in range(6)]}
    exact = B.SettingRun("context", {a.id: [(5, 9, 0.9)] for rows in answers.values() for a in rows})
    half = B.SettingRun(
        "pages", {a.id: [(5, 9, 0.9)] for rows in answers.values() for k, a in enumerate(rows) if k % 2}
    )
    lines = B.intervals(answers, {"context": exact, "pages": half}, resamples=200)
    # exact marks: IoU 1.0 on every draw; marking all of "eins zwei drei" scores 4/14 on each answer
    assert lines[0].startswith("context: mfact mean IoU 95% interval 1.000 .. 1.000; mfact minus mark-all "
                               f"+{1 - 4 / 14:.3f} .. +{1 - 4 / 14:.3f} (paired: better")
    lo, hi = (float(x) for x in lines[1].split("interval ")[1].split(";")[0].split(" .. "))
    assert 0 <= lo < hi <= 1                          # which answers were drawn matters
    assert lines[2].startswith("pages minus context (answers with both): mean IoU 95% interval -")
    assert "(paired: worse)" in lines[2]
    assert B.intervals({"de": []}, {"context": exact}) == []


def test_runs_are_cached_by_code_and_answers(tmp_path, monkeypatch):
    monkeypatch.setenv("MFACT_HOME", str(tmp_path / "home"))
    calls = []

    def fake(answers, setting, work):
        calls.append(setting)
        return B.SettingRun(setting, {a.id: [(5, 9, 0.75)] for a in answers}, 3.0,
                            failed={"x": "boom"} if setting == "pages" else {})

    monkeypatch.setattr(B, "run_setting", fake)
    answers = [_answer(i) for i in range(3)]
    first = B.cached_setting(answers, "context", tmp_path / "w", "code1")
    again = B.cached_setting(answers, "context", tmp_path / "w", "code1")
    assert calls == ["context"] and again.cached and again.soft == first.soft and again.seconds == 3.0
    B.cached_setting(answers, "context", tmp_path / "w", "code2")              # other code
    B.cached_setting(answers[:2], "context", tmp_path / "w", "code1")          # other answers
    changed = [_answer(i) for i in range(3)]
    changed[0].evidence["context"] = "other evidence"
    B.cached_setting(changed, "context", tmp_path / "w", "code1")              # other evidence
    B.cached_setting(answers, "context", tmp_path / "w", "code1", fresh=True)
    assert len(calls) == 5
    for _ in range(2):
        B.cached_setting(answers, "pages", tmp_path / "w", "code1")            # a failed answer: not kept
    assert calls.count("pages") == 2
    for f in B.runs_dir().glob("*.json"):
        f.write_text("{not json", encoding="utf-8")
    B.cached_setting(answers, "context", tmp_path / "w", "code1")
    assert len(calls) == 8


def test_export_mushroom_is_scored_by_the_task_definitions_and_spans_carry_p(tmp_path):
    """`mfact export --format mushroom` writes what the task's scorer reads; scored against the
    annotators' marks of a hand example with the task's IoU and rho. `--format spans` carries p."""
    import os
    import subprocess
    line = {"id": "val-en-7", "lang": "en", "question": "When was Marie Curie born?",
            "text": "Marie Curie was born on 7 November 1869 in Warsaw.",
            "evidence": [{"title": "Marie Curie",
                          "text": "Marie Curie (born 7 November 1867 in Warsaw, died 1934) was a Polish physicist."}]}
    (tmp_path / "t.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    env = {**os.environ, "MFACT_HOME": str(tmp_path / "home"), "OMP_NUM_THREADS": "1"}
    cli = [sys.executable, "-m", "mfact.core.cli"]
    assert subprocess.run(cli + ["run", "--texts", str(tmp_path / "t.jsonl"), "--offline"], env=env,
                          capture_output=True, timeout=600).returncode == 0
    for fmt in ("mushroom", "spans"):
        done = subprocess.run(cli + ["export", "--all", "--format", fmt, "-o", str(tmp_path / f"{fmt}.jsonl")],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    pred = json.loads((tmp_path / "mushroom.jsonl").read_text(encoding="utf-8"))
    assert set(pred) == {"id", "lang", "model_input", "model_output_text", "hard_labels", "soft_labels"}
    assert pred["id"] == "val-en-7" and pred["model_input"] == line["question"]
    text = pred["model_output_text"]
    assert [text[a:b] for a, b in pred["hard_labels"]] == ["1869"]
    assert all(0.5 <= s["prob"] <= 1.0 for s in pred["soft_labels"])
    gold_hard = [[text.index("1869"), text.index("1869") + 4]]
    gold_soft = [{"start": gold_hard[0][0], "end": gold_hard[0][1], "prob": 0.8}]
    assert B.iou(gold_hard, pred["hard_labels"]) == 1.0
    assert B.rho(len(text), gold_soft, [(s["start"], s["end"], s["prob"]) for s in pred["soft_labels"]]) == 1.0
    spans = json.loads((tmp_path / "spans.jsonl").read_text(encoding="utf-8"))["spans"]
    assert len(spans) == 1 and spans[0][2] == "NS" and spans[0][3] == pred["soft_labels"][0]["prob"]


def test_an_unreadable_pages_archive_is_named_and_its_answers_keep_the_context(tmp_path, capsys):
    (tmp_path / "url-pages").mkdir()
    (tmp_path / "url-pages" / "ar.tar.gz").write_bytes(b"")
    (tmp_path / "url-pages" / "zh.tar.gz").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:0\n")
    assert B.read_pages(tmp_path, "ar") == {} and B.read_pages(tmp_path, "zh") == {}
    err = capsys.readouterr().err
    for lang in ("ar", "zh"):
        assert f"url-pages/{lang}.tar.gz: not a readable .tar.gz" in err
        assert f"the {lang} answers are run without the pages setting" in err


def test_the_windows_bench_finds_the_window_that_settles_a_sentence(tmp_path, capsys):
    # the chooser reads the window with the rarest shared stems ("Warschau", "1869"), which says the
    # wrong year; the window that settles the sentence says its right words and not the wrong one
    text = "Marie Curie wurde 1869 in Warschau geboren."
    row = {"id": "val-de-1", "lang": "de", "model_input": "Wann kam Marie Curie zur Welt?",
           "model_output_text": text, "hard_labels": [[text.index("1869"), text.index("1869") + 4]],
           "soft_labels": [], "wikipedia_url": "https://de.wikipedia.org/wiki/Marie_Curie"}
    (tmp_path / "val").mkdir()
    (tmp_path / "val" / "mushroom.de-val.v2.extra.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    ctx = tmp_path / "context" / "de-val.v2_perplexity-sonar-pro"
    ctx.mkdir(parents=True)
    (ctx / "val-de-1.context.txt").write_text(
        "Marie Curie wurde 1867 geboren. Marie Curie wurde Physikerin. Marie Curie wurde berühmt. "
        "Warschau feierte 1869 ein Fest. Das Fest war groß.", encoding="utf-8")
    assert W.main(["--data", str(tmp_path), "--half", "all"]) == 0
    out = capsys.readouterr().out.splitlines()
    cells = [c.strip() for c in next(x for x in out if x.startswith("| de | context")).split("|")[1:-1]]
    # one sentence, not settled by the chosen window, settled by the chooser's second
    assert cells[2:5] == ["1", "0.00", "1.00"]
    # right words said: chosen (not "geboren") / settling (not "Warschau") / the whole evidence;
    # the wrong year: said by the chosen window and the whole evidence, not by the settling one
    assert cells[5:] == ["0.75 / 0.75 / 1.00", "1.00 / 0.00 / 1.00"]
    assert out[-2:] == ["windows_settled_mean: 0.000", "windows_top3_mean: 1.000"]
    assert W.main(["--data", str(tmp_path / "none")]) == 2
    assert "val" in capsys.readouterr().err
