"""Family roles, nationality, age at death, births and deaths in the slot checks
(core/checking/slots/kinship.py, nationality.py, slots.py), measured on real Wikipedia articles.

    python bench/biography_slots.py [--articles PICKLE] [--max-per-lang 400] [--kinds family,nationality,age,life]

The articles are the detector's held-out development articles (the training data's articles pickle,
`python -m mfact.core.training.train_detector` builds it; only articles with `is_dev_article`, never
trained on). Every sentence that ties a name to the subject's family ("her husband, Pierre Curie"),
states the subject's nationality ("X was a Polish physicist"), age at death ("died at the age of
66"), or (`life`) a date or place that the slot checks read as the subject's birth or death, is a
claim:

- **kept**: the sentence as written, against the rest of its article (the sentence left out). The
  article does not contradict itself, so a conflict here is a false alarm;
- **swapped**: the kinship word swapped for its counterpart (father/mother, son/daughter,
  husband/wife, brother/sister, in the same grammatical form where the word list has it), the
  nationality word for another country's (same language, same place in its list of forms), the
  age for one 3 to 9 years off, the year of a birth or death date likewise, a birth or death place
  for one met in another article of the language, against the whole article (the original sentence
  in it; for ages, the age left out of it, so the dates decide) and against the rest of it.

Prints per check and language: the claims, the false alarms on kept sentences (of this check, and of
the other slot checks: a relative's dates taken for the subject's), the swapped claims caught. The
last line is `biography_slot_false_alarm_pct: X` (kept sentences with a family-role, nationality or
age conflict, %, all languages), after `life_slot_false_alarm_pct: X` (the same for births and
deaths, with `life` among the kinds).
"""
from __future__ import annotations

import argparse
import pickle
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

from mfact.core.checking.slots.kinship import kin_words, links, name_words
from mfact.core.checking.slots.nationality import _table, statements
from mfact.core.checking.text.textutil import data_json, fold_accents as _fold
from mfact.core.checking.slots.counts import counts
from mfact.core.checking.slots.check import check_slots
from mfact.core.checking.slots.values import relation_words
from mfact.core.checking.slots.read import text_values
from mfact.core.training.examples import is_dev_article

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import articles_pickle  # noqa: E402

PAIRS = (("father", "mother"), ("son", "daughter"), ("husband", "wife"), ("brother", "sister"))
KINDS = {"family": ("role", "person"), "nationality": ("nationality",), "age": ("age",), "life": ("date", "place"),
         "count": ("count",)}
NOISY = ("life", "count")       # checks reported apart from the biography slot false alarms


def kin_counterparts() -> dict[str, dict[str, str]]:
    """language -> {word form: the counterpart role's form at the same place in its list}."""
    out: dict[str, dict[str, str]] = {}
    for lang, roles in data_json("kinship.json").items():
        if lang.startswith("_"):
            continue
        for a, b in PAIRS:
            for x, y in zip(roles.get(a, []), roles.get(b, [])):
                out.setdefault(lang, {})[x] = y
                out.setdefault(lang, {})[y] = x
    return out


def nationality_swaps() -> dict[str, dict[str, list[str]]]:
    """language -> {folded form: the forms at the same place in the other countries' lists}."""
    data = {c: v for c, v in data_json("nationality.json").items() if not c.startswith("_")}
    out: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for code, langs in data.items():
        for lang, words in langs.items():
            for k, w in enumerate(words):
                out[lang][_fold(w)] = [o[lang][k] for c, o in data.items()
                                       if c != code and lang in o and len(o[lang]) > k and " " not in o[lang][k]]
    return out


def _swap(sentence: str, start: int, end: int, other: str) -> str:
    rep = other.capitalize() if sentence[start:start + 1].isupper() and not other[:1].isupper() else other
    return sentence[:start] + rep + sentence[end:]


def _conflict(rep, kind: str) -> bool:
    return any(c.fact_value.kind in KINDS[kind] for c in rep.conflicts)


def _claims(art, kind: str, sent: str) -> tuple[int, int] | None:
    """The span to swap in a sentence that makes a claim of this kind about the subject, or None."""
    subject = name_words(art.title)
    if kind == "family":
        mine = [
            lk
            for lk in links(sent, (art.lang,))
            if lk.marked and (not lk.owner or not (name_words(lk.owner) - subject))
        ]
        return mine[0].kin_span if mine else None
    if kind == "age":
        ages = [v for v in text_values(sent, art.lang, art.title).values if v.kind == "age"]
        return (ages[0].start, ages[0].end) if ages else None
    if kind == "count":
        found = counts(sent, art.lang)
        return (found[0].start, found[0].end) if found else None
    if kind == "life":
        life = [v for v in text_values(sent, art.lang, art.title).values
                if v.kind in ("date", "place") and v.rel in ("born", "died")]
        return (life[0].start, life[0].end) if life else None
    folded = {_fold(w) for w in art.title.replace("-", " ").split() if len(w) > 1}
    for st in statements(sent, (art.lang,)):
        words = {_fold(w) for w in st.subject.split()}
        if not st.subject or words & folded:
            return st.countries[0][1], st.countries[0][2]
    return None


