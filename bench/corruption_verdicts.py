"""The default verifier's verdicts on the detector's corruption dev set: recall per error kind and
kept sentences judged S (issue 21's target row), next to the slot checks' own share.

    python bench/corruption_verdicts.py [--articles PICKLE | --wiki DIR --silver DIR] [--per-lang 70] [--extra 10]
        [--verifiers offline,lite]

The articles: `--articles PICKLE`, else one built from `--wiki DIR` (the `wiki_references*.csv` files
of WorldHellow/mHallucinations-LLM `datasets/hallucination_evaluation/`, as the shipped detector was
trained; with the bundled leads, less the articles of the mFAVA silver files in `--silver DIR`) and
kept in mfact's cache dir, else the newest pickle there.

The dev set is the one `python -m mfact.core.training.train_detector --table` scores the detector on
(the same seed, articles and order; its XNLI rows left out): held-out articles of every language
(`is_dev_article`, never trained on) and the never-trained languages, `--per-lang` examples per
language, every kind in turn (kept, clause, entity, relation, contradiction, invented, unverifiable),
then `--extra` supported variants per language (kind `paraphrase`); kept sentences, clauses of them
and supported variants have nothing wrong. With `--xnli N`, held-out XNLI pairs (a hypothesis
against its premise, in the same language or, `xnli-x`, another; an entailed one with a swapped name
or number: `-entity`) and, with `--extra`, premises against their translation into another
language (`xnli-p`; with a swapped name or number: `xnli-p-entity`): the cross-lingual examples.

Each example's sentence is one fact read in its sentence (as `mfact run` reads a fact that is a
whole sentence), the article's title the entity, its evidence windows one passage in the evidence's
language. A kind with inserted errors counts as caught when the verdict is not S: NS ("marked" too
when one of the verdict's marks overlaps an inserted span), or IR (a sentence of another article
that starts with another name is about someone else, which is what it is). Kept sentences, clauses
and supported variants count as right when S. The detector's table reports the words the detector
alone flags; this bench reports the verdicts the user sees: the detector, the feature model and the
slot checks together.

The last line is `corruption_verdict_min_recall: X` (the lowest recall over the error kinds, %, of
the first verifier).
"""
from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections import defaultdict
from pathlib import Path

from mfact.core.checking import build_verifier
from mfact.core.config import Config
from mfact.core.protocols import FactContext
from mfact.core.session import Evidence
from mfact.core.training import detector_data as dd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import articles_pickle, build_articles  # noqa: E402

ERROR_KINDS = ("entity", "relation", "contradiction", "invented", "unverifiable")
GOOD_KINDS = ("kept", "clause", "paraphrase")
BATCH = 16


XNLI = Path(__file__).resolve().parents[2] / "shared" / "data" / "xnli-dev"


def dev_examples(pickle_path: Path, per_lang: int, extra: int, xnli_n: int = 0,
                 xnli_dir: Path = XNLI, extensions: bool = False) -> list[dd.Example]:
    arts, _rep = pickle.loads(pickle_path.read_bytes())
    _train, dev_a = dd.split_articles(arts)
    rows = dd.load_xnli_rows(xnli_dir, heldout=True) if xnli_n and xnli_dir.is_dir() else []
    return dd.dev_set(dev_a, dd.Pools.build(dev_a), per_lang=per_lang,
                      extras=dd.DevExtras(xnli_rows=rows, xnli_n=xnli_n if rows else 0, extra=extra,
                                          extensions=extensions))


def kind_of(ex: dd.Example) -> str:
    """The row an example counts in: its kind; an XNLI kind split by whether anything is wrong."""
    if ex.kind in GOOD_KINDS or ex.kind in ERROR_KINDS:
        return ex.kind
    return f"{ex.kind}: {'error' if ex.spans else 'supported'}"


def _item(ex: dd.Example, k: int) -> tuple[str, str, str, list[Evidence]]:
    ev = Evidence(id=f"dev-{k}", source="corruption-dev", lang=ex.ev_lang, title=ex.article,
                  text=" ".join(ex.evidence))
    return ex.sentence, ex.article, ex.lang, [ev]


def judge(verifier_name: str, examples: list[dd.Example]) -> tuple[list, float]:
    """The verdict of each example (in order) and the seconds it took."""
    cfg = Config()
    cfg.checking.verifier = verifier_name
    v = build_verifier(cfg)
    if hasattr(v, "load"):
        v.load()
    out = []
    t0 = time.perf_counter()
    for s in range(0, len(examples), BATCH):
        chunk = examples[s:s + BATCH]
        items = [_item(ex, s + j) for j, ex in enumerate(chunk)]
        ctx = [FactContext(ex.sentence, 0, len(ex.sentence)) for ex in chunk]
        out.extend(v.verify_batch(items, contexts=ctx) if v.uses_context else v.verify_batch(items))
    return out, time.perf_counter() - t0


def _overlaps(marks, spans) -> bool:
    return any(a < d and c < b for a, b in marks for c, d in spans)


