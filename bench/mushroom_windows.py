"""Mu-SHROOM validation: how well the answer marks' evidence window is chosen. For each sentence of
an answer, the window that settles it is the one, of all windows of its evidence, that says most
of the sentence's right words and fewest of its wrong ones (the annotators' marks decide which is
which); the bench prints how often the window the answer marks read (`answer.local_evidence`: the
one that shares most rare stems with the sentence and the question) is that window, or among the
three the chooser ranks first, and how much of the right words the chosen window says against the
whole page:

    python bench/mushroom_windows.py [--half tuning|reported|all] [--set NAME=VALUE ...] [--keep DIR [--among N]]

No mfact run is needed: only the data (`--data DIR`, else `$MFACT_MUSHROOM`), as bench/mushroom.py
reads it. `--set` sets a constant of `core/checking/verify/answer.py` (WINDOW_SENTENCES, PREFIX, ...)
as bench/mushroom_remark.py does. With `--keep DIR` (a kept `bench/mushroom.py --half all --keep DIR`
run) it also re-marks the run as bench/mushroom_remark.py does, once with the chosen windows and
once with each sentence's settling window (of the chooser's first N with `--among N`): a ceiling
that says what a better choice of window could gain, since the settling window is chosen knowing
the annotators' marks.

Method. The answer is split into sentences by the pipeline's splitter; a sentence's words are the
words the answer marks read (function words aside; Chinese by character), a word wrong when a
character of it is in the annotators' hard marks. A word is said by a text as the answer marks
decide it word by word, with the question (before their marks are joined and cut to values). Per
sentence that has a right or a wrong word:
- `settled`: the chosen window is one of those with the best settling score (right words said minus
  wrong words said), counted only where windows differ in that score;
- `top3`: one of the chooser's three first windows has the best settling score;
- `right said`: the share of right words said by the chosen window, by the settling window and by
  the whole evidence (the first two against the third measure what choosing one window costs);
- `wrong said`: the same for the wrong words (what reading the whole page would excuse).

Per language and setting; the last lines are `windows_settled_mean: X` and `windows_top3_mean: X`,
means over the cells, and with `--keep`, `windows_remark_mean: X` and `windows_ceiling_mean: X`
(mean re-marked IoU over the cells).
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _load(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, _HERE / file)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


_remark = _load("mushroom_bench_remark", "mushroom_remark.py")
_mushroom = _remark._mushroom         # bench/mushroom.py, as the re-marking bench loaded it
SETTINGS = ("pages", "context")


@dataclass
class Cell:
    sentences: int = 0
    decided: int = 0        # sentences whose windows differ in settling score
    settled: int = 0
    top3: int = 0
    right: list[int] = field(default_factory=lambda: [0, 0, 0, 0])   # words, said by chosen / settling / all
    wrong: list[int] = field(default_factory=lambda: [0, 0, 0, 0])


def words_of(sentence: str, start: int, lang: str) -> list[tuple[int, int]]:
    """The spans (into the answer) of the words the answer marks read in a sentence."""
    from mfact.core.checking.text.textutil import SPACELESS, STOPWORDS
    from mfact.core.checking.verify import answer
    if lang in SPACELESS:
        return [(start + m.start() + i, start + m.start() + i + 1)
                for m in answer._HAN_RUN.finditer(sentence) for i, ch in enumerate(m.group()) if ch.isalnum()]
    return [(start + m.start(), start + m.end()) for m in answer._WORD.finditer(sentence)
            if answer.fold(m.group()) not in STOPWORDS]


def said_by(sentence: str, start: int, words: list[tuple[int, int]], lang: str, texts: list[str],
            question: str) -> list[bool]:
    """For each word, whether `texts` (with the question) say it, word by word as the answer marks
    decide it (`answer.unsaid_words`: before their marks are joined and cut to values)."""
    from mfact.core.checking.verify import answer
    marks = [(a + start, b + start) for a, b in answer.unsaid_words(sentence, lang, [*texts, question])]
    return [not any(a < mb and ma < b for ma, mb in marks) for a, b in words]


def settling_score(said: list[bool], wrong: list[bool]) -> int:
    """How well a window settles a sentence: its right words it says less its wrong words it says."""
    return sum(ok and not bad for ok, bad in zip(said, wrong)) - sum(ok and bad for ok, bad in zip(said, wrong))


def measure(a, setting: str, cell: Cell) -> None:
    from mfact.core.checking.verify import answer
    from mfact.core.pipeline.text import sentences_of
    evidence = _remark.given_evidence(a.evidence[setting])
    gold = _mushroom._chars(a.hard)
    for s in sentences_of(a.text, a.lang):
        words = words_of(s.text, s.start, a.lang)
        wrong = [any(i in gold for i in range(x, y)) for x, y in words]
        if not words:
            continue
        wins, order = answer.ranked_windows(s.text, a.question, evidence, a.lang)
        if not wins:
            continue
        chosen = answer.local_evidence(s.text, a.question, evidence, a.lang)
        said = [said_by(s.text, s.start, words, a.lang, [w], a.question) for w in wins]
        settle = [settling_score(sv, wrong) for sv in said]
        best = max(settle)
        cell.sentences += 1
        if best > min(settle):
            cell.decided += 1
            cell.settled += any(settle[i] == best for i, w in enumerate(wins) if w in chosen)
            cell.top3 += any(settle[i] == best for i in order[:3])
        by_chosen = said_by(s.text, s.start, words, a.lang, chosen, a.question)
        by_settling = said[settle.index(best)]
        by_all = said_by(s.text, s.start, words, a.lang, evidence, a.question)
        for k, bad in enumerate(wrong):
            tally = cell.wrong if bad else cell.right
            tally[0] += 1
            tally[1] += by_chosen[k]
            tally[2] += by_settling[k]
            tally[3] += by_all[k]


def settling_chooser(answers: dict, among: int):
    """A stand-in for `answer.local_evidence` that returns a sentence's settling window (of the
    chooser's first `among`, all with 0), for the answers it knows by (question, language)."""
    from mfact.core.checking.verify import answer
    known = {(a.question, a.lang): a for rows in answers.values() for a in rows}

    def choose(sentence: str, question: str, evidence, lang: str) -> list[str]:
        a = known.get((question, lang))
        at = a.text.find(sentence) if a is not None else -1
        if a is None or at < 0:
            return answer.local_evidence(sentence, question, evidence, lang)
        words = words_of(sentence, at, lang)
        gold = _mushroom._chars(a.hard)
        wrong = [any(i in gold for i in range(x, y)) for x, y in words]
        wins, order = answer.ranked_windows(sentence, question, evidence, lang)
        best, pick = -math.inf, None
        for i in order[:among] if among else order:
            said = said_by(sentence, at, words, lang, [wins[i]], question)
            score = settling_score(said, wrong)
            if score > best:
                best, pick = score, i
        return [wins[pick]] if pick is not None else []
    return choose


