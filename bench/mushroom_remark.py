"""Mu-SHROOM validation, re-marked: the facts and verdicts of a kept `bench/mushroom.py` run marked
again by the answer marks as the code now has them, in seconds instead of a fresh run of the whole
pipeline. For choosing the answer marks' constants on the tuning half:

    python bench/mushroom.py --half all --keep DIR          # once: runs mfact, keeps each setting's home
    python bench/mushroom_remark.py --keep DIR [--half tuning|reported|all] [--set NAME=VALUE ...]

`--set GAP_WORDS=3` (repeatable) sets a constant of `core/checking/verify/answer.py` for this run
only (its upper-case int and float constants: PREFIX, FUZZY, GAP_WORDS, GAP_CHARS, VALUE_FRAME,
WINDOW_SENTENCES, WINDOWS, ...). Data as bench/mushroom.py reads it (`--data DIR`, else
`$MFACT_MUSHROOM`).

Method: each stored session (the answer's facts, their sentences, the verdicts the run gave them) is
read from the kept home's SQLite store; every fact that is not IR and not the wrong person is marked
again by `answer_verdict` (`core/pipeline/question.py`), the AnsweringVerifier's own decision: at the
words that the evidence window of its sentence and the question do not say, less the question's
words, carried to whole names. The evidence is split into passages as the run split it (the given
passages of `core/knowledge/given.py`). What the store does not keep is the verifier's own verdict
before the answer marks: for a fact that was marked at its unsaid words, p(not supported) comes
back from the confidence (0.5 + p/2), and where the new marks are empty it is NS (the whole fact
less the question's words) above 0.5, else S. So the re-marked figure of unchanged code is close to
the stored one, not equal: the table prints both, and a constant is judged by the re-marked figures
with and without it. Scores as bench/mushroom.py: the task's character IoU, per language and
setting, beside the median team.

The last lines are `remark_stored_mean: X`, `remark_mean: X` and `remark_below_median: N` (cells
below the median team with the re-marked marks) for the chosen half.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import statistics
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("mushroom_bench_main", _HERE / "mushroom.py")
assert _spec is not None and _spec.loader is not None
_mushroom = importlib.util.module_from_spec(_spec)
sys.modules["mushroom_bench_main"] = _mushroom
_spec.loader.exec_module(_mushroom)

SETTINGS = ("pages", "context")


def set_constants(pairs: list[str]) -> str:
    """Apply NAME=VALUE to the answer marks' module; '' when done, else the message that says why not."""
    from mfact.core.checking.verify import answer
    for pair in pairs:
        name, _, raw = pair.partition("=")
        name = name.strip()
        old = getattr(answer, name, None)
        if not name.isupper() or type(old) not in (int, float):
            names = sorted(k for k, v in vars(answer).items() if k.isupper() and type(v) in (int, float))
            return f"--set {pair!r}: not a constant of the answer marks; one of: {', '.join(names)}"
        try:
            setattr(answer, name, type(old)(raw))
        except ValueError:
            return f"--set {pair!r}: {name} is {type(old).__name__}, {raw!r} is not"
    for fn in (answer._said_words, answer._windows, answer._lowered):
        fn.cache_clear()
    return ""


def sessions_of(home: Path) -> dict:
    """answer id -> its stored session, from a kept setting's MFACT_HOME."""
    from mfact.core.store import Store
    store = Store(home / "data" / "sessions.sqlite3")
    try:
        out = {}
        for summary in store.list_sessions():
            s = store.get_session(summary.id)
            out[s.name or s.id] = s
        return out
    finally:
        store.close()


def given_evidence(text: str) -> list[str]:
    """The passages a run made of an answer's evidence (the bench gives it as one titled passage)."""
    from mfact.core.knowledge.given import GivenRetriever
    return [e.text for e in GivenRetriever([{"title": "evidence", "text": text}]).evidence]