def measure(arts, kind: str, max_per_lang: int, rng: random.Random, every: bool = False) -> dict[str, dict[str, int]]:
    kin_swap, nat_swap = kin_counterparts(), nationality_swaps()
    langs = (
        set(kin_words())
        if kind == "family"
        else set(relation_words()["born"])
        if kind == "life"
        else {k for k in data_json("number_words.json") if not k.startswith("_")} | {"zh", "yue"}
        if kind == "count"
        else set(_table()[0]) | {"ca", "cs", "ro"}
    )
    places: dict[str, list[str]] = defaultdict(list)      # birth and death places met so far, per language
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for art in arts:
        if art.lang not in langs or not (every or is_dev_article(art.lang, art.title)) \
                or rows[art.lang]["claims"] >= max_per_lang:
            continue
        whole = " ".join(art.sentences)
        for k, sent in enumerate(art.sentences):
            span = _claims(art, kind, sent)
            if span is None:
                continue
            row = rows[art.lang]
            rest = " ".join(art.sentences[:k] + art.sentences[k + 1:])
            row["claims"] += 1
            rep = check_slots(sent, art.lang, [(rest, art.lang)], art.title)
            mine = _conflict(rep, kind)
            row["false_alarms"] += mine
            row["other_slot_alarms"] += any(c.fact_value.kind not in KINDS[kind] for c in rep.conflicts)
            word = sent[span[0]:span[1]]
            if kind == "family":
                other = kin_swap.get(art.lang, {}).get(word.lower())
            elif kind == "age":
                other = str(int(word) + rng.choice([-1, 1]) * rng.randint(3, 9))
                whole = " ".join(art.sentences[:k] + [sent[:span[0]] + sent[span[1]:]] + art.sentences[k + 1:])
            elif kind == "life":
                other = _life_swap(word, places[art.lang], rng)
            elif kind == "count":
                other = _count_swap(word, art.lang, rng)
            else:
                options = nat_swap.get(art.lang, {}).get(_fold(word), [])
                other = rng.choice(options) if options else None
            if other is None:
                continue
            swapped = _swap(sent, *span, other)
            row["swapped"] += 1
            row["caught_whole"] += _conflict(check_slots(swapped, art.lang, [(whole, art.lang)], art.title), kind)
            whole = " ".join(art.sentences)
            row["caught_rest"] += _conflict(check_slots(swapped, art.lang, [(rest, art.lang)], art.title), kind)
    return rows


def _count_swap(word: str, lang: str, rng: random.Random) -> str | None:
    """Another number, 1 to 3 off (at least 2), written as the count was: digits, a Chinese numeral
    or the first word of the language's list."""
    found = counts(word + (" x" if lang not in ("zh", "yue") else "个人"), lang)
    n = found[0].n if found else None
    if n is None:
        return None
    m = max(2, n + rng.choice([-1, 1]) * rng.randint(1, 3))
    m = m + 1 if m == n else m
    if word.isdecimal():
        return str(m)
    if lang in ("zh", "yue"):
        return "两三四五六七八九"[m - 2] if m <= 9 else None
    forms = data_json("number_words.json").get(lang, {}).get(str(m))
    return forms[0] if forms else None


def _life_swap(word: str, places: list[str], rng: random.Random) -> str | None:
    """Another year (3 to 9 off) in a date, or a birth or death place met in another article."""
    years = list(re.finditer(r"\d{3,4}", word))
    if years:
        y = years[-1]
        return word[:y.start()] + str(int(y.group()) + rng.choice([-1, 1]) * rng.randint(3, 9)) + word[y.end():]
    others = [p for p in places if _fold(p) != _fold(word)]
    if len(places) < 200:
        places.append(word)
    return rng.choice(others) if others else None


def _pct(a: int, b: int) -> str:
    return f"{a} ({100.0 * a / max(1, b):.1f}%)"


def report(kind: str, rows: dict[str, dict[str, int]]) -> dict[str, int]:
    print(f"\n{kind}\n")
    print(
        "| lang | claims | false alarms: this check | other slot checks | swapped | caught (whole article)"
        " | caught (the rest) |"
    )
    print("|---|---|---|---|---|---|---|")
    tot: dict[str, int] = defaultdict(int)
    for lang in sorted(rows):
        r = rows[lang]
        for key, v in r.items():
            tot[key] += v
        print(f"| {lang} | {r['claims']} | {r['false_alarms']} | {r['other_slot_alarms']} | {r['swapped']} | "
              f"{r['caught_whole']} | {r['caught_rest']} |")
    print(f"| all | {tot['claims']} | {_pct(tot['false_alarms'], tot['claims'])} | "
          f"{_pct(tot['other_slot_alarms'], tot['claims'])} | {tot['swapped']} | "
          f"{_pct(tot['caught_whole'], tot['swapped'])} | {_pct(tot['caught_rest'], tot['swapped'])} |")
    return tot


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--articles", default="", help="the articles pickle (default: the newest in the cache)")
    ap.add_argument("--max-per-lang", type=int, default=400, help="claims per language and check at most")
    ap.add_argument("--all-articles", action="store_true",
                    help="the detector's training articles too (more claims; no rule here was fitted on them)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="the checks to measure (comma-separated)")
    args = ap.parse_args(argv)
    path = articles_pickle(args.articles)
    if path is None:
        return 2
    arts, _rep = pickle.loads(path.read_bytes())
    claims = alarms = 0
    life = ""
    for kind in [k for k in args.kinds.split(",") if k in KINDS]:
        tot = report(kind, measure(arts, kind, args.max_per_lang, random.Random(7), args.all_articles))
        if kind in NOISY:           # checks of their own, far noisier: reported apart
            life += f"{kind}_slot_false_alarm_pct: {100.0 * tot['false_alarms'] / max(1, tot['claims']):.2f}\n"
            continue
        claims += tot["claims"]
        alarms += tot["false_alarms"]
    print("\n" + life if life else "", end="\n" if not life else "")
    print(f"biography_slot_false_alarm_pct: {100.0 * alarms / max(1, claims):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