def ceiling(answers: dict, keep: str, among: int) -> None:
    """Print the kept run's re-marked mean IoU with the chosen windows and with the settling ones."""
    from mfact.core.pipeline import question
    homes = _remark.kept_homes(Path(keep).expanduser())
    chosen = [c[4] for c in _remark.remark_cells(answers, homes)]
    original = question.local_evidence
    question.local_evidence = settling_chooser(answers, among)
    try:
        settled = [c[4] for c in _remark.remark_cells(answers, homes)]
    finally:
        question.local_evidence = original
    print(f"windows_remark_mean: {statistics.fmean(chosen):.4f}" if chosen else "windows_remark_mean: none")
    print(f"windows_ceiling_mean: {statistics.fmean(settled):.4f}" if settled else "windows_ceiling_mean: none")


def _share(n: int, d: int) -> str:
    return f"{n / d:.2f}" if d else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    _remark.add_data_args(ap)
    ap.add_argument("--keep", help="a kept `bench/mushroom.py --half all --keep DIR` run: also print the "
                    "re-marked IoU with the chosen and with the settling windows")
    ap.add_argument("--among", type=int, default=0, metavar="N",
                    help="with --keep: the settling window of the chooser's first N windows (default: all)")
    args = ap.parse_args(argv)
    loaded = _remark.load(args)
    if loaded is None:
        return 2
    answers = loaded[1]
    why = _remark.set_constants(args.set)
    if why:
        print(why, file=sys.stderr)
        return 2
    _mushroom.select(answers, args.half, 0)
    print("| lang | setting | sentences | settled | top3 | right said: chosen / settling / all "
          "| wrong said: chosen / settling / all |")
    print("|---|---|---:|---:|---:|---|---|")
    settled, top3 = [], []
    for setting in SETTINGS:
        for lang in sorted(answers):
            rows = [a for a in answers[lang] if setting in a.evidence]
            if not rows:
                continue
            cell = Cell()
            for a in rows:
                measure(a, setting, cell)
            r, w = cell.right, cell.wrong
            print(f"| {lang} | {setting} | {cell.sentences} | {_share(cell.settled, cell.decided)} "
                  f"| {_share(cell.top3, cell.decided)} "
                  f"| {_share(r[1], r[0])} / {_share(r[2], r[0])} / {_share(r[3], r[0])} "
                  f"| {_share(w[1], w[0])} / {_share(w[2], w[0])} / {_share(w[3], w[0])} |")
            if cell.decided:
                settled.append(cell.settled / cell.decided)
                top3.append(cell.top3 / cell.decided)
    if not settled:
        print(f"no answer of the {args.half} half with evidence", file=sys.stderr)
        return 1
    print(f"windows_settled_mean: {statistics.fmean(settled):.3f}")
    print(f"windows_top3_mean: {statistics.fmean(top3):.3f}")
    if args.keep:
        ceiling(answers, args.keep, args.among)
    return 0


if __name__ == "__main__":
    sys.exit(main())
