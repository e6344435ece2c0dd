"""Words run together (core/checking/slots/glued.py), measured on real Wikipedia articles.

    python bench/glued_words.py [--articles PICKLE] [--per-lang 60] [--all-articles]

The articles are the detector's held-out development articles (as bench/biography_slots.py reads
them). Every sentence is checked against the rest of its article (the sentence left out):

- **kept**: the sentence as written. A correct text has no glued word, so an alarm is a false one
  (or a glue in the article's own text: "zenVersailles");
- **glued**: one word of it run together with another, each shape the check knows where the sentence
  has a word for it: a year with one 1-9 years off ("19341937"), a capitalised word that the rest of
  the article has with a capitalised word of another article ("ParisLyon"), a word with its
  counterpart ("bornedied"), a lowercase word of 5+ letters that the rest of the article has with
  another of them. Caught = the glued word is among the marks.

Prints per language: sentences, alarms, and per shape glues made / caught. The last line is
`glued_false_alarm_per_10k: X` (alarms per 10,000 kept sentences, all languages).

The articles hold no Arabic or Russian. Where `../shared/data/xnli-dev` is beside the checkout
(`--xnli DIR` otherwise; `--xnli ''` skips it), the XNLI dev sentences of each language (premises and
hypotheses, human-translated text) are checked the same way in blocks of 60, each against the other
59: alarms per language and `xnli_false_alarm_per_10k: X` before the last line.
"""
from __future__ import annotations

import argparse
import pickle
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

from mfact.core.checking.slots.counterparts import counterparts
from mfact.core.checking.slots.glued import COMPOUNDING, glued_words
from mfact.core.training.examples import is_dev_article
from mfact.core.training.train_verifier import load_xnli

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import articles_pickle  # noqa: E402

SHAPES = ("year", "capital", "counterpart", "lower")
_WORD = re.compile(r"\w+")


def _candidates(sentence: str, rest_words: set[str], lang: str, pools: dict[str, list[str]],
                rng: random.Random) -> dict[str, tuple[int, int, str]]:
    """Per shape, one word of `sentence` and what to glue after it: (start, end, glued word)."""
    out: dict[str, tuple[int, int, str]] = {}
    table = counterparts(lang)
    words = list(_WORD.finditer(sentence))
    rng.shuffle(words)
    for m in words:
        w = m.group()
        if "year" not in out and w.isdigit() and len(w) == 4 and 1000 <= int(w) <= 2100:
            out["year"] = (m.start(), m.end(), w + str(int(w) + rng.randint(1, 9)))
        elif ("capital" not in out and m.start() > 0 and w[0].isupper() and w[1:].islower() and len(w) >= 3
              and w in rest_words and pools["capital"]):
            out["capital"] = (m.start(), m.end(), w + rng.choice(pools["capital"]))
        elif "counterpart" not in out and w in table:
            out["counterpart"] = (m.start(), m.end(), w + table[w])
        elif ("lower" not in out and lang not in COMPOUNDING and w.isalpha() and w.islower() and len(w) >= 5
              and w in rest_words):
            other = [x for x in rest_words if x.isalpha() and x.islower() and len(x) >= 5 and x != w]
            if other:
                out["lower"] = (m.start(), m.end(), w + rng.choice(sorted(other)))
    return out


def measure(arts, per_lang: int, rng: random.Random, every: bool) -> dict[str, dict[str, int]]:
    by_lang = defaultdict(list)
    for a in arts:
        if every or is_dev_article(a.lang, a.title):
            by_lang[a.lang].append(a)
    rows: dict[str, dict[str, int]] = {}
    for lang, group in sorted(by_lang.items()):
        pools = {"capital": sorted({w for a in group[:200] for s in a.sentences for w in _WORD.findall(s)
                                    if len(w) >= 4 and w[0].isupper() and w[1:].islower()})}
        row: dict[str, int] = defaultdict(int)
        for a in rng.sample(group, min(per_lang, len(group))):
            for i, s in enumerate(a.sentences):
                rest = " ".join(a.sentences[:i] + a.sentences[i + 1:])
                row["sentences"] += 1
                row["alarms"] += bool(glued_words(s, lang, [rest]))
                rest_words = set(_WORD.findall(rest))
                for shape, (x, y, glued) in _candidates(s, rest_words, lang, pools, rng).items():
                    fact = s[:x] + glued + s[y:]
                    row[f"{shape}_made"] += 1
                    row[f"{shape}_caught"] += any(a0 <= x < b0 for a0, b0 in glued_words(fact, lang, [rest]))
        rows[lang] = dict(row)
    return rows


