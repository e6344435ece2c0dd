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


def test_team_figures_are_the_median_and_best_team_without_baselines(tmp_path):
    (tmp_path / "iou_rankings.md").write_text(
        "# Rankings by IoU\n\n## DE\n\n| | Team | IoU | rho |\n|---:|:--|--:|--:|\n| 1 | A | 0.6 | 0.5 |\n"
        "| 2 | B | 0.4 | 0.3 |\n| 3 | C | 0.2 | 0.1 |\n| | _Baseline (mark all)_ | 0.9 | 0 |\n", encoding="utf-8")
    assert B.medians(tmp_path) == {"de": (0.4, 0.6)}


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
    monkeypatch.setenv("MFACT_HOME", str(tmp_path / "home"))
    loaded = B.load_answers(tmp_path / "data", ["de"])["de"]
    assert all(set(a.evidence) == {"pages", "context"} for a in loaded)
    assert "7. November 1867" in loaded[0].evidence["pages"]
    assert B.main(["--data", str(tmp_path / "data"), "--half", "all", "--keep", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {tuple(c.strip() for c in line.split("|")[1:3]): line for line in out if line.startswith("| de")}
    assert set(rows) == {("de", "pages"), ("de", "context")}
    # the wrong year alone is marked: IoU 1.0 on both answers (the right one marks nothing)
    assert out[-1].startswith("mushroom_val_iou_mean: ") and float(out[-1].split()[-1]) == pytest.approx(1.0)
    assert out[-2] == "mushroom_val_below_median: 0"


def test_missing_data_says_where_it_comes_from(tmp_path, capsys):
    assert B.main(["--data", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert "Helsinki-NLP/mu-shroom" in err and "never commit" in err


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
