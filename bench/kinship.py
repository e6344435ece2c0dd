"""Family roles in the slot checks (core/checking/kinship.py), measured on real Wikipedia articles.

    python bench/kinship.py [--articles PICKLE] [--max-per-lang 400]

The articles are the detector's held-out development articles (the training data's articles pickle,
`python -m mfact.core.training.train_detector` builds it; only articles with `is_dev_article`, never
trained on). Every sentence in which a kinship word ties a name to the article's subject is a claim:

- **kept**: the sentence as written, against the rest of its article (the sentence left out). The
  article does not contradict itself, so a conflict here is a false alarm;
- **swapped**: the kinship word swapped for its counterpart (father/mother, son/daughter,
  husband/wife, brother/sister, in the same grammatical form where the word list has it), against
  the whole article (the original sentence in it) and against the rest of it.

Prints per language: the claims, the false alarms on kept sentences, the swapped claims caught. The
last line is `kin_false_alarm_pct: X` (kept sentences with a conflict, %, all languages).
"""
from __future__ import annotations

import argparse
import pickle
import sys
from collections import defaultdict
from pathlib import Path

from mfact.core.checking.kinship import kin_words, links, name_words
from mfact.core.checking.slots import check_slots
from mfact.core.training.detector_data import is_dev_article

PAIRS = (("father", "mother"), ("son", "daughter"), ("husband", "wife"), ("brother", "sister"))


def counterparts() -> dict[str, dict[str, str]]:
    """language -> {word form: the counterpart role's form at the same place in its list}."""
    import json
    from importlib import resources
    data = json.loads(resources.files("mfact.core").joinpath("checking", "data", "kinship.json").read_text("utf-8"))
    out: dict[str, dict[str, str]] = {}
    for lang, roles in data.items():
        if lang.startswith("_"):
            continue
        for a, b in PAIRS:
            wa, wb = roles.get(a, []), roles.get(b, [])
            for x, y in zip(wa, wb):
                out.setdefault(lang, {})[x] = y
                out.setdefault(lang, {})[y] = x
    return out


def _kin(rep) -> bool:
    return any(c.fact_value.kind in ("role", "person") for c in rep.conflicts)


def _swap(sentence: str, start: int, end: int, other: str) -> str:
    word = sentence[start:end]
    rep = other.capitalize() if word[:1].isupper() else other
    return sentence[:start] + rep + sentence[end:]


def main(argv: list[str] | None = None) -> int:
    from mfact.core.paths import cache_dir
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--articles", default="", help="the articles pickle (default: the newest in the cache)")
    ap.add_argument("--max-per-lang", type=int, default=400, help="claims per language at most")
    args = ap.parse_args(argv)
    path = Path(args.articles) if args.articles else max((cache_dir() / "detector").glob("articles-*.pkl"),
                                                        key=lambda p: p.stat().st_mtime, default=None)
    if path is None or not path.is_file():
        print("no articles pickle: build it with `python -m mfact.core.training.train_detector --articles FILE ...`",
              file=sys.stderr)
        return 2
    arts, _rep = pickle.loads(path.read_bytes())
    langs = set(kin_words())
    swaps = counterparts()
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    examples: list[str] = []
    for art in arts:
        if art.lang not in langs or not is_dev_article(art.lang, art.title):
            continue
        row = rows[art.lang]
        if row["claims"] >= args.max_per_lang:
            continue
        subject = name_words(art.title)
        whole = " ".join(art.sentences)
        for k, sent in enumerate(art.sentences):
            mine = [lk for lk in links(sent, (art.lang,)) if not lk.owner or not (name_words(lk.owner) - subject)]
            if not mine:
                continue
            rest = " ".join(art.sentences[:k] + art.sentences[k + 1:])
            row["claims"] += 1
            rep = check_slots(sent, art.lang, [(rest, art.lang)], art.title)
            kin = [c for c in rep.conflicts if c.fact_value.kind in ("role", "person")]
            row["other_slot_alarms"] += len(kin) < len(rep.conflicts)
            if kin:
                row["false_alarms"] += 1
                if len(examples) < 12:
                    examples.append(f"{art.lang} {art.title!r}: {sent[:160]!r} -- "
                                    + "; ".join(c.reason() for c in kin)[:160])
            lk = mine[0]
            word = sent[lk.kin_span[0]:lk.kin_span[1]].lower()
            other = swaps.get(art.lang, {}).get(word)
            if other is None:
                continue
            swapped = _swap(sent, *lk.kin_span, other)
            row["swapped"] += 1
            row["caught_whole"] += _kin(check_slots(swapped, art.lang, [(whole, art.lang)], art.title))
            row["caught_rest"] += _kin(check_slots(swapped, art.lang, [(rest, art.lang)], art.title))
    print("| lang | claims | false alarms: family roles | other slots | swapped | caught (whole article) | caught (the rest) |")
    print("|---|---|---|---|---|---|---|")
    tot: dict[str, int] = defaultdict(int)
    for lang in sorted(rows):
        r = rows[lang]
        for key, v in r.items():
            tot[key] += v
        print(f"| {lang} | {r['claims']} | {r['false_alarms']} | {r['other_slot_alarms']} | {r['swapped']} | "
              f"{r['caught_whole']} | {r['caught_rest']} |")
    pct = 100.0 * tot["false_alarms"] / max(1, tot["claims"])
    print(f"| all | {tot['claims']} | {tot['false_alarms']} ({pct:.1f}%) | {tot['other_slot_alarms']} "
          f"({100.0 * tot['other_slot_alarms'] / max(1, tot['claims']):.1f}%) | {tot['swapped']} | "
          f"{tot['caught_whole']} ({100.0 * tot['caught_whole'] / max(1, tot['swapped']):.1f}%) | "
          f"{tot['caught_rest']} ({100.0 * tot['caught_rest'] / max(1, tot['swapped']):.1f}%) |")
    if examples:
        print("\nfalse alarms (first 12):")
        for e in examples:
            print("  " + e)
    print(f"kin_false_alarm_pct: {pct:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