def remark(session, question: str, lang: str, evidence: list[str]) -> None:
    """Mark the session's facts again with the answer marks (in place), by the AnsweringVerifier's
    own decision (`question.answer_verdict`) from the verifier's verdict as far as the store keeps it."""
    from mfact.core.pipeline import question as q
    from mfact.core.pipeline.text import fact_contexts

    contexts = fact_contexts(session.text, lang, [f.span for f in session.facts])
    for f, c in zip(session.facts, contexts):
        v = f.auto
        if v is None or v.label == "IR" or v.reason == q.WRONG_PERSON:
            continue
        was_unsaid = (v.reason or "").startswith(q.UNSAID)
        if was_unsaid:      # the verifier's p(not supported) read back from the confidence (0.5 + p/2)
            p_ns = 2 * v.confidence - 1
            v = dataclasses.replace(v, label="NS" if p_ns > 0.5 else "S", confidence=max(p_ns, 1 - p_ns),
                                    marks=[], reason="")
        new = q.answer_verdict(v, f.text, lang, question, c.sentence if c is not None else "", evidence)
        if was_unsaid and new.label == "NS" and not new.marks:      # every word the question's: S
            new = dataclasses.replace(new, label="S")
        f.auto = new


def spans(session) -> list[tuple[int, int]]:
    from mfact.core.formats import session_to_spans
    return [(a, b) for a, b, _lab, _p in session_to_spans(session)["spans"]]


def add_data_args(ap: argparse.ArgumentParser) -> None:
    """The options of the data, the half and the answer marks' constants (this bench and
    bench/mushroom_windows.py)."""
    ap.add_argument("--data", help=f"the data folder (default: ${_mushroom.ENV})")
    ap.add_argument("--half", choices=("tuning", "reported", "all"), default="tuning")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="a constant of core/checking/verify/answer.py for this run")


def load(args: argparse.Namespace) -> tuple[Path, dict] | None:
    """The data folder and its answers, None (and where the data comes from, on stderr) when there are none."""
    folder = _mushroom.data_dir(args.data)
    answers = _mushroom.load_answers(folder, list(_mushroom.LANGS)) if folder is not None else {}
    if folder is None or not answers:
        print(_mushroom.missing_message(folder), file=sys.stderr)
        return None
    return folder, answers


def kept_homes(keep: Path) -> dict[str, Path]:
    """Each setting's MFACT_HOME of a kept run (those that hold a store)."""
    return {s: keep / s / "home" for s in SETTINGS if (keep / s / "home" / "data" / "sessions.sqlite3").is_file()}


def remark_cells(answers: dict, homes: dict[str, Path]) -> list[tuple[str, str, int, float, float]]:
    """Per setting and language of the kept run: (setting, lang, answers, stored IoU, re-marked IoU)."""
    out = []
    for setting, home in homes.items():
        sessions = sessions_of(home)
        for lang in sorted(answers):
            rows = [a for a in answers[lang] if setting in a.evidence and a.id in sessions]
            if not rows:
                continue
            old, new = [], []
            for a in rows:
                s = sessions[a.id]
                old.append(_mushroom.iou(a.hard, spans(s)))
                remark(s, a.question, lang, given_evidence(a.evidence[setting]))
                new.append(_mushroom.iou(a.hard, spans(s)))
            out.append((setting, lang, len(rows), statistics.fmean(old), statistics.fmean(new)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", required=True, help="the folder a `bench/mushroom.py --keep DIR` run kept")
    add_data_args(ap)
    args = ap.parse_args(argv)
    loaded = load(args)
    if loaded is None:
        return 2
    folder, answers = loaded
    keep = Path(args.keep).expanduser()
    homes = kept_homes(keep)
    if not homes:
        print(f"no kept run in {keep}: run `python bench/mushroom.py --half all --keep {keep}` first "
              "(it keeps <setting>/home/ with the sessions' store)", file=sys.stderr)
        return 2
    why = set_constants(args.set)
    if why:
        print(why, file=sys.stderr)
        return 2
    _mushroom.select(answers, args.half, 0)
    teams = _mushroom.team_figures(folder)
    print("| lang | setting | answers | stored IoU | re-marked IoU | median team |")
    print("|---|---|---:|---:|---:|---:|")
    cells = remark_cells(answers, homes)
    if not cells:
        print(f"no answer of the {args.half} half in the kept run {keep}", file=sys.stderr)
        return 1
    below = 0
    for setting, lang, n, o, new in cells:
        median = teams[lang].median_iou if lang in teams else float("nan")
        print(f"| {lang} | {setting} | {n} | {o:.3f} | {new:.3f} | {median:.3f} |")
        below += new < median
    print(f"remark_stored_mean: {statistics.fmean(c[3] for c in cells):.4f}")
    print(f"remark_mean: {statistics.fmean(c[4] for c in cells):.4f}")
    print(f"remark_below_median: {below}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