XNLI = Path(__file__).resolve().parents[2] / "shared" / "data" / "xnli-dev"
XNLI_BLOCK = 60


def measure_xnli(folder: Path) -> dict[str, tuple[int, int, list[str]]]:
    """Per XNLI language: sentences, sentences with an alarm, and the first words alarmed."""
    out: dict[str, tuple[int, int, list[str]]] = {}
    for path in sorted(folder.glob("dev-*.tsv")):
        lang = path.stem.removeprefix("dev-")
        rows = load_xnli(folder, lang)
        sents = sorted({r["evidence"] for r in rows}) + sorted({r["claim"] for r in rows})
        alarms, words = 0, []
        for k in range(0, len(sents), XNLI_BLOCK):
            block = sents[k:k + XNLI_BLOCK]
            for j, s in enumerate(block):
                found = glued_words(s, lang, ["\n".join(block[:j] + block[j + 1:])])
                alarms += bool(found)
                words += [s[a:b] for a, b in found]
        out[lang] = (len(sents), alarms, words)
    return out


def report_xnli(rows: dict[str, tuple[int, int, list[str]]]) -> float:
    print(f"\nXNLI dev, blocks of {XNLI_BLOCK} sentences\n{'lang':5} {'sentences':>9} {'alarms':>6}  words")
    for lang, (n, alarms, words) in rows.items():
        print(f"{lang:5} {n:9d} {alarms:6d}  {', '.join(words[:6])}")
    n = sum(r[0] for r in rows.values())
    return 1e4 * sum(r[1] for r in rows.values()) / max(1, n)


def report(rows: dict[str, dict[str, int]]) -> float:
    head = f"{'lang':5} {'sentences':>9} {'alarms':>6} " + " ".join(f"{s + ' caught':>20}" for s in SHAPES)
    print(head)
    tot: dict[str, int] = defaultdict(int)
    for lang, row in rows.items():
        cells = []
        for s in SHAPES:
            made, caught = row.get(f"{s}_made", 0), row.get(f"{s}_caught", 0)
            cells.append(f"{caught}/{made}" + (f" ({100 * caught / made:.0f}%)" if made else ""))
        print(f"{lang:5} {row['sentences']:9d} {row['alarms']:6d} " + " ".join(f"{c:>20}" for c in cells))
        for k, v in row.items():
            tot[k] += v
    cells = [f"{tot[f'{s}_caught']}/{tot[f'{s}_made']}" for s in SHAPES]
    print(f"{'all':5} {tot['sentences']:9d} {tot['alarms']:6d} " + " ".join(f"{c:>20}" for c in cells))
    return 1e4 * tot["alarms"] / max(1, tot["sentences"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--articles", default="", help="the articles pickle (default: the newest in the cache)")
    ap.add_argument("--per-lang", type=int, default=60, help="articles per language")
    ap.add_argument("--all-articles", action="store_true", help="the detector's training articles too")
    ap.add_argument("--xnli", default=str(XNLI), help="XNLI dev folder (dev-<lang>.tsv); '' skips it")
    args = ap.parse_args(argv)
    path = articles_pickle(args.articles)
    if path is None:
        return 2
    arts, _rep = pickle.loads(path.read_bytes())
    per_10k = report(measure(arts, args.per_lang, random.Random(7), args.all_articles))
    if args.xnli and Path(args.xnli).is_dir():
        print(f"xnli_false_alarm_per_10k: {report_xnli(measure_xnli(Path(args.xnli))):.1f}")
    print(f"glued_false_alarm_per_10k: {per_10k:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