def tally(examples: list[dd.Example], verdicts: list) -> dict:
    """Per kind: n, right (NS for an error kind, S for a good one), marked (NS with a mark on an
    inserted span), by_slots (NS from a slot conflict); per language the same for errors and goods."""
    kinds: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    langs: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for ex, v in zip(examples, verdicts):
        bad = bool(ex.spans)
        right = (v.label != "S") if bad else (v.label == "S")
        row = kinds[kind_of(ex)]
        row["bad"] = bad
        row["n"] += 1
        row["right"] += right
        row["marked"] += bool(bad and v.label == "NS" and _overlaps(v.marks or [], ex.spans))
        row["by_slots"] += bool(v.label == "NS" and (v.reason or "").startswith("slot conflict"))
        row["ir"] += v.label == "IR"
        side = "err" if bad else "good"
        for key in ("xnli" if ex.kind.startswith("xnli") else ex.lang,
                    "cross-lingual" if ex.lang != ex.ev_lang else "same language"):
            langs[key][f"{side}_n"] += 1
            langs[key][f"{side}_right"] += right
    return {"kinds": kinds, "langs": langs}


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.0f}%" if b else "-"


def report(names: list[str], tallies: list[dict]) -> float:
    heads = " | ".join(f"{n}: right (marked, by slots, IR)" for n in names)
    print(f"| kind | examples | {heads} |")
    print("|---|---|" + "---|" * len(names))
    order = [k for k in GOOD_KINDS + ERROR_KINDS if k in tallies[0]["kinds"]]
    order += sorted(k for k in tallies[0]["kinds"] if k not in order)
    for kind in order:
        rows = [t["kinds"].get(kind) for t in tallies]
        cells = []
        for r in rows:
            extra = (f" ({_pct(r['marked'], r['n'])}, {_pct(r['by_slots'], r['n'])}, {_pct(r['ir'], r['n'])})"
                     if r["bad"] else f" (NS by slots {r['by_slots']}, IR {r['ir']})")
            cells.append(_pct(r["right"], r["n"]) + extra)
        what = " (caught)" if rows[0]["bad"] else " (judged S)"
        print(f"| {kind}{what} | {rows[0]['n']} | " + " | ".join(cells) + " |")
    print()
    print(f"| language | errors | caught: {' / '.join(names)} | good | judged S: {' / '.join(names)} |")
    print("|---|---|---|---|---|")
    for lang in sorted(tallies[0]["langs"], key=lambda x: (x in ("same language", "cross-lingual"), x)):
        r0 = tallies[0]["langs"][lang]
        caught = " / ".join(_pct(t["langs"][lang]["err_right"], t["langs"][lang]["err_n"]) for t in tallies)
        good = " / ".join(_pct(t["langs"][lang]["good_right"], t["langs"][lang]["good_n"]) for t in tallies)
        print(f"| {lang} | {r0['err_n']} | {caught} | {r0['good_n']} | {good} |")
    first = tallies[0]["kinds"]
    recalls = [100.0 * first[k]["right"] / first[k]["n"] for k in ERROR_KINDS if first.get(k) and first[k]["n"]]
    return min(recalls) if recalls else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--articles", default="", help="the articles pickle (default: the newest in the cache)")
    ap.add_argument("--wiki", default="", help="build the articles from the wiki_references*.csv files here")
    ap.add_argument("--silver", default="", help="with --wiki: the mFAVA silver files, whose articles are left out")
    ap.add_argument(
        "--per-lang", type=int, default=70, help="examples per language (as train_detector's --dev-per-lang)"
    )
    ap.add_argument("--extra", type=int, default=10, help="supported variants per language (as --dev-extra)")
    ap.add_argument("--xnli", type=int, default=200,
                    help="held-out XNLI items, as train_detector's --dev-xnli (with --extra: as many premises "
                         "against their translation); 0: none")
    ap.add_argument("--verifiers", default="offline", help="comma-separated verifiers, side by side")
    ap.add_argument("--extensions", action="store_true",
                    help="also --extra sentences a language with an unsupported clause appended (row 'extension')")
    ap.add_argument("--langs", default="", help="only these languages (comma-separated)")
    args = ap.parse_args(argv)
    path = build_articles(args.wiki, args.silver) if args.wiki and not args.articles else articles_pickle(args.articles)
    if path is None:
        return 2
    examples = dev_examples(path, args.per_lang, args.extra, args.xnli, extensions=args.extensions)
    if args.langs:
        keep = set(args.langs.split(","))
        examples = [ex for ex in examples if ex.lang in keep]
    names = [n.strip() for n in args.verifiers.split(",") if n.strip()]
    print(f"corruption dev set: {len(examples)} examples in {len({ex.lang for ex in examples})} languages "
          f"({sum(ex.lang != ex.ev_lang for ex in examples)} cross-lingual), articles {path.name}", file=sys.stderr)
    tallies = []
    for name in names:
        verdicts, secs = judge(name, examples)
        print(f"{name}: {len(verdicts)} verdicts in {secs:.0f} s ({len(verdicts) / max(secs, 1e-9):.1f} facts/s)",
              file=sys.stderr)
        tallies.append(tally(examples, verdicts))
    low = report(names, tallies)
    print(f"\ncorruption_verdict_min_recall: {low:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
