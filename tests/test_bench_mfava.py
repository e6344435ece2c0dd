"""The pure parts of bench/mfava_silver.py: tags to token labels, tokens, F1, the missing-data line.
(Hand-written sentences only: the mFAVA data itself is never copied into the repository.)"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "bench" / "mfava_silver.py"
_spec = importlib.util.spec_from_file_location("mfava_silver", _PATH)
M = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("mfava_silver", M)          # dataclasses look their module up there
_spec.loader.exec_module(M)

ANNOTATED = ("Ada Lovelace was born in <entity>LondonParis</entity> in 1815. <subjective>She was the "
             "finest mind of her age.</subjective> <invented>She also sailed to Japan.</invented> She "
             "<relation>wrotedeleted</relation> the first program.")


def words(text, tokens, labels):
    return [(text[s:e], lab) for (s, e), lab in zip(tokens, labels)]


def test_tags_become_character_then_token_labels():
    plain, labels = M.parse_annotations(ANNOTATED)
    assert plain == ("Ada Lovelace was born in LondonParis in 1815. She was the finest mind of her age. "
                     "She also sailed to Japan. She wrotedeleted the first program.")
    assert len(labels) == len(plain)
    toks = M.tokenize(plain, "en")
    got = words(plain, toks, M.token_gold(toks, labels))
    assert got[:7] == [("Ada", 0), ("Lovelace", 0), ("was", 0), ("born", 0), ("in", 0), ("LondonParis", 1), ("in", 0)]
    assert [lab for w, lab in got[8:16]] == [None] * 8                  # subjective: not scored
    assert [lab for w, lab in got[16:21]] == [1] * 5                    # "She also sailed to Japan."
    assert got[21:] == [("She", 0), ("wrotedeleted", 1), ("the", 0), ("first", 0), ("program.", 0)]
    with_subj = M.token_gold(toks, labels, with_subjective=True)
    assert with_subj[8:16] == [1] * 8


def test_a_tag_covering_part_of_a_word_labels_the_word():
    plain, labels = M.parse_annotations("Born in 19<entity>6768</entity>, she moved.")
    toks = M.tokenize(plain, "en")
    assert words(plain, toks, M.token_gold(toks, labels)) == [("Born", 0), ("in", 0), ("196768,", 1), ("she", 0),
                                                             ("moved.", 0)]


def test_misspelt_and_malformed_tags_and_brackets_that_are_no_tags():
    plain, labels = M.parse_annotations("A <contraidictorio>B C</contradictorio> D <unverificabile>E</unverificabile> "
                                        "<invented>F<\\invented> G <--subjective>H</subjective--> <정글북> "
                                        "<i>I</i> J")
    assert plain == "A B C D E F G H <정글북> I J"
    marks = {w: lab for w, lab in words(plain, M.tokenize(plain, "en"), M.token_gold(M.tokenize(plain, "en"), labels))}
    assert marks == {"A": 0, "B": 1, "C": 1, "D": 0, "E": 1, "F": 1, "G": 0, "H": None, "<정글북>": 0, "I": 0, "J": 0}


def test_alignment_to_a_text_that_differs_from_the_annotation():
    plain, labels = M.parse_annotations("Ada was born in <entity>London</entity> and died young.")
    target = "Ada was born in Londonn and died very young."
    out = M.align_labels(plain, labels, target)
    toks = M.tokenize(target, "en")
    assert words(target, toks, M.token_gold(toks, out)) == [
        ("Ada", 0), ("was", 0), ("born", 0), ("in", 0), ("Londonn", 1), ("and", 0), ("died", 0), ("very", 0),
        ("young.", 0)]
    assert M.align_labels(plain, labels, plain) == labels


def test_cjk_languages_count_characters():
    text = "居里夫人1867年出生於華沙。She was 物理學家"
    toks = [text[s:e] for s, e in M.tokenize(text, "yue")]
    assert toks == ["居", "里", "夫", "人", "1867", "年", "出", "生", "於", "華", "沙", "。", "She", "was",
                    "物", "理", "學", "家"]
    assert [text[s:e] for s, e in M.tokenize(text, "ko")] == ["居里夫人1867年出生於華沙。She", "was", "物理學家"]
    ja = "マリ・キュリーは物理学者"
    assert [ja[s:e] for s, e in M.tokenize(ja, "ja")] == list(ja)


def test_marks_and_f1_arithmetic():
    text = "one two three four five"
    toks = M.tokenize(text, "en")
    assert M.token_marks(toks, [(4, 6), (10, 15)]) == [0, 1, 1, 1, 0]      # any overlap marks a token
    assert M.token_marks(toks, [(3, 4), (13, 14)]) == [0] * 5            # spaces only: nothing
    assert M.token_marks(toks, []) == [0] * 5
    c = M.Counts().add([1, 1, 0, 0, None], [1, 0, 1, 0, 1])
    assert (c.tp, c.fp, c.fn, c.tn) == (1, 1, 1, 1)
    assert c.prf() == pytest.approx((50.0, 50.0, 50.0))
    c.add([1, 1], [1, 1])
    p, r, f = c.prf()
    assert (p, r) == pytest.approx((75.0, 75.0)) and f == pytest.approx(75.0)
    everything = M.Counts().add([1, 0, 0, 0], [1, 1, 1, 1])           # flag-everything: P = tagged share, R = 1
    assert everything.prf() == pytest.approx((25.0, 100.0, 40.0))
    assert M.Counts().prf() == (0.0, 0.0, 0.0)
    assert M.Counts().add([0, 0], [0, 0]).prf() == (0.0, 0.0, 0.0)


def test_missing_data_is_one_line_saying_where_to_put_it(tmp_path, capsys):
    assert M.main(["--data", str(tmp_path), "--langs", "fr,yue"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert str(tmp_path) in err and "silver_french.json" in err and "silver_cantonese.json" in err
    assert "WorldHellow/mHallucinations-LLM" in err and "never commit" in err


def test_data_folder_default(monkeypatch, tmp_path):
    monkeypatch.setenv("MFACT_MFAVA_SILVER", str(tmp_path / "here"))
    assert M.default_data_dir() == tmp_path / "here"
    monkeypatch.delenv("MFACT_MFAVA_SILVER")
    monkeypatch.setenv("MFACT_HOME", str(tmp_path / "home"))
    assert M.default_data_dir() == tmp_path / "home" / "cache" / "mfava-silver"
    assert not (tmp_path / "home").exists()                               # looking does not create it


def _answers(code, n, tagged):
    """n answers of five words, the first `tagged` words of each tagged hallucinated."""
    text = "one two three four five"
    labels = [0] * len(text)
    for s, e in M.tokenize(text, code)[:tagged]:
        labels[s:e] = [1] * (e - s)
    return [M.Item(id=f"{code}-{i}", lang=code, text=text, reference="", labels=labels) for i in range(n)]


def test_bootstrap_intervals_and_the_paired_difference():
    items = {"en": _answers("en", 6, 2), "fr": _answers("fr", 6, 2)}
    exact, all_words, half = M.RunResult("exact"), M.RunResult("all"), M.RunResult("half")
    for its in items.values():
        for k, it in enumerate(its):
            exact.spans[it.id] = [(0, 7)]                 # "one two": the tagged words
            all_words.spans[it.id] = [(0, 23)]
            half.spans[it.id] = [(0, 7)] if k % 2 else []
    lines = M.intervals(items, [exact, all_words, half], False, resamples=200)
    assert lines[0].startswith("exact: mean F1 95% interval 100.0 .. 100.0")     # the same on every draw
    assert "all minus exact: 95% interval -42.9 .. -42.9 (paired: worse)" in lines[1]
    lo, hi = (float(x) for x in lines[2].split("interval ")[1].split(" (")[0].split(" .. "))
    assert lo < hi < 0 and "(paired: worse)" in lines[2]                  # which answers were drawn matters
    # a verifier that checked no answer of a language counts 0 there; no results: no lines
    assert M.intervals(items, [], False) == []
    assert M.intervals({"en": []}, [exact], False) == []


def test_the_tuning_sample_is_disjoint_from_the_reported_one():
    """Constants chosen on `--tuning-sample` never see the answers the reported figure is measured on;
    the reported sample is the one it always was (the same seed and draw)."""
    import random
    for n, k in ((100, 8), (30, 8), (12, 8), (5, 8)):
        bench = M.sample_indices(n, "korean", k)
        tuning = M.sample_indices(n, "korean", k, tuning=True)
        if k >= n:
            assert bench == list(range(n)) and tuning == []
            continue
        assert bench == sorted(random.Random(f"{M.SEED}-korean").sample(range(n), k))
        assert not set(bench) & set(tuning) and len(tuning) == min(k, n - k)
        assert tuning == M.sample_indices(n, "korean", k, tuning=True) != M.sample_indices(n, "czech", k, tuning=True)


def test_runs_are_cached_by_code_verifier_and_answers(tmp_path, monkeypatch):
    """A candidate compared with the default reruns only the candidate: a finished run is read back
    for the same code, verifier (a weights file by its content) and answers; anything else, a failed
    run, a damaged entry or --fresh runs again."""
    monkeypatch.setenv("MFACT_MFAVA_SILVER", str(tmp_path / "data"))
    calls = []

    def fake_run(items, verifier, home, progress=True):
        calls.append(verifier)
        ok = "bad" not in verifier
        return M.RunResult(verifier, 12.5, {it.id: [(0, 3)] for it in items}, failed={} if ok else {"x": "boom"})

    monkeypatch.setattr(M, "run_verifier", fake_run)
    items = _answers("fr", 3, 1)
    weights = tmp_path / "w.pt"
    weights.write_bytes(b"one")
    first = M.cached_run(items, f"detector:{weights}", tmp_path / "w", "code1")
    again = M.cached_run(items, f"detector:{weights}", tmp_path / "w", "code1")
    assert len(calls) == 1 and again.cached and not first.cached
    assert again.spans == first.spans and again.seconds == 12.5
    M.cached_run(items, f"detector:{weights}", tmp_path / "w", "code2")           # other code
    weights.write_bytes(b"two")
    M.cached_run(items, f"detector:{weights}", tmp_path / "w", "code1")           # other weights, same name
    M.cached_run(items[:2], f"detector:{weights}", tmp_path / "w", "code1")       # other answers
    M.cached_run(items, f"detector:{weights}", tmp_path / "w", "code1", fresh=True)
    assert len(calls) == 5
    for _ in range(2):
        M.cached_run(items, "bad", tmp_path / "w", "code1")                       # failures are not kept
    assert calls.count("bad") == 2
    for f in M.runs_dir().glob("*.json"):
        f.write_text("{not json", encoding="utf-8")
    M.cached_run(items, f"detector:{weights}", tmp_path / "w", "code1")
    assert len(calls) == 8


def test_code_digest_follows_every_file_under_core(tmp_path):
    (tmp_path / "core" / "checking" / "__pycache__").mkdir(parents=True)
    (tmp_path / "core" / "checking" / "a.py").write_text("x = 1\n")
    before = M.code_digest(tmp_path)
    (tmp_path / "core" / "checking" / "__pycache__" / "a.pyc").write_bytes(b"junk")
    assert M.code_digest(tmp_path) == before
    (tmp_path / "core" / "checking" / "a.py").write_text("x = 2\n")
    assert M.code_digest(tmp_path) != before
