"""Slot checks: the exact half of a verdict. Dates, years, numbers, ordinals and (for birth and death)
places are found in a fact and in its evidence, normalised, and compared when they fill the same slot.

- **Values.** Month names and number symbols come from CLDR through Babel, for every language mfact
  offers (`month_words`), so "22 mars 1867", "7. November 1867", "November 7, 1867", "7 de noviembre
  de 1867", "1867年11月7日" and "7 листопада 1867" all become (1867, 11, 7) or the like. Digits of
  every script are read as ASCII digits. Decades ("1890s", "années 1890") and ranges ("1867–1934")
  are understood.
- **Slots.** A value fills the slot of the relation word nearest to it in its clause (born, died,
  founded, married, won: `data/relations.json`), as "née le 7 novembre 1867 à Varsovie et morte le
  4 juillet 1934 à Passy" gives born = 1867-11-07, Varsovie and died = 1934-07-04, Passy. A date
  range in parentheses right after a name is (born, died).
- **Comparison.** A fact's value conflicts with the evidence when the evidence gives the same slot
  other values and none agrees (dates agree part by part: 1867 agrees with 7 November 1867; a day,
  month or year that differs is named and marked). Without a relation word, a value conflicts when
  the evidence never mentions it and the evidence sentence that best matches the rest of the fact
  holds another value of the same kind in its place. A value the evidence does not mention at all
  is "missing": no conflict, one more input to the verifier.
- **Places** are compared by name: the same after case and accent folding, a long common prefix
  ("Warschau"/"Warsaw"), or, given a multilingual embedder, names whose vectors agree
  ("Warsaw"/"Varsovie").

Everything is plain regular expressions and tables: a ~6 KB article is read in a few milliseconds,
and the values of a text are cached by text.
"""
from __future__ import annotations

import bisect
import functools
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from ..lexicon import gazetteer
from . import whose
from .crossnames import names_entity, other_script, same_name_word, sounds_like
from .counts import count_agreements, count_conflicts
from .kinship import function_words, kin_conflicts, links, mentions, name_words
from .nationality import PRONOUNS, nationality_conflicts
from .occupation import occupation_conflicts
from .stated import read as read_statements
from ..text.textutil import (HAN_LANGS, lowered, scripts_of, POSSESSIVES, SPACELESS, STOPWORDS, data_json, fold_accents, han_simplified, normalise_digits,
                       words_with_offsets)

RELATIONS = ("born", "died", "founded", "married", "won")
MANY = ("founded", "married", "won")      # relations a person may fill more than once

# Babel's locale names for mfact's language codes (several scripts where a language has them)
_BABEL = {"sr": ("sr", "sr_Latn"), "zh": ("zh", "zh_Hant"), "yue": ("yue",), "sd": ("sd",),
          "la": ("la",), "eo": ("eo",)}
_CJK_LANGS = {"zh", "ja", "ko", "yue"}


# --------------------------------------------------------------------------- CLDR tables


def _offered() -> list[str]:
    from ...languages import LANGUAGES
    return [lang.code for lang in LANGUAGES]


def _fold(word: str) -> str:
    return lowered(word).strip(".")


@functools.lru_cache(maxsize=None)
def _own_month_words(lang: str, min_len: int = 3) -> dict[str, int]:
    """Month names of one language (wide and abbreviated, format and stand-alone) from CLDR, of at
    least `min_len` characters (shorter abbreviations are too ambiguous to find dates by)."""
    base = _cldr_months().get(lang)
    if base is None:
        base = _read_cldr_months(lang)
    out: dict[str, int] = {}
    for w, m in base:
        if len(w) >= min_len:
            for form in {w, unicodedata.normalize("NFD", w), unicodedata.normalize("NFKC", w)}:
                out.setdefault(form, m)
    return out


def _read_cldr_months(lang: str) -> list[tuple[str, int]]:
    """A language's CLDR month names, folded, in Babel's order (a name may come twice), without
    the numeric ones (CJK "11月", Korean "11월": the CJK pattern reads those)."""
    try:
        from babel import Locale, UnknownLocaleError
        from babel.dates import get_month_names
    except ImportError:  # pragma: no cover - babel is a dependency
        return []
    out: list[tuple[str, int]] = []
    for loc in _BABEL.get(lang, (lang,)):
        try:
            Locale.parse(loc)
        except (UnknownLocaleError, ValueError):
            continue
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                try:
                    names = get_month_names(width, context=context, locale=loc)
                except (KeyError, ValueError, UnknownLocaleError):
                    continue
                for m, name in names.items():
                    w = _fold(str(name))
                    if w and not any(c.isdigit() for c in w):
                        out.append((w, int(m)))
    return out


@functools.lru_cache(maxsize=1)
def _cldr_months() -> dict[str, list[tuple[str, int]]]:
    """The month names of every offered language (and English), read from Babel once and kept in
    mfact's cache folder, named by Babel's version and the languages: reading ~40 locales' data
    took 0.6 s of every start that checks a fact (the rule extractor's date words import it), and
    held the interpreter lock that long in whatever thread imported it first (the TUI's keys
    waited). A cache that cannot be read or written is only slower."""
    import hashlib

    try:
        import babel
        version = babel.__version__
    except ImportError:  # pragma: no cover - babel is a dependency
        return {}
    langs = _offered() + ["en"]
    from ...paths import cached_json

    tag = hashlib.sha256(json.dumps([version, langs, sorted(_BABEL.items())]).encode()).hexdigest()[:12]
    got = cached_json(f"cldr-months-{tag}.json", lambda: {lang: _read_cldr_months(lang) for lang in dict.fromkeys(langs)},
                      valid=lambda v: _month_rows(v) is not None)
    return _month_rows(got) or {}


def _month_rows(got: object) -> dict[str, list[tuple[str, int]]] | None:
    """The month table as read from its JSON file, or None when the file holds something else."""
    if not isinstance(got, dict):
        return None
    try:
        return {lang: [(w, int(m)) for w, m in rows] for lang, rows in got.items()}
    except (TypeError, ValueError):
        return None


@functools.lru_cache(maxsize=1)
def all_month_names() -> frozenset[str]:
    """Every CLDR month name (any length, lower case) of every language mfact offers."""
    out: set[str] = set()
    for lang in _offered() + ["en"]:
        out |= set(_own_month_words(lang, 1))
    return frozenset(out)


def month_names_of(langs: Iterable[str]) -> frozenset[str]:
    """The CLDR month names (lower case) of the given languages."""
    return frozenset(w for lang in langs for w in _own_month_words(lang, 1))


@functools.lru_cache(maxsize=None)
def _all_month_words() -> dict[str, int]:
    """Month names of every offered language; a word that names different months in two languages
    is left out."""
    seen: dict[str, int] = {}
    bad: set[str] = set()
    for lang in _offered() + ["en"]:
        for w, m in _own_month_words(lang).items():
            if w in seen and seen[w] != m:
                bad.add(w)
            seen.setdefault(w, m)
    return {w: m for w, m in seen.items() if w not in bad}


@functools.lru_cache(maxsize=None)
def month_words(lang: str) -> dict[str, int]:
    """Month word -> month number for a text in `lang`: its own CLDR names first, then English, then
    those of every other language mfact offers (evidence may be in another language)."""
    table = dict(_all_month_words())
    table.update(_own_month_words("en"))
    table.update(_own_month_words(lang))
    return table


@functools.lru_cache(maxsize=None)
def _month_regex(lang: str) -> re.Pattern[str]:
    words = sorted(month_words(lang), key=len, reverse=True)
    alt = "|".join(re.escape(w) for w in words)
    return re.compile(r"(?<![\w])(" + alt + r")\.?(?![\w])", re.IGNORECASE)


@functools.lru_cache(maxsize=None)
def number_symbols(lang: str) -> tuple[str, str]:
    """(group, decimal) separators of `lang` from CLDR; English's when Babel has no such locale."""
    try:
        from babel.numbers import get_decimal_symbol, get_group_symbol
        loc = _BABEL.get(lang, (lang,))[0]
        return get_group_symbol(loc), get_decimal_symbol(loc)
    except Exception:  # noqa: BLE001 - unknown locale: English symbols
        return ",", "."


@functools.lru_cache(maxsize=1)
def relation_words() -> dict[str, dict[str, list[str]]]:
    data = data_json("relations.json")
    return {r: {lang: [w.lower() for w in ws] for lang, ws in data[r].items()} for r in RELATIONS}


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Value:
    """A typed value found in a text: its span, and what it means."""
    kind: str                      # "date" (a year alone too), "number", "ordinal", "place"; in a
                                   # family-role conflict "role" (a kinship word) or "person"; in a
                                   # nationality conflict "nationality"
    start: int
    end: int
    text: str
    year: int | None = None
    month: int | None = None
    day: int | None = None
    decade: bool = False
    num: float | None = None
    unit: str = ""                 # "%" for percentages
    rel: str | None = None         # the relation whose slot it fills
    parts: tuple[tuple[int, int, str], ...] = ()   # (start, end, "day"|"month"|"year") of a date
    holder: str = ""               # a life range's: the name right before it ("Pierre Curie (1859–1906)")
    alt: bool = False              # the same day in the other calendar, in brackets after the first
                                   # ("27 января [8 февраля] 1834": Julian, then Gregorian)
    qual: str = ""                 # a date said as a bound: "before" ("before 1867", "1867年以前") or "after"

    def show(self) -> str:
        return self.text


_NUM = r"\d+(?:[.,\u00a0\u202f ]\d{3})*(?:[.,]\d+)?"
_YEAR_RE = re.compile(r"(?<![\w.,])(\d{3,4})(?:\s?(?:s|'s|’s|er|-х|-e|-е|lar|ler|-an|an)|['’](?:lar|ler)\w*)?(?![\w%])")
_ISO_RE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_DMY_NUM_RE = re.compile(r"(?<![\d.])(\d{1,2})([./])(\d{1,2})\2(\d{4})(?!\d)")
_CJK_DATE_RE = re.compile(r"(\d{3,4})\s?[年년]\s?(?:(\d{1,2})\s?[月월]\s?(?:(\d{1,2})\s?[日일號号])?)?")
_CJK_MD_RE = re.compile(r"(?<!\d)(\d{1,2})\s?[月월]\s?(\d{1,2})\s?[日일號号]")
_DECADE_WORDS = re.compile(r"(?:années|años|anni|anos|jaren|jahre|decade of|década de)\s+(\d{3}0)(?!\d)",
                           re.IGNORECASE)
_ORDINAL_RE = re.compile(r"(?<![\w.])(\d{1,3})(?:st|nd|rd|th|e|er|re|ème|eme|º|ª|\.º|\.ª|-й|-я|-е|-го|-ми)(?![\w])")
_NUMBER_RE = re.compile(r"(?<![\w.,])(" + _NUM + r")(\s?%|\s?per ?cent|\s?pour ?cent|\s?por ciento|\s?Prozent)?(?![\w])")


def _year_ok(y: int) -> bool:
    return 100 <= y <= 2100


def _dates(text: str, lang: str, taken: list[tuple[int, int]]) -> list[Value]:
    """Every date of the text, the most specific patterns first; each claims its characters in
    `taken` so that a later pattern does not read them again."""
    out: list[Value] = []
    for finder in (_numeric_dates, _cjk_dates, _named_month_dates, _decades_and_years):
        for v in finder(text, lang, taken):
            out.append(v)
            taken.append((v.start, v.end))
    return out


def _numeric_dates(text: str, lang: str, taken: list[tuple[int, int]]) -> Iterable[Value]:
    for m in _ISO_RE.finditer(text):
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if _year_ok(y) and 1 <= mo <= 12 and 1 <= d <= 31 and not _overlaps(m.start(), m.end(), taken):
            yield Value("date", m.start(), m.end(), m.group(0), y, mo, d,
                        parts=((m.start(1), m.end(1), "year"), (m.start(2), m.end(2), "month"),
                               (m.start(3), m.end(3), "day")))
    for m in _DMY_NUM_RE.finditer(text):
        if _overlaps(m.start(), m.end(), taken):
            continue
        a, b, y = int(m.group(1)), int(m.group(3)), int(m.group(4))
        d, mo = (b, a) if lang == "en" and a <= 12 else (a, b)
        if _year_ok(y) and 1 <= mo <= 12 and 1 <= d <= 31:
            yield Value("date", m.start(), m.end(), m.group(0), y, mo, d,
                        parts=((m.start(4), m.end(4), "year"), (m.start(1), m.end(3), "day")))


def _cjk_dates(text: str, lang: str, taken: list[tuple[int, int]]) -> Iterable[Value]:
    found: list[tuple[int, int]] = []
    for m in _CJK_DATE_RE.finditer(text):
        if _overlaps(m.start(), m.end(), taken):
            continue
        y = int(m.group(1))
        mo = int(m.group(2)) if m.group(2) else None
        d = int(m.group(3)) if m.group(3) else None
        if _year_ok(y) and (mo is None or 1 <= mo <= 12):
            parts = [(m.start(1), m.end(1) + 1, "year")]
            if mo:
                parts.append((m.start(2), m.end(2) + 1, "month"))
            if d:
                parts.append((m.start(3), m.end(3) + 1, "day"))
            found.append((m.start(), m.end()))
            yield Value("date", m.start(), m.end(), m.group(0), y, mo, d, parts=tuple(parts))
    for m in _CJK_MD_RE.finditer(text):
        if not _overlaps(m.start(), m.end(), [*taken, *found]):
            mo, d = int(m.group(1)), int(m.group(2))
            if 1 <= mo <= 12 and 1 <= d <= 31:
                yield Value("date", m.start(), m.end(), m.group(0), None, mo, d,
                            parts=((m.start(1), m.end(1) + 1, "month"), (m.start(2), m.end(2) + 1, "day")))


_DAY_BEFORE = re.compile(r"(?<![\d.])(\d{1,2})(?:er|\.|º)?[\s,.\-]*(?:(?:de|of|the)\s+)?$")
_DAY_AFTER = re.compile(r"\s+(\d{1,2})(?:st|nd|rd|th)?(?!\d)")
_YEAR_AFTER = re.compile(r"[\s,.]*(?:(?:de|del|of|год|года|року|r\.|г\.)\s+)?(\d{3,4})(?!\d)")
# year, month, day: Hungarian "1881. március 25.", Lithuanian "1867 m. lapkričio 7 d."
_YEAR_FIRST = {"hu": re.compile(r"(?<![\d.])(\d{3,4})\.\s*$"), "lt": re.compile(r"(?<![\d.])(\d{3,4})\s*m\.\s*$")}


def _named_month_dates(text: str, lang: str, taken: list[tuple[int, int]]) -> Iterable[Value]:
    """day? month year? (either order), joined only by separators or connecting words."""
    table = month_words(lang)
    for m in _month_regex(lang).finditer(text):
        mo = table.get(_fold(m.group(1)))
        if mo is None or _overlaps(m.start(), m.end(), taken):
            continue
        s, e = m.start(), m.end()
        parts = [(s, e, "month")]
        day = year = None
        before = _DAY_BEFORE.search(text[max(0, s - 16):s])
        if before:                           # "7 novembre", "7. November", "7 de noviembre"
            ds = max(0, s - 16) + before.start(1)
            day = int(before.group(1))
            parts.append((ds, ds + len(before.group(1)), "day"))
            s = ds
        else:                                # "November 7"
            after = _DAY_AFTER.match(text[e:e + 8])
            if after and not re.match(r"\s+\d{3,}", text[e:e + 8]):
                day = int(after.group(1))
                parts.append((e + after.start(1), e + after.end(1), "day"))
                e = e + after.end()
        if day is not None and (pair := _dual_date(text, s, e, mo, day, parts, table)):
            yield from pair
            continue
        ym = _YEAR_AFTER.match(text[e:e + 14])
        if ym and _year_ok(int(ym.group(1))):
            year = int(ym.group(1))
            parts.append((e + ym.start(1), e + ym.end(1), "year"))
            e = e + ym.end(1)
        elif (lang in _YEAR_FIRST and not before and (yf := _YEAR_FIRST[lang].search(text[max(0, s - 10):s]))
              and _year_ok(int(yf.group(1)))):
            year = int(yf.group(1))
            s = max(0, s - 10) + yf.start(1)
            parts.append((s, s + len(yf.group(1)), "year"))
        if (day is None and year is None) or (day is not None and not 1 <= day <= 31):
            continue                         # a bare month word ("may", "mars") is not a date
        yield Value("date", s, e, text[s:e], year, mo, day, parts=tuple(sorted(parts)))


# the other calendar's day and month in brackets, before the year both share (Russian Wikipedia's
# dates before 1918: "27 января [8 февраля] 1834", "27 января (8 февраля) 1834")
_ALT_DAY_MONTH = re.compile(r"\s*[\[(](\d{1,2})\s+(\w+)\.?[\])]")


def _dual_date(text: str, s: int, e: int, mo: int, day: int, parts: list[tuple[int, int, str]],
               table: dict[str, int]) -> list[Value] | None:
    """"27 января [8 февраля] 1834" (the day and month [s, e) read): the date, and the bracketed one
    (`alt`) with the same year; None when no such bracket and year follow."""
    am = _ALT_DAY_MONTH.match(text, e)
    if not am or not 1 <= int(am.group(1)) <= 31:
        return None
    mo2 = table.get(_fold(am.group(2)))
    ym = _YEAR_AFTER.match(text[am.end():am.end() + 14])
    if mo2 is None or not ym or not _year_ok(int(ym.group(1))):
        return None
    year = int(ym.group(1))
    y0 = am.end() + ym.start(1)
    y = (y0, y0 + len(ym.group(1)), "year")
    alt_parts = ((am.start(1), am.end(1), "day"), (am.start(2), am.end(2), "month"), y)
    return [Value("date", s, y[1], text[s:y[1]], year, mo, day, parts=tuple(sorted([*parts, y]))),
            Value("date", am.start(1), am.end(2), text[am.start(1):am.end(2)], year, mo2, int(am.group(1)),
                  parts=alt_parts, alt=True)]


def _decades_and_years(text: str, lang: str, taken: list[tuple[int, int]]) -> Iterable[Value]:
    found: list[tuple[int, int]] = []
    for m in _DECADE_WORDS.finditer(text):
        y = int(m.group(1))
        if _year_ok(y) and not _overlaps(m.start(), m.end(), taken):
            found.append((m.start(), m.end()))
            yield Value("date", m.start(), m.end(), m.group(0), y, decade=True,
                        parts=((m.start(1), m.end(1), "year"),))
    for m in _YEAR_RE.finditer(text):
        if _overlaps(m.start(), m.end(), [*taken, *found]):
            continue
        y = int(m.group(1))
        if len(m.group(1)) == 3 and not m.group(0)[3:]:
            continue                         # "300": a number, not a year
        if not _year_ok(y) or (len(m.group(1)) == 4 and not 1000 <= y <= 2100):
            continue
        decade = len(m.group(0)) > len(m.group(1)) and y % 10 == 0
        end = m.end(1) if len(m.group(0)) > len(m.group(1)) and not decade else m.end()
        yield Value("date", m.start(), end, text[m.start():end], y, decade=decade,
                    parts=((m.start(1), m.end(1), "year"),))


def _overlaps(a: int, b: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(a < e and s < b for s, e in spans)


def _parse_number(s: str, lang: str) -> float | None:
    group, dec = number_symbols(lang)
    t = s.replace("\u00a0", " ").replace("\u202f", " ")
    if dec == ",":
        t = t.replace(".", "").replace(" ", "").replace(",", ".")
    else:
        t = t.replace(",", "").replace(" ", "")
    try:
        return float(t)
    except ValueError:
        return None


_AGE_LEADS = ("at the age of", "aged", "at age", "à l['’]âge de", "a la edad de", "a los", "im alter von", "mit",
              "all['’]età di", "aos", "com a idade de", "w wieku", "ve věku", "la vârsta de", "a l['’]edat de", "als",
              "op de leeftijd van")
_AGE_RE = re.compile(
    rf"(?:{'|'.join(_AGE_LEADS)})\s+(\d{{1,3}})"
    r"(?:\s+(?:ans|años|jahren|anni|anos|lat|let|de ani|ani|anys|jaar))?(?![\w%])", re.IGNORECASE)
_AGE_WORDS = frozenset(w for lead in _AGE_LEADS for w in re.findall(r"\w+", lead))     # the leads' words
_AGE_UNIT = re.compile(r"\s+(?:ans|años|jahren|anni|anos|lat|let|de ani|ani|anys)\b", re.IGNORECASE)
_AGE_NEEDS_UNIT = {"a los", "mit", "aos", "als"}     # "a los 66 años", "mit 66 Jahren": the unit says age


# ages written with the unit after the number, or in scripts without spaces: "в возрасте 82 лет",
# "61 yaşında", "عن عمر يناهز 94 عاما", "享年55岁", "향년 76세" (the number is group 1)
_AGE_AFTER_RE = re.compile(
    r"(?:(?:в возрасте|у віці)\s+(\d{1,3})\s+(?:лет|года|год|років|роки|рік)(?!\w)"
    r"|(?<![\d.,])(\d{1,3})\s*yaşında"
    r"|عن\s+(?:عمر\s+)?(?:يناهز\s+)?(\d{1,3})\s+(?:عاما|عامًا|عامٍ|عام|سنة)"
    r"|享年\s*(\d{1,3})\s*[岁歲]?|(?<!\d)(\d{1,3})\s*[岁歲](?:时|時|那年)"
    r"|향년\s*(\d{1,3})\s*세|(?<!\d)(\d{1,3})세\s*때)", re.IGNORECASE)     # not "비오 6세" (Pius VI)


def _age_matches(text: str, after: bool = True) -> list[tuple[re.Match, int]]:
    """Every age phrase of `text` with the group that holds its number (`after`: also those of
    `_AGE_AFTER_RE`)."""
    out = [(m, 1) for m in _AGE_RE.finditer(text)]
    if after:
        out += [(m, m.lastindex or 1) for m in _AGE_AFTER_RE.finditer(text)]     # one group an alternative
    return sorted(out, key=lambda mg: mg[0].start())


def _ages(text: str, taken: list[tuple[int, int]], after: bool = True) -> list[Value]:
    """"at the age of 66", "à l'âge de 66 ans", "im Alter von 66 Jahren", "в возрасте 82 лет",
    "61 yaşında", "享年55岁": an age (its slot, died or none, comes later)."""
    out = []
    for m, g in _age_matches(text, after):
        if m.re is _AGE_RE:
            lead = m.group(0)[:m.start(1) - m.start()].strip().lower()
            if lead in _AGE_NEEDS_UNIT and not _AGE_UNIT.match(text, m.end(1)):
                continue
        if _overlaps(m.start(g), m.end(g), taken):
            continue
        out.append(Value("age", m.start(g), m.end(g), m.group(g), num=float(m.group(g))))
        taken.append((m.start(), m.end()))      # "im Alter von 66 Jahren": no place, no number
    return out


def _numbers(text: str, lang: str, taken: list[tuple[int, int]]) -> list[Value]:
    out: list[Value] = []
    for m in _ORDINAL_RE.finditer(text):
        if not _overlaps(m.start(), m.end(), taken):
            out.append(Value("ordinal", m.start(), m.end(), m.group(0), num=float(m.group(1))))
            taken.append((m.start(), m.end()))
    for m in _NUMBER_RE.finditer(text):
        if _overlaps(m.start(), m.end(), taken):
            continue
        n = _parse_number(m.group(1), lang)
        if n is None:
            continue
        unit = "%" if m.group(2) else ""
        out.append(Value("number", m.start(), m.end(), m.group(0).strip(), num=n, unit=unit))
        taken.append((m.start(), m.end()))
    return out


# --------------------------------------------------------------------------- relations and places


_CLAUSE_MARKS = r"[;:!?。；！？؛]"
_COORDINATOR = r"\s(?:and|et|und|y|e|i|и|ve|và|dan|και)\s"
_CLAUSE_BREAK = re.compile(rf"{_CLAUSE_MARKS}|[,،]\s|{_COORDINATOR}|\)")
# a sentence's end: a period after a word or year of 4+ characters, before a word that is not lower
# case ("... عام 1988. ولد في ...", "in 1988. Born in ..."; not "1881. március 25.", "St. Petersburg")
_SENTENCE_END = re.compile(r"(?<=\w{4})\.\s+(?![a-zß-ÿа-яё\d])")


# a period after a short word ends a sentence too when a word no name holds follows ("Ève. She died")
_DOT_NEXT = re.compile(r"\.\s+([^\s.]+)")
_CAPITAL = re.compile(r"[A-ZÀ-ÖØ-ÞА-ЯЁ]")


def _dot_before_function_word(text: str, a: int = 0, b: int | None = None, capital: bool = False) -> int | None:
    """Where, in text[a:b], a period ends a sentence because the word after it is one no name holds
    ("Ève. She died"; "St. Louis" goes on); `capital`: only after a word character, before a capital."""
    for m in _DOT_NEXT.finditer(text, a, len(text) if b is None else b):
        word = m.group(1)
        if capital:
            word = re.split(r"[,;:]", word)[0]
            if not (m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")
                    and _CAPITAL.match(word)):
                continue
        if _fold(word) in STOPWORDS:
            return m.start()
    return None


def _breaks(text: str, a: int, b: int) -> bool:
    """Whether text[a:b], the words between a value and a relation word, leave the clause."""
    gap = text[a:b]
    return (bool(_CLAUSE_BREAK.search(gap)) and not gap.strip().startswith("(")) or \
        _SENTENCE_END.search(text, a, b) is not None or _dot_before_function_word(text, a, b, capital=True) is not None


def _keywords(lang: str, extra: Sequence[str] = ()) -> list[tuple[str, str]]:
    words = relation_words()
    langs = [lang, "en", *extra]
    out: list[tuple[str, str]] = []
    for rel in RELATIONS:
        for lg in dict.fromkeys(langs):
            out.extend((w, rel) for w in words[rel].get(lg, []))
    return out


# words that begin like a relation word and are none: Turkish "öldürdü" (killed), "öldürücü" (deadly);
# "öldürüldü" (was killed) is a death
_NOT_RELATION = {"tr": re.compile(r"öldür(?!ül)")}


def relations_in(text: str, lang: str) -> frozenset[str]:
    """The relations a text's words name ("born", "died" ...)."""
    return frozenset(rel for _s, _e, rel in _relation_hits(normalise_digits(text), lang))


def _relation_hits(text: str, lang: str, extra: Sequence[str] = ()) -> list[tuple[int, int, str]]:
    """(start, end, relation) of each relation word in the text."""
    hits: list[tuple[int, int, str]] = []
    low = text.lower()
    kws = _keywords(lang, extra)
    words = words_with_offsets(text)
    spaced = [(w, rel) for w, rel in kws if " " in w or not w.isalpha() or _nospace(w)]
    for w, rel in spaced:
        for m in re.finditer(re.escape(w), low):
            if _nospace(w) or ((m.start() == 0 or not low[m.start() - 1].isalnum())):
                hits.append((m.start(), m.end(), rel))
    single = [(w, rel) for w, rel in kws if (w, rel) not in spaced]
    unlike = _NOT_RELATION.get(lang)
    for word, s, e in words:
        lw = word.lower()
        if unlike is not None and unlike.match(lw):
            continue
        for w, rel in single:
            if lw == w or (len(w) >= 4 and lw.startswith(w) and len(lw) - len(w) <= 4):
                hits.append((s, e, rel))
                break
    for m in _MARKER.finditer(text):
        g = 1 if m.group(1) else 2
        hits.append((m.start(g), m.end(g), "born" if g == 1 else "died"))
    return sorted({h for h in set(hits) if not _someone_elses(text, h, lang) and not _birthday(low, h)})


_BIRTHDAY_BEFORE = re.compile(r"(?:день|дня|днём|днем|дню|عيد)\s+$")


def _birthday(low: str, hit: tuple[int, int, str]) -> bool:
    """A birth word that names a birthday ("80. doğum gününden sekiz gün sonra öldü", "birthday",
    "Geburtstag", "день рождения", "عيد الميلاد"): no birth, and its date fills no birth slot."""
    s, e, rel = hit
    if rel != "born":
        return False
    return (low[s:e].startswith(("birthday", "geburtstag")) or re.match(r"\s+gün", low[e:e + 6]) is not None
            or _BIRTHDAY_BEFORE.search(low[max(0, s - 8):s]) is not None)


def _someone_elses(text: str, hit: tuple[int, int, str], lang: str = "") -> bool:
    """A birth or death word followed by "of" and a name ("the death of José Martí"): that person's
    event, whatever its dates (a capital after "of" that is a lowercase letter is none: "ž").
    Indonesian and Malay "di" is "in" ("lahir di Warsawa"), not Italian "di"."""
    if hit[2] not in ("born", "died"):
        return False
    m = _OF_NAME.match(text, hit[1])
    if m is not None and lang in _DI_IS_IN and m.group().split()[0].lower() == "di":
        return False
    return m is not None and text[m.end() - 1].isupper()


_DI_IS_IN = frozenset({"id", "ms", "jv", "su"})


# the birth and death signs of a lead in any language ("(* 7. November 1867 in Warschau; † 4. Juli
# 1934 in Passy)", de, cs, eo): a star only where it opens a parenthesis or follows a semicolon and
# comes before a date or a place (a list bullet or a footnote star is none), a cross where it opens
# a parenthesis or follows a separator
_SIGNS = ("*", "†", "✝")
_MARKER = re.compile(r"(?:(?<=\()|(?<=;)|(?<=; ))\s?(\*)\s?(?=\d|[^\W\d_])"
                     r"|(?:(?<=\()|(?<=[;,\-–—])|(?<=[;,\-–—] ))\s?([†✝])\s?(?=\d|[^\W\d_]|ebenda)")


MAX_COST = 8            # words between a relation word and the value it gives a slot
# a value before these words and a relation word after them begins a period that the event ends
_UNTIL = re.compile(r"(?<!\w)(?:until|till|bis|jusqu|hasta|fino|até|aż|tot|până|do smrti|až)(?!\w)", re.IGNORECASE)
# "the death of José Martí", "nach dem Tod von José Martí", "la mort de Pierre": someone else's event
_OF_NAME = re.compile(r"\s+(?:of|de|del|di|della|da|do|von|vom|des|der|du|van)\s+(?:the\s+|la\s+|le\s+)?"
                      r"[A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁ]")


def _nospace(w: str) -> bool:
    return any(unicodedata.name(c, "").startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI")) for c in w)


def _assign(text: str, values: list[Value], hits: list[tuple[int, int, str]], lang: str = "") -> list[Value]:
    """Give each value the relation word nearest to it in its clause (one before it first); a
    relation word gives its slot to one value of each kind, the nearest ("King from 1479 until his
    death in 1516": 1516 is the death, 1479 fills no slot). A relation word that tells a relative's
    event, or one whose owner is named in the genitive (whose.py), still takes its value: the value
    then fills no slot, or carries that owner as its holder."""
    if not hits:
        return values
    kin = whose.relatives_hits(text, hits, lang, _breaks)
    owners = whose.genitive_owners(text, hits, lang, _breaks)
    out = []
    taken: dict[tuple[int, str], tuple[float, int]] = {}     # (hit, kind) -> (cost, value's index)
    for v in values:
        best = _nearest_hit(text, v, hits, lang)
        out.append(_given(v, best[1], best[2], kin, owners) if best else v)
        if best is not None and v.kind == "date":      # a birth or a death has one date, its places
            key = (best[2], v.kind)                   # may be several ("Passy, Haute-Savoie")
            if key in taken and taken[key][0] <= best[0]:
                out[-1] = v                                   # a nearer value has this word's slot
            else:
                if key in taken:
                    out[taken[key][1]] = values[taken[key][1]]
                taken[key] = (best[0], len(out) - 1)
    return out


def _given(v: Value, rel: str, h: int, kin: set[int], owners: dict[int, str]) -> Value:
    if h in kin or owners.get(h) == "":
        return v                                   # a relative's birth or death
    return Value(**{**v.__dict__, "rel": rel, "holder": owners.get(h, v.holder)})


def _nearest_hit(text: str, v: Value, hits: list[tuple[int, int, str]], lang: str) -> tuple[float, str, int] | None:
    """(cost, relation, index) of the relation word nearest to value `v` in its clause, or None."""
    if whose.marks_period(text, v.start, v.end, lang):
        return None                     # "1962'den sonra": the start of a period
    best: tuple[float, str, int] | None = None
    for h, (s, e, rel) in enumerate(hits):
        if v.start < s and text[s:e] in _SIGNS:
            continue                # a birth or death sign speaks of what follows it
        if e <= v.start:
            if lang in whose.HEAD_FINAL and text[s:e] not in _SIGNS:
                continue            # "İstanbul doğumlu olan Lodi'nin çocukluğu Beşiktaş'ta geçti"
            a, b, after = e, v.start, False
        elif s >= v.end:
            a, b, after = v.end, s, True
        else:
            continue
        gap = text[a:b]
        if after and _UNTIL.search(gap):
            continue                # "from 1939 until his death": the start of something else
        if _breaks(text, a, b) or (not after and "，" in gap):
            continue                # "她于2010年结婚，2012年...": the date opens the next clause
        cost = _distance(gap) + (0.5 if after else 0.0)
        if cost > MAX_COST:
            continue
        if best is None or cost < best[0]:
            best = (cost, rel, h)
    return best


_GAP_WORD = re.compile(r"\w+")


def _distance(gap: str) -> float:
    return float(len(_GAP_WORD.findall(gap)))


# also Chinese and Japanese full-width brackets and dashes ("玛丽·居里（1867年11月7日－1934年7月4日）")
# and the Korean tilde ("마리 퀴리(1867년 11월 7일 ~ 1934년 7월 4일)")
_PAREN_RANGE = re.compile(r"[(（]([^()（）]{4,80}?)\s*[–—\-－―～〜~]\s*([^()（）]{4,80}?)[)）]")


def _life_range(text: str, values: list[Value]) -> list[Value]:
    """"Marie Curie (7 November 1867 – 4 July 1934)": the first date is the birth, the second the death.
    In a script without capitals a relation word after the parenthesis may have taken one of its
    dates ("（1867年11月7日－1934年7月4日），出生于华沙": the birth word's place is no value there):
    the parenthesis decides."""
    out = list(values)
    for m in _PAREN_RANGE.finditer(text):
        first, second = _dates_in(out, m.start(1), m.end(1)), _dates_in(out, m.start(2), m.end(2))
        alts = [i for i in first + second if out[i].alt]       # the other calendar's: the same day
        first, second = [i for i in first if i not in alts], [i for i in second if i not in alts]
        if len(first) == 1 and len(second) == 1:
            holder = _holder_before(text, m.start())
            if not holder:
                continue        # "(1969–1972)" after a common word: years of something, not a life
            caseless = _caseless(holder)
            named = [(first[0], "born"), (second[0], "died")]
            named += [(i, "born" if out[i].end <= m.end(1) else "died") for i in alts]
            for i, rel in named:
                if out[i].rel is None or caseless:
                    out[i] = Value(**{**out[i].__dict__, "rel": rel, "holder": holder})
            for group, i, rel in ((1, first[0], "born"), (2, second[0], "died")):
                out += _range_place(text, m.start(group), out[i], rel, holder, m.end(group))
    return sorted(out, key=lambda v: v.start)


# a living person's lead: "(d. 14 Eylül 1965, Leningrad)", "(род. 14 сентября 1965, Ленинград)",
# "(b. 9 June 1981)", and a range left open, "（1981年6月9日—）", "(9. Juni 1981 –)"
_BORN_ABBR = {"tr": r"d\.", "ru": r"род\.", "uk": r"нар\.", "bg": r"р\.", "en": r"b\.", "sr": r"рођ\.|rođ\."}
_BORN_PAREN = {lang: re.compile(r"[(（]\s*(?:" + abbr + r")\s*([^()（）;]{4,80}?)\s*[)）;]") for lang, abbr in _BORN_ABBR.items()}
_OPEN_RANGE = re.compile(r"[(（]([^()（）]{4,80}?)\s*[–—\-－―～〜~]\s*[)）]")


def _dates_in(values: list[Value], a: int, b: int) -> list[int]:
    """Indices of the dates inside [a, b)."""
    return [i for i, v in enumerate(values) if v.kind == "date" and a <= v.start and v.end <= b]


def _open_life(text: str, values: list[Value], lang: str) -> list[Value]:
    """The one date of such a parenthesis after a name is the birth (its other calendar's too), and a
    place after it ("1965, Leningrad") the birthplace."""
    pats = [_OPEN_RANGE] + ([_BORN_PAREN[lang]] if lang in _BORN_PAREN else [])
    out = list(values)
    for pat in pats:
        for m in pat.finditer(text):
            inside = _dates_in(out, m.start(1), m.end(1))
            main = [i for i in inside if not out[i].alt]
            if len(main) != 1 or any(out[i].rel not in (None, "born") for i in inside):
                continue
            holder = _holder_before(text, m.start())
            if not holder:
                continue
            for i in inside:
                out[i] = Value(**{**out[i].__dict__, "rel": "born", "holder": holder})
            out += _range_place(text, m.start(1), out[main[0]], "born", holder, m.end(1))
    return sorted(out, key=lambda v: v.start)


_PLACE_FIRST = re.compile(r"\s*([A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁЂ-ЏΑ-Ω][\w'’.-]*(?:[ \-][\w'’.-]+){0,3}?)\s*,\s*$")


def _range_place(text: str, start: int, date: Value, rel: str, holder: str, end: int | None = None) -> list[Value]:
    """The place in one half of a life range, before its date, "Place, date" ("Marie Curie (Varsovie,
    7 novembre 1867 – Passy, 4 juillet 1934)", "Bartók Béla (Nagyszentmiklós, 1881. március 25. –
    New York, 1945. szeptember 26.)"), or after it up to the half's `end`, "date, Place[, region]"
    (Russian and Turkish leads: "(28 августа 1828, Ясная Поляна, Тульская губерния — 7 ноября 1910,
    станция Астапово, ...)", "(1881, Selanik – 10 Kasım 1938, İstanbul)"): that birth's or death's place."""
    m = _PLACE_FIRST.fullmatch(text, start, date.start)
    if m and m.group(1)[:1].isupper() and _fold(m.group(1)) not in _all_month_words():
        return [Value("place", m.start(1), m.end(1), m.group(1), rel=rel, holder=holder)]
    if end is None:
        return []
    m = _RANGE_PLACE_AFTER.match(text, date.end, end)
    if not m or _fold(m.group(1)) in _all_month_words():
        return []
    return [Value("place", m.start(1), m.end(1), m.group(1), rel=rel, holder=holder)]


# after a date: ", " then at most one lower-case word ("станция") and a capitalised name of up to four
# words, to the next comma or the end of the half
_RANGE_PLACE_AFTER = re.compile(r"\s*,\s*(?:(?=[a-zß-ÿа-яё])\w+\s+)?([A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁЂ-ЏΑ-Ω][\w'’.-]*(?:[ \-][\w'’.-]+){0,3}?)\s*(?:,|$)")


def _holder_before(text: str, at: int) -> str:
    """The name right before a parenthesis at `at` ("" when none); a bounded tail, and words without
    inner hyphens: no backtracking blow-up on long capitalised chains ("Ab-Ab-Ab-...") in untrusted
    text. In a script without capitals (Arabic, Chinese, Hebrew ...) the words right before it: up to
    CASELESS_HOLDER_WORDS words, or the last CASELESS_HOLDER_CHARS characters of a run written
    without spaces."""
    before = _NAME_BEFORE.search(text, max(0, at - NAME_TAIL), at)
    if before:
        return before.group(1)
    tail = _CASELESS_BEFORE.search(text, max(0, at - NAME_TAIL), at)
    if not tail or not _caseless(tail.group(1)):
        return ""
    words = tail.group(1).split()
    if len(words) == 1:
        return words[0][-CASELESS_HOLDER_CHARS:]
    return " ".join(words[-CASELESS_HOLDER_WORDS:])


_SIGN_PAREN = re.compile(r"\([^()]*[*†✝][^()]*\)")


def _sign_holders(text: str, values: list[Value]) -> list[Value]:
    """The dates and places after a birth or death sign in parentheses belong to the name before
    them ("Pierre Curie (* 15. Mai 1859 in Paris; † 19. April 1906 ebenda)")."""
    out = list(values)
    for m in _SIGN_PAREN.finditer(text):
        inside = [i for i, v in enumerate(out) if v.rel in ("born", "died") and not v.holder
                  and m.start() < v.start and v.end < m.end()]
        if not inside:
            continue
        holder = _holder_before(text, m.start())
        for i in inside:
            out[i] = Value(**{**out[i].__dict__, "holder": holder})
    return out


def _subject_named(holder: str, entity: str) -> bool:
    """Whether the name a life range follows is the subject's: they share a word, and every word of
    one is in the other ("Curie", "Marie Curie"). A name with a word of its own on each side is
    someone else: "George Coke (1725–1759)" in "D'Ewes Coke" is his father, "Carl Peter Hagberg
    (1778–1841)" in "Carl August Hagberg" too. Particles ("de", "von") are no name's words."""
    hw, ew = name_words(holder), name_words(entity)
    if bool(hw & ew) and (hw <= ew or ew <= hw):
        return True
    if entity and other_script(holder, entity):
        # the entity typed in another script ("마리 퀴리" for the English lead's "Marie Salomea
        # Skłodowska–Curie"): each of its words sounds like one of the holder's (rules r26)
        parts = [w for w in re.split(r"[\s\-–—]+", holder) if w]
        return all(any(same_name_word(e, h) for h in parts) for e in re.split(r"[\s\-]+", entity) if len(e) > 1)
    # no spaces between words: the name is the end of the run before the parenthesis
    compact = lambda n: re.sub(r"[\s·・‧]+", "", n)  # noqa: E731
    return bool(entity) and _caseless(holder) and compact(holder).endswith(compact(entity))


def _caseless(name: str) -> bool:
    """Written in a script without capitals (Arabic, Chinese, Korean ...)."""
    return not any(c.isupper() or c.islower() for c in name)


_SENTENCE_CUT = re.compile(r"(?<=\w{4})\.\s")       # not after "St." or "D."


def _sentence_cut(run: str) -> str:
    """A capitalised run up to a sentence's end: a dot after a word of four letters ("Bártfa. His"), or
    before a word no name holds (`_dot_before_function_word`: "Ève. She died")."""
    run = _SENTENCE_CUT.split(run, maxsplit=1)[0]
    cut = _dot_before_function_word(run)
    return run if cut is None else run[:cut]
# letters (no digits, no punctuation but a name's middle dot) right before a parenthesis, caseless
# (one way only to cut a run into words: a space between two, a dot inside one; no backtracking blow-up)
_CASELESS_WORD = r"[^\W\d_]+(?:[·・‧][^\W\d_]+)*"
_CASELESS_BEFORE = re.compile(rf"({_CASELESS_WORD}(?:[ \u200c]{_CASELESS_WORD})*)\s*$")
CASELESS_HOLDER_WORDS = 4      # "العالمة ماري كوري (": the name is among the last words
CASELESS_HOLDER_CHARS = 12     # "著名科学家玛丽·居里（": among the last characters
# (a name's letters may carry combining marks: Russian leads write the stress, "Лев Никола́евич Толсто́й")
_NAME_BEFORE = re.compile(r"([A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁЂ-ЏΑ-Ω][\w'’.\u0300-\u036f]*(?:[ \-](?:[a-z]{1,3}[ \-])?"
                          r"[A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁЂ-ЏΑ-Ω][\w'’.\u0300-\u036f]*)*)\s*$")
NAME_TAIL = 120                # characters before a life range searched for its holder's name
_CAP_RUN = re.compile(r"(?<![\w'’-])([A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁЂ-ЏΑ-Ω][\w'’.-]*(?:[ \-](?:(?:de|du|del|di|da|von|van|der|den|la|le|sur|am|an|upon|on)[ \-])?[A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁЂ-ЏΑ-Ω][\w'’-]*)*)")


# German capitalises every noun: there a place is a name right after a place preposition ("in
# Warschau", "bei Salerno"), not "an Leukämie", "in einer Lehrerfamilie", "nach langer Krankheit"
_PLACE_AFTER = {"de": re.compile(r"(?<![\w-])(?:in|bei|zu|nahe)\s+$", re.IGNORECASE)}
# Basque, Finnish, Hungarian and Turkish say "in" with a case ending: outside a lead's parentheses
# a place of birth or death carries it ("Carougen jaio zen", "syntyi Helsingissä", "Budapesten
# született", "İstanbul'da doğdu"); a name in another case is no place ("Aminatak" did, "Genevako" of)
_PLACE_CASE = {"eu": re.compile(r"(?:[^k]n)$"), "fi": re.compile(r"(?:ss[aä]|ll[aä])$"),
               "hu": re.compile(r"(?:b[ae]n|[oeö]n|[aeiouáéíóöőúüű]n)$"),
               "tr": re.compile(r"(?:['’]?[dt][ae]|['’]?[dt][ae]n)$")}


# "born into the family of", "в семье", "w rodzinie", "in der Familie (von)": the names after it are
# the parents' (with up to two words between: "w ubogiej wiejskiej rodzinie", "в семье учителя")
_FAMILY_BEFORE = re.compile(r"(?<!\w)(?i:family|familie|famille|familia|famiglia|família|семье|семьи|родині|"
                            r"сім'ї|rodzinie|rodině|rodine|családjában|perheeseen|gezin|عائلة|أسرة)"
                            r"(?:\s+(?:of|von|de|du|des|di|do|da|del|della|van|der|the|a|an|ein|eines|einer))*"
                            r"(?:\s+[a-zß-ÿа-яёіїє]\w*){0,2}\s*$")


_IN_BEFORE = re.compile(r"(?<!\w)(?:в|во|из|w|we|in|im|à|en|em|na|a|u|au|nel|nella|no|din|from|aus)\s+$")  # "в семье учителя в Тобольске"


def _places(text: str, hits: list[tuple[int, int, str]], skip: set[str], taken: list[tuple[int, int]],
            lang: str = "") -> list[Value]:
    """Capitalised names in the clause of a 'born' or 'died' word: the place of that event."""
    out: list[Value] = []
    after = _PLACE_AFTER.get(lang)
    case = _PLACE_CASE.get(lang)
    months = _all_month_words()
    for m in _CAP_RUN.finditer(text):
        name = _sentence_cut(m.group(1)).rstrip(".")
        s, e = m.start(1), m.start(1) + len(name)
        if _overlaps(s, e, taken) or not name[:1].isupper():
            continue            # (the class Ā-ſ holds "ž", "š", "č" too: Lithuanian "žmonių" is no name)
        folded = _fold(name)
        parts = {_fold(p) for p in re.split(r"[ \-]", name)}
        if parts & skip or folded in months or folded in STOPWORDS:
            continue
        if s == 0 or text[:s].rstrip().endswith((".", "!", "?")):
            if case is not None:         # "Orhan Pamuk İstanbul'da doğdu": the subject's name, then the place
                out += _place_after_name(text, s, name, case, skip)
            continue            # a sentence-initial capital says nothing
        if after is not None and not after.search(text, max(0, s - 8), s):
            continue
        if _FAMILY_BEFORE.search(text, max(0, s - 40), s) and not _IN_BEFORE.search(text, max(0, s - 6), s):
            continue            # "родился в семье Ивана Павловича": the parents' names, no place
        if case is not None and not case.search(name.lower()) and not _in_parentheses(text, s):
            continue
        out.append(Value("place", s, e, name))
    return out


# Chinese and Cantonese: the place of a birth or death after the relation word and 于/於/在 ("出生於耶路撒冷"),
# or between 于/於/在 and it ("在耶路撒冷出生"); a run of characters up to a particle or punctuation
_HAN_RUN = r"[\u4e00-\u9fff·・]{2,12}?"
_HAN_PLACE_END = r"(?=[，。、；：（）()\s,;]|的|并|並|和|与|與|及|后|後|时|時|是|为|為|之|，|$)"
_HAN_AFTER = re.compile(r"\s*(?:于|於|在)?\s*(" + _HAN_RUN + ")" + _HAN_PLACE_END)
_HAN_BEFORE = re.compile(r"(?:于|於|在)\s*(" + _HAN_RUN + r")\s*$")
_HAN_NOT_PLACE = re.compile(r"^[一二三四五六七八九十两兩这這那该該此其当當]|家庭|家族|家中|世家|之家|书香|書香|年|月|日|期间|期間|时候|時候")
_HAN_CAUSE = frozenset({"死于", "死於"})      # "死於感染", "死于癌症": a cause, seldom a place


def _han_places(text: str, hits: list[tuple[int, int, str]], taken: list[tuple[int, int]]) -> list[Value]:
    """The places of the births and deaths in Chinese text (the relation words' own characters
    excluded: "生于" holds its 于)."""
    out: list[Value] = []
    for s, e, _rel in hits:
        found = []
        if text[s:e] not in _HAN_CAUSE and (text[e - 1:e] in "于於" or text[e:e + 1] in "于於在"):
            m = _HAN_AFTER.match(text, e)
            if m:
                found.append((m.start(1), m.end(1)))
        m = _HAN_BEFORE.search(text, max(0, s - 14), s)
        if m:
            found.append((m.start(1), m.end(1)))
        for a, b in found:
            name = text[a:b]
            if _HAN_NOT_PLACE.search(name) or _overlaps(a, b, taken):
                continue
            out.append(Value("place", a, b, name))
            taken.append((a, b))
    return out


def _known_places(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    """In a script without capitals (Arabic, Hebrew, Devanagari, Thai, Hangul, Kana ...), the cities and
    countries CLDR names in it ("وارسو", "바르샤바에서"); `_assign` gives each the slot of its clause."""
    out = []
    for s, e in gazetteer.find(text):
        if not _overlaps(s, e, taken):
            out.append(Value("place", s, e, text[s:e]))
            taken.append((s, e))
    return out


# a date said as a bound, by the words before it ("before 1867", "avant 1867", "до 1867 года") or, in
# Turkish, Chinese and Japanese, after it ("1867'den önce", "1867年以前")
_BOUND_BEFORE = {
    "before": {"en": "before|prior to", "fr": "avant", "de": "vor", "es": "antes de", "it": "prima del|prima di",
               "pt": "antes de", "ru": "до", "pl": "przed", "nl": "voor", "ca": "abans de|abans del", "cs": "před",
               "ro": "înainte de", "uk": "до", "sv": "före", "da": "før", "no": "før"},
    "after": {"en": "after", "fr": "après", "de": "nach", "es": "después de|después del", "it": "dopo il|dopo",
              "pt": "depois de|após", "ru": "после", "pl": "po", "nl": "na", "ca": "després de|després del",
              "cs": "po", "ro": "după", "uk": "після", "sv": "efter", "da": "efter", "no": "etter"},
}
_BOUND_AFTER = {
    "before": {"tr": r"['’]?\w{0,4}\s+önce|\s*yılından\s+önce", "zh": "之前|以前", "yue": "之前|以前", "ja": "以前|より前"},
    "after": {"tr": r"['’]?\w{0,4}\s+sonra|\s*yılından\s+sonra", "zh": "之后|以后|之後|以後", "yue": "之后|以后|之後|以後",
              "ja": "以降|以後|より後"},
}


@functools.lru_cache(maxsize=64)
def _bound_res(lang: str) -> list[tuple[str, re.Pattern[str] | None, re.Pattern[str] | None]]:
    out = []
    for qual in ("before", "after"):
        pre, post = _BOUND_BEFORE[qual].get(lang), _BOUND_AFTER[qual].get(lang)
        out.append((qual, re.compile(r"(?<!\w)(?:" + pre + r")\s+(?:the\s+year\s+|l'an\s+|dem\s+jahr\s+)?$", re.IGNORECASE)
                    if pre else None, re.compile(r"(?:" + post + ")") if post else None))
    return out


def _bounds(text: str, values: list[Value], lang: str) -> list[Value]:
    """Dates said as bounds ("born before 1867"): their span takes in the bound's words, so that a conflict
    reads `"before 1867" vs "7 November 1867"`; compared as bounds (`values_agree`), not as equal dates."""
    res = _bound_res(lang)
    if not any(pre or post for _q, pre, post in res):
        return values
    out = []
    for v in values:
        if v.kind == "date" and not v.alt:
            for qual, pre, post in res:
                m = pre.search(text, max(0, v.start - 24), v.start) if pre else None
                n = post.match(text, v.end) if post else None
                if m or n:
                    v = Value(**{**v.__dict__, "qual": qual, "start": m.start() if m else v.start,
                                 "end": n.end() if n else v.end, "parts": v.parts or ((v.start, v.end, "year"),)})
                    break
        out.append(v)
    return out


def _place_after_name(text: str, s: int, run: str, case: re.Pattern, skip: set[str]) -> list[Value]:
    """In a language that says "in" with a case ending, a sentence may open with a name and the place
    right after it, one capitalised run ("Bartók Béla Nagyszentmiklóson született"): its last word,
    when it has the locative ending, is a place, and the words before it its holder (text_values
    keeps the place for the subject only when they are the subject's name)."""
    words = run.split(" ")
    last = words[-1]
    if len(words) < 2 or not case.search(last.lower()) or _fold(last) in skip:
        return []
    start = s + len(run) - len(last)
    return [Value("place", start, start + len(last), last, holder=" ".join(words[:-1]))]


def _in_parentheses(text: str, at: int) -> bool:
    """Whether position `at` lies inside an open parenthesis (a lead's "(Turku, 1911 – ...)")."""
    return text.rfind("(", 0, at) > text.rfind(")", 0, at)


# --------------------------------------------------------------------------- one text


@dataclass
class TextValues:
    values: list[Value]
    words: list[tuple[str, int, int]]


def text_values(text: str, lang: str, entity: str = "", extra_langs: tuple[str, ...] = ()) -> TextValues:
    """The typed values of a text, each with the relation whose slot it fills; a place that shares a
    word with the entity's name is not a place. The entity is applied to the values cached by text
    alone, so evidence shared by claims about different entities is read once."""
    base = _text_values(text, lang, extra_langs)
    skip = {_fold(p) for p in re.split(r"[\s\-]+", entity) if p}
    if not skip:
        return base
    kept = [v for v in base.values
            if v.kind != "place" or not ({_fold(p) for p in re.split(r"[ \-]", v.text)} & skip
                                         or names_entity(v.text, entity))]
    # a life range after someone else's name is that person's
    kept = [Value(**{**v.__dict__, "rel": None}) if v.holder and v.rel and entity and not _subject_named(v.holder, entity)
            and not _known_as(text, v, entity) else v for v in kept]
    kept = _others_events(text, kept, entity)
    changed = len(kept) != len(base.values) or any(a is not b for a, b in zip(kept, base.values))
    return TextValues(kept, base.words) if changed else base


# "known as", a stage name or a pen name: the name after it (before it in Turkish) is the same person's
_ALIAS = re.compile(r"(?:known(?: professionally| publicly)? as|stage name|pen name|bekannt als|Künstlername|"
                    r"connue? sous le nom(?: de)?|nom de scène|conocid[oa] como|nombre artístico|conhecid[oa] como|"
                    r"nome artístico|conosciut[oa] come|nome d'arte|известн(?:ая|ый) как|псевдоним|"
                    r"المعروفة? باسم|藝名|艺名|筆名|笔名|olarak bilinen|olarak tanınan|sahne adı(?:yla)?)",
                    re.IGNORECASE)
ALIAS_GAP = 24        # characters between the marker and the name


def _known_as(text: str, v: Value, entity: str) -> bool:
    """Whether the sentence of `v` gives `entity` as the holder's other name ("Anna Marie Wooldridge
    (1930 – 2010), known professionally as Abbey Lincoln"; "Abbey Lincoln olarak bilinen Anna Marie
    Wooldridge (...)"; "娜塔-李·赫許勒（1981年6月9日—），藝名娜塔莉·波特曼"); not "known as Abbey
    Lincoln's husband"."""
    a, b = _sentence_around(text, v.start)
    sentence = text[a:b]
    for m in re.finditer(re.escape(entity), sentence, re.IGNORECASE):
        if sentence[m.end():m.end() + 1] in ("'", "’", "的"):
            continue
        before = sentence[max(0, m.start() - ALIAS_GAP - 20):m.start()]
        after = sentence[m.end():m.end() + ALIAS_GAP]
        if any(x.end() >= len(before) - ALIAS_GAP for x in _ALIAS.finditer(before)) or \
                any(x.start() <= 2 for x in _ALIAS.finditer(after)):
            return True
    return False


def _others_events(text: str, values: list[Value], entity: str) -> list[Value]:
    """A birth or death told in a sentence about someone else ("Juozapas Daugirdas mirė 1871 m." in
    a manor's article: it starts with another name and names neither the entity nor a pronoun) fills
    none of the subject's slots."""
    if not entity or not any(v.rel in ("born", "died") and not v.holder for v in values):
        return values
    out = list(values)
    for i, v in enumerate(out):
        if v.rel not in ("born", "died") or v.holder:
            continue
        a, b = _sentence_around(text, v.start)
        if _about_another(text[a:b], entity):
            out[i] = Value(**{**v.__dict__, "rel": None})
    return out


_REFERS_BACK = PRONOUNS | POSSESSIVES | frozenset("seiner ihrer jego jej jeho její".split())


def _about_another(sentence: str, entity: str) -> bool:
    """A sentence that opens (after function words) with a name of two capitalised words, none of
    them the entity's, and names neither the entity nor a pronoun or possessive that could be it."""
    ws = [w for w, _s, _e in words_with_offsets(sentence)]
    own = name_words(entity)
    if not ws or any(fold_accents(w) in own or sounds_like(w, entity) for w in ws) \
            or any(w.lower() in _REFERS_BACK for w in ws):
        return False
    k = 0
    while k < len(ws) - 2 and ws[k].lower() in STOPWORDS:
        k += 1
    return len(ws) > k + 1 and ws[k][:1].isupper() and ws[k + 1][:1].isupper()


@functools.lru_cache(maxsize=2048)
def _text_values(text: str, lang: str, extra_langs: tuple[str, ...] = ()) -> TextValues:
    norm = normalise_digits(text)
    taken: list[tuple[int, int]] = []
    values = _dates(norm, lang, taken)
    values += _ages(norm, taken)
    values += _numbers(norm, lang, taken)
    hits = _relation_hits(norm, lang, extra_langs)
    skip = {_fold(w) for w in (text[s:e] for s, e, _r in hits)}
    skip |= {_fold(text[s:e]) for s, e in mentions(text, (lang, *extra_langs))}    # "Eltern" is no place
    if hits and _cased(text):
        places = _places(norm, [h for h in hits if h[2] in ("born", "died")], skip, taken, lang)
        values += places
    elif hits and lang in HAN_LANGS:
        values += _han_places(norm, [h for h in hits if h[2] in ("born", "died")], taken)
    elif any(h[2] in ("born", "died") for h in hits):
        values += _known_places(norm, taken)
    values = _bounds(norm, values, lang)
    values = _assign(norm, sorted(values, key=lambda v: v.start), hits, lang)
    values = _life_range(norm, values)
    values = _open_life(norm, values, lang)
    values = _sign_holders(norm, values)
    values = _relatives_values(norm, values, (lang, *extra_langs))
    # a place counts only in the slot of a birth or a death, an age only as the age at death
    values = [v for v in values if (v.kind != "place" or v.rel in ("born", "died"))
              and (v.kind != "age" or _died_before(norm, v, hits, lang))]
    # a birth or a death has a date and a place, not a count ("mirė iki 100 000 žmonių": up to
    # 100,000 people died)
    values = [Value(**{**v.__dict__, "rel": None}) if v.kind == "number" and v.rel in ("born", "died") else v
              for v in values]
    # values keep the original text's characters
    values = [Value(**{**v.__dict__, "text": text[v.start:v.end]}) for v in values]
    return TextValues(values, words_with_offsets(text))


_OPENS = re.compile(r"[.!?;:]\s|\n")


def _relatives_values(text: str, values: list[Value], langs: tuple[str, ...]) -> list[Value]:
    """A clause about a relative ("Her father, Stefan Keler (1781–1849), was a judge"; "Son mari
    Pierre mourut en 1906") gives that relative's dates and places, not the subject's: its values
    keep no slot."""
    if not any(v.rel for v in values):
        return values
    spans = [(min(k.kin_span[0], k.name_span[0]), max(k.kin_span[1], k.name_span[1])) for k in links(text, langs)]
    spans += list(mentions(text, langs))          # "Tatăl său a murit la vârsta de 38 de ani"
    if not spans:
        return values
    fillers = function_words(langs).fillers
    return [Value(**{**v.__dict__, "rel": None}) if v.rel and any(_about(text, sp, v, fillers) for sp in spans) else v
            for v in values]


_OWNER_PREFIX = re.compile(r"^\s*(?:[\w.-]+\s+){0,4}[\w.-]+['’]s?\s*$")     # "Marie Curie's"


def _about(text: str, span: tuple[int, int], v: Value, fillers: frozenset[str]) -> bool:
    """Whether value `v` lies in the clause that a relative (a kinship word, with its name) at
    `span` opens."""
    start, end = span
    if v.start < end:
        return False
    opened = [m.end() for m in _OPENS.finditer(text, 0, start)]
    prefix = text[opened[-1] if opened else 0:start]
    if any(w.lower() not in fillers for w, _a, _b in words_with_offsets(prefix)) and not _OWNER_PREFIX.match(prefix):
        return False                  # "with her husband Pierre, she won ...": the subject acts
    gap = text[end:v.start].lstrip(" ,(")
    return not (_OPENS.search(gap) or _CLAUSE_BREAK.search(gap))


def _died_before(text: str, v: Value, hits: list[tuple[int, int, str]], lang: str = "") -> bool:
    """An age is the age at death when a "died" word comes before it in its clause ("died in 1934
    at the age of 66"); "Im Alter von 10 Jahren starben ihre Eltern" is her age at her parents'.
    Languages that put the verb last say it after ("61 yaşında Moskova'da öldü"); 享年 says it alone."""
    if text[max(0, v.start - 4):v.start].strip().endswith(("享年", "향년")):
        return True
    return v.rel == "died" and any(rel == "died" and (e <= v.start and not _CLAUSE_BREAK.search(text[e:v.start])
                                  or lang in whose.HEAD_FINAL and s >= v.end and not _CLAUSE_BREAK.search(text[v.end:s]))
               for s, e, rel in hits)


def _cased(text: str) -> bool:
    letters = [c for c in text[:400] if c.isalpha()]
    return bool(letters) and sum(c.isupper() or c.islower() for c in letters) / len(letters) > 0.8


# --------------------------------------------------------------------------- comparison


_CASE_AFTER_NAME = re.compile(r"['’]\w{1,6}$")     # a case ending after a name's apostrophe ("Chicago'da")


def bare_name(s: str) -> str:
    """A place without the case ending Turkish writes after an apostrophe ("Manhattan'da" -> "Manhattan")."""
    return _CASE_AFTER_NAME.sub("", s.strip())


def _fold_name(s: str) -> str:
    return "".join(c for c in fold_accents(bare_name(s)) if c.isalnum())


_LETTER_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK"})


def names_comparable(a: str, b: str) -> bool:
    """Whether two place names can be told apart at all: written in one script, or in two of Latin,
    Cyrillic and Greek, whose letters map onto each other ("Варшаве"/"Warsaw"). "华沙" and "Varsovie"
    cannot be by spelling or by E5, which puts "华沙" as near "Varsovie" (0.78) as "巴黎" (0.80); they
    can when CLDR's place names know both (`gazetteer.relation`). Elsewhere a difference found is no
    conflict; only an agreement the embedder is sure of counts."""
    sa, sb = scripts_of(a), scripts_of(b)
    if bool(sa & sb) or (bool(sa) and bool(sb) and sa | sb <= _LETTER_SCRIPTS):
        return True
    return gazetteer.relation(a, b) is not None      # rules r24: "华沙" and "Varsovie" are both Warsaw


def names_alike(a: str, b: str) -> bool:
    """The same name by spelling: equal after folding, or one starts the other's word ("Curie" in
    "Skłodowska-Curie"), or a common beginning of 4+ letters covering most of both ("Warschau",
    "Warsaw")."""
    fa, fb = _fold_name(a), _fold_name(b)
    if not fa or not fb:
        return False
    if fa == fb:
        return True
    if _HAN_NAME.fullmatch(a) and _HAN_NAME.fullmatch(b):
        # Chinese: the same two characters somewhere ("广东省广州市" and "廣州"), in simplified characters
        sa, sb = han_simplified(a), han_simplified(b)
        return any(sa[i:i + 2] in sb for i in range(len(sa) - 1))
    wa = {_fold_name(w) for w in re.split(r"[\s\-,]+", a) if len(w) > 2}
    wb = {_fold_name(w) for w in re.split(r"[\s\-,]+", b) if len(w) > 2}
    if wa & wb:
        return True
    n = len(os.path.commonprefix([fa, fb]))
    return n >= 4 and n >= 0.6 * min(len(fa), len(fb))


_HAN_NAME = re.compile(r"[\u4e00-\u9fff·・]+")

NameMatcher = Callable[[str, str], bool]


def date_diff(a: Value, b: Value) -> list[str]:
    """The parts in which date `a` disagrees with date `b` (empty: they agree)."""
    diff = []
    if a.year is not None and b.year is not None:
        if a.decade or b.decade:
            if a.year // 10 != b.year // 10:
                diff.append("year")
        elif a.year != b.year:
            diff.append("year")
    if a.month is not None and b.month is not None and a.month != b.month:
        diff.append("month")
    if a.day is not None and b.day is not None and a.day != b.day:
        diff.append("day")
    return diff


def _bound_holds(bound: Value, date: Value) -> bool:
    """Whether `date` lies within `bound` ("before 1867": 1866 does, 7 November 1867 does not); a bound
    against a bound says nothing."""
    if date.qual or not bound.qual:
        return False
    decade = bound.decade and bound.year is not None and date.year is not None
    a = (bound.year // 10 if decade and bound.year is not None else bound.year, bound.month, bound.day)
    b = (date.year // 10 if decade and date.year is not None else date.year, date.month, date.day)
    for x, y in zip(a, b):
        if x is None or y is None:
            return False        # equal as far as both go: neither before nor after
        if x != y:
            return y < x if bound.qual == "before" else y > x
    return False


def dates_comparable(a: Value, b: Value) -> bool:
    """Whether two dates give a part in common to compare: a year, or a month ("1857" and "27 января"
    say nothing of each other)."""
    return (a.year is not None and b.year is not None) or (a.month is not None and b.month is not None)


def values_agree(a: Value, b: Value, same_name: NameMatcher = names_alike) -> bool:
    if a.kind == "date" and b.kind == "date":
        if not dates_comparable(a, b):
            return False
        if a.qual or b.qual:
            return _bound_holds(a, b)
        return not date_diff(a, b)
    if a.kind in ("number", "ordinal") and b.kind == a.kind:
        if a.unit != b.unit or a.num is None or b.num is None:
            return False
        big = max(abs(a.num), abs(b.num), 1e-9)
        return abs(a.num - b.num) / big <= 0.005
    if a.kind == "number" and b.kind == "date" and b.year is not None and b.month is None and a.num is not None:
        return float(b.year) == a.num
    if a.kind == "place" and b.kind == "place":
        return same_name(a.text, b.text)
    return False


@dataclass
class Conflict:
    fact_value: Value
    evidence_value: Value
    passage: int                                  # index of the passage the evidence value is in
    marks: list[tuple[int, int]]                  # the wrong words, in the fact's characters

    def reason(self) -> str:
        rel = f" ({self.fact_value.rel})" if self.fact_value.rel else ""
        return f'"{self.fact_value.text}" vs "{self.evidence_value.text}"{rel}'


@dataclass
class SlotReport:
    """What the slot checks found for one fact."""
    values: int = 0
    agreed: list[tuple[Value, Value, int]] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    missing: list[Value] = field(default_factory=list)
    slot_values: int = 0          # values of the fact that fill a relation's slot
    agreed_counts: list[tuple[int, int]] = field(default_factory=list)   # counts in words the evidence
                                                                         # gives too (counts.py)
    # (start, end, family or country) of the occupation and nationality words that the evidence's
    # statements about the subject confirm (stated.py), when every such word of the fact is confirmed
    stated: list[tuple[int, int, str]] = field(default_factory=list)
    # every occupation and nationality word of the fact, and a conflict when the evidence's statements
    # contradict one of them: a conflict only if the fact says nothing else (verify_default decides)
    concepts: list[tuple[int, int, str]] = field(default_factory=list)
    unstated: Conflict | None = None

    @property
    def conflict(self) -> bool:
        return bool(self.conflicts)

    def marks(self) -> list[tuple[int, int]]:
        return sorted({m for c in self.conflicts for m in c.marks})

    def evidence_marks(self) -> dict[int, list[tuple[int, int]]]:
        out: dict[int, list[tuple[int, int]]] = {}
        for c in self.conflicts:
            out.setdefault(c.passage, []).append((c.evidence_value.start, c.evidence_value.end))
        return out

    def reason(self) -> str:
        return "; ".join(c.reason() for c in self.conflicts)

    def features(self) -> list[float]:
        """[has values, share agreed, any conflict, share missing] for a trained combiner."""
        n = max(1, self.values)
        return [float(self.values > 0), len(self.agreed) / n, float(self.conflict), len(self.missing) / n]


def _marks_of(fv: Value, ev: Value) -> list[tuple[int, int]]:
    if fv.kind == "date" and ev.kind == "date" and fv.parts:
        diff = set(date_diff(fv, ev))
        if diff and diff != {"year"} or (diff == {"year"}):
            ps = [(s, e) for s, e, p in fv.parts if p in diff]
            if ps:
                # "22 mars" rather than "22" and "mars": join parts that only a space separates
                ps.sort()
                joined = [list(ps[0])]
                for s, e in ps[1:]:
                    if s - joined[-1][1] <= 4:
                        joined[-1][1] = e
                    else:
                        joined.append([s, e])
                return [(s, e) for s, e in joined]
    return [(fv.start, fv.end)]


def _content(text: str, words: list[tuple[str, int, int]], values: list[Value]) -> set[str]:
    spans = [(v.start, v.end) for v in values]
    return {w.lower()[:5] for w, s, e in words
            if w.lower() not in STOPWORDS and not _overlaps(s, e, spans) and not w.isdigit()}


def check_slots(fact: str, lang: str, passages: Sequence[tuple[str, str]], entity: str = "",
                same_name: NameMatcher = names_alike, focus: Sequence[int] | None = None) -> SlotReport:
    """Compare the typed values of `fact` with those of `passages` ((text, lang) each).

    `focus`: indices of the passages (e.g. the best windows) whose slots count first; a relation the
    focus passages do not fill is looked up in the others."""
    fv = text_values(fact, lang, entity)
    rep = SlotReport(values=len(fv.values))
    if not passages:
        return rep
    order = list(focus) if focus else list(range(len(passages)))
    order += [i for i in range(len(passages)) if i not in order]
    tagged = [(t, tuple(dict.fromkeys((plang or lang, *_langs_of(t, lang))))) for t, plang in passages]
    rep.conflicts.extend(_subject_conflicts(fact, fv, lang, passages, tagged, entity, order))
    counted = _count_conflicts(fact, lang, tagged, order)
    rep.conflicts.extend(counted)
    rep.agreed_counts = count_agreements(fact, lang, tagged, order)
    if not rep.conflicts:
        _read_statements(rep, fact, lang, passages, tagged, entity, order)
    if not fv.values:
        return rep
    evs = _passage_values(passages, lang, entity)
    fact_content = _content(fact, fv.words, fv.values)
    for v in fv.values:
        if any(v.start < c.fact_value.end and c.fact_value.start < v.end for c in counted):
            continue        # a count the evidence contradicts ("12 goals" against "15 goals")
        if v.kind == "age":
            rep.slot_values += 1
            _check_age(v, evs, order, rep, lang)
            continue
        anywhere = [(i, e) for i in order for e in evs[i].values if values_agree(v, e, same_name)]
        if v.rel is not None:
            rep.slot_values += 1
            same_slot = [(i, e) for i in order for e in evs[i].values
                         if e.rel == v.rel and e.kind == v.kind and (v.kind != "date" or dates_comparable(v, e))]
            if (award := _other_award(v, fact, fv, anywhere, passages, evs, order, lang, same_name)) is not None:
                _add_conflict(rep, v, award)
                continue
            if same_slot:
                _check_slot(v, same_slot, anywhere, evs, order, same_name, rep, [t for t, _l in passages])
                continue
        moved = None if not anywhere else _moved_value(
            v, fv, fact_content, anywhere, passages, evs, order, lang, same_name, fact)
        if moved is not None:
            _add_conflict(rep, v, moved)
            continue
        if anywhere:
            _agree(rep, v, anywhere)
            continue
        if v.kind == "place":
            continue
        # no slot word: the evidence sentence that best matches the rest of the fact decides
        hit = (_matching_sentence_value(v, fact_content, passages, evs, order, lang)
               or _framed_value(v, fv.words, fact_content, passages, evs, order, lang))
        if hit is not None:
            _add_conflict(rep, v, hit)
        else:
            rep.missing.append(v)
    return rep


def coarser(v: Value, e: Value) -> bool:
    """Whether evidence date `e` says less than fact date `v`: no day where the fact gives one, or no
    month ("1802" for "10 mars 1802")."""
    return (v.kind == "date" and e.kind == "date"
            and ((v.day is not None and e.day is None) or (v.month is not None and e.month is None)))


def _agree(rep: SlotReport, v: Value, ok: list[tuple[int, Value]]) -> None:
    """Fact value `v` agrees with the evidence values `ok` (passage, value): agreed with the first that
    says as much as `v` does; when every one says less (a year alone for a date with its day), the
    rest of `v` is in no evidence and `v` is missing, not agreed (rules r32: "Il est né le 10 mars
    1802" against "(1802–1885)" was S by the agreed year)."""
    fine = [(i, e) for i, e in ok if not coarser(v, e)]
    if fine:
        rep.agreed.append((v, fine[0][1], fine[0][0]))
    else:
        rep.missing.append(v)


def _add_conflict(rep: SlotReport, v: Value, hit: tuple[int, Value]) -> None:
    """Fact value `v` against evidence value `hit` (passage, value): a conflict marking `v`'s wrong part."""
    i, e = hit
    rep.conflicts.append(Conflict(v, e, i, _marks_of(v, e)))


def _check_slot(v: Value, same_slot: list[tuple[int, Value]], anywhere: list[tuple[int, Value]],
                evs: list[TextValues], order: list[int], same_name: NameMatcher, rep: SlotReport,
                texts: Sequence[str]) -> None:
    """A fact value whose slot the evidence fills: agreed, or a conflict."""
    ok = [(i, e) for i, e in same_slot if values_agree(v, e, same_name)]
    if not ok and v.rel in MANY:
        # one prize, marriage or foundation of several: the evidence names this one without the
        # slot word ("She shared the 1903 Nobel Prize", "won ... 1911")
        ok = [(i, e) for i, e in anywhere if e.rel is None]
    if not ok and v.kind == "place":
        # the evidence's place told with the fact's ("at Passy, in Haute-Savoie, France" for "in France")
        ok = [(i, e) for i, e in same_slot if _told_with(v, e, evs[i].words, texts[i])]
    if not ok and v.kind == "place":
        same_slot = [(i, e) for i, e in same_slot if names_comparable(v.text, e.text)]
        if not same_slot:
            return      # "华沙" against "Varsovie": the embedder cannot tell these scripts' names apart
    if ok:
        _agree(rep, v, ok)
    elif v.kind != "place" or not _named_elsewhere(v, evs, order, same_name):
        i, e = _closest(v, same_slot)
        rep.conflicts.append(Conflict(v, e, i, _marks_of(v, e)))
    else:
        # a place the evidence names, but in another slot ("born in Passy", the death place)
        other = [(i, e) for i, e in anywhere if e.rel not in (None, v.rel)]
        if other:
            i, e = _closest(v, same_slot)
            rep.conflicts.append(Conflict(v, e, i, _marks_of(v, e)))
        else:
            rep.agreed.append((v, anywhere[0][1], anywhere[0][0]))


def ages_between(born: Value, died: Value) -> set[int]:
    """The ages at death two dates allow: one when both give the day, else the two around the
    difference of the years."""
    if born.year is None or died.year is None or born.decade or died.decade:
        return set()
    years = died.year - born.year
    if None not in (born.month, born.day, died.month, died.day):
        return {years - int((died.month, died.day) < (born.month, born.day))}
    return {years - 1, years}


# Chinese, Japanese and Korean sources often count a life's years from one at birth (虚岁, 세는나이):
# there an age one above the years lived agrees too
NOMINAL_AGE_LANGS = frozenset({"zh", "yue", "ja", "ko"})


def _check_age(v: Value, evs: list[TextValues], order: list[int], rep: SlotReport, lang: str = "") -> None:
    """"Died at the age of 66": against an age the evidence gives, else against the subject's birth
    and death dates; missing when it has neither."""
    ages = [(i, e) for i in order for e in evs[i].values if e.kind == "age"]
    if ages:
        ok = [(i, e) for i, e in ages if e.num == v.num]
        i, e = (ok or ages)[0]
        if ok:
            rep.agreed.append((v, e, i))
        else:
            rep.conflicts.append(Conflict(v, e, i, [(v.start, v.end)]))
        return
    born = [(i, e) for i in order for e in evs[i].values if e.kind == "date" and e.rel == "born"]
    died = [(i, e) for i in order for e in evs[i].values if e.kind == "date" and e.rel == "died"]
    if not born or not died:
        rep.missing.append(v)
        return
    # every birth and death date the evidence gives the subject may be the one (an infobox's stray
    # range, a year alone beside the full date): a conflict only when no pair allows the age
    pairs = [(b, i, d, ages_between(b, d)) for _ib, b in born for i, d in died]
    if lang in NOMINAL_AGE_LANGS:
        pairs = [(b, i, d, ages | {a + 1 for a in ages}) for b, i, d, ages in pairs]
    pairs = [x for x in pairs if x[3]]
    if not pairs:
        rep.missing.append(v)
        return
    fits = [x for x in pairs if int(v.num or 0) in x[3]]
    if fits:
        rep.agreed.append((v, fits[0][2], fits[0][1]))
        return
    b, i, d, possible = pairs[0]
    shown = "/".join(str(a) for a in sorted(possible)) + f" ({b.text} – {d.text})"
    rep.conflicts.append(Conflict(v, Value("age", d.start, d.end, shown, num=float(min(possible)), rel="died"),
                                  i, [(v.start, v.end)]))


def _passage_values(passages: Sequence[tuple[str, str]], lang: str, entity: str) -> list[TextValues]:
    """The values of each passage, read in its language: a passage of no declared language in the one
    it is written in (a French lead given to a German claim: "à Varsovie" is a place although German
    would want "in" before it)."""
    out = [text_values(t, plang or _detected(t) or lang, entity, _langs_of(t, lang)) for t, plang in passages]
    # a bound in the evidence ("born before 1900") is no date to compare a fact's with
    return [tv if not any(v.qual for v in tv.values) else TextValues([v for v in tv.values if not v.qual], tv.words)
            for tv in out]


def _read_statements(rep: SlotReport, fact: str, lang: str, passages: Sequence[tuple[str, str]],
                     tagged: Sequence[tuple[str, tuple[str, ...]]], entity: str, order: list[int]) -> None:
    """The fact's occupation and nationality words against the evidence's statements about the subject
    (stated.py): all confirmed (`rep.stated`), or the first one contradicted (`rep.unstated`)."""
    got = read_statements(fact, lang, tagged, entity, order)
    rep.concepts = got.words
    if got.sure():
        rep.stated = got.words
    elif got.wrong is not None and not got.unsure:
        a, b, kind, (i, x, y) = got.wrong
        fv = Value(kind, a, b, fact[a:b], rel=kind)
        rep.unstated = Conflict(fv, Value(kind, x, y, passages[i][0][x:y]), i, [(a, b)])


def _subject_conflicts(fact: str, fv: TextValues, lang: str, passages: Sequence[tuple[str, str]],
                       tagged: Sequence[tuple[str, tuple[str, ...]]], entity: str, order: list[int]) -> list[Conflict]:
    """What the fact says of its subject that the evidence contradicts: a relative, a nationality or
    an occupation, an age at a dated event."""
    return (_kin_conflicts(fact, lang, tagged, entity, order) + _nationality_conflicts(fact, lang, tagged, entity, order)
            + _event_age_conflicts(fact, fv, lang, passages, entity, order))


def _kin_conflicts(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]], entity: str,
                   order: list[int]) -> list[Conflict]:
    """Family roles the evidence contradicts (kinship.py): the wrong kinship word ("mother" where
    the evidence calls that person her husband) or the wrong name (another father). `passages`:
    (text, its languages) each."""
    found = kin_conflicts(fact, lang, passages, entity, order)
    out = []
    for k in found:
        f, e = k.fact, k.evidence
        if k.wrong == "role":
            fv = Value("role", *f.kin_span, fact[f.kin_span[0]:f.kin_span[1]], rel=f"role of {f.name}")
            ev = Value("role", *e.kin_span, passages[k.passage][0][e.kin_span[0]:e.kin_span[1]])
        else:
            fv = Value("person", *f.name_span, f.name, rel=f.role)
            ev = Value("person", *e.name_span, e.name)
        out.append(Conflict(fv, ev, k.passage, [(fv.start, fv.end)]))
    return out


def _nationality_conflicts(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]], entity: str,
                           order: list[int]) -> list[Conflict]:
    """A nationality the evidence's statements about the subject contradict (nationality.py), and an
    occupation they leave out where no passage names that kind of work (occupation.py)."""
    out = []
    found: list = [("nationality", k) for k in nationality_conflicts(fact, lang, passages, entity, order)]
    found += [("occupation", k) for k in occupation_conflicts(fact, lang, passages, entity, order)]
    for kind, k in found:
        _c, a, b = k.fact_word
        _e, x, y = k.evidence_word
        fv = Value(kind, a, b, fact[a:b], rel=kind)
        ev = Value(kind, x, y, passages[k.passage][0][x:y])
        out.append(Conflict(fv, ev, k.passage, [(a, b)]))
    return out


def _count_conflicts(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]],
                     order: list[int]) -> list[Conflict]:
    """Counts the evidence gives other numbers for the same noun (counts.py)."""
    out = []
    for k in count_conflicts(fact, lang, passages, order):
        f, e = k.fact, k.evidence
        fv = Value("count", f.start, f.end, fact[f.start:f.end], num=float(f.n))
        ev = Value("count", e.start, e.end, passages[k.passage][0][e.start:e.end], num=float(e.n))
        out.append(Conflict(fv, ev, k.passage, [(f.start, f.end)]))
    return out


def _event_age_conflicts(fact: str, fv: TextValues, lang: str, passages: Sequence[tuple[str, str]], entity: str,
                         order: list[int]) -> list[Conflict]:
    """An age at a dated event that the subject's birth year contradicts ("In 1891 she moved to Paris
    at the age of 30" against "Marie Curie (7 November 1867 – ...)": 23 or 24). Only for a fact with
    one age, not at death (that is `_check_age`'s), and one year, in one clause, and an evidence whose
    births of the subject all fall in one year."""
    ages = _ages(fact, [], after=False)      # not "o sırada 73 yaşında olan yazarı": the writer's age
    years = {v.year for v in fv.values if v.kind == "date" and v.year is not None and not v.decade and v.rel is None}
    if len(ages) != 1 or len(years) != 1 or any(v.kind == "age" for v in fv.values) \
            or any(rel == "died" for _s, _e, rel in _relation_hits(fact, lang)):
        return []                 # an age at someone's death ("Kafková zemřela ... ve věku 57 let")
    age, year = ages[0], next(iter(years))
    date = next(v for v in fv.values if v.kind == "date" and v.year == year)
    gap = fact[min(age.end, date.end):max(age.start, date.start)]
    if _breaks(fact, min(age.end, date.end), max(age.start, date.start)) and not set(
            w.lower() for w in _GAP_WORD.findall(gap)) <= _AGE_WORDS:
        return []                 # another clause's age; "In 1891, aged 24," is one
    evs = _passage_values(passages, lang, entity)
    births = [(i, e) for i in order for e in evs[i].values
              if e.kind == "date" and e.rel == "born" and e.year is not None and not e.decade and (entity or not e.holder)]
    born = {e.year for _i, e in births if e.year is not None}
    if len(born) != 1:
        return []
    b = next(iter(born))
    possible = {year - b - 1, year - b} | ({year - b + 1} if lang in NOMINAL_AGE_LANGS else set())
    if int(age.num or 0) in possible:
        return []
    i, e = births[0]
    shown = "/".join(str(a) for a in sorted(possible)) + f" (born {e.text})"
    return [Conflict(age, Value("age", e.start, e.end, shown, num=float(min(possible)), rel="born"), i,
                     [(age.start, age.end)])]


@functools.lru_cache(maxsize=2048)
def _detected(text: str) -> str:
    """The language a passage is written in (its declared one may be the claim's)."""
    try:
        from ...langid import langid_detect
        return langid_detect(text[:600])[0]
    except Exception:  # noqa: BLE001 - detection is a hint; without it the declared language counts
        return ""


def _langs_of(text: str, fact_lang: str) -> tuple[str, ...]:
    det = _detected(text)
    return tuple(dict.fromkeys(x for x in (fact_lang, det) if x))


PLACE_TOLD = 15     # words after an evidence place that may name the region or country it lies in
# what ends the words that tell where a place lies: another clause, not a comma
_PLACE_TOLD_END = re.compile(rf"{_CLAUSE_MARKS}|{_COORDINATOR}|\)")


@functools.lru_cache(maxsize=1)
def _told_stops() -> frozenset[str]:
    """The relation words of every language, lower case (born, died, geboren, starb ...)."""
    return frozenset(w.lower() for table in relation_words().values() for words in table.values() for w in words)


def _told_with(v: Value, e: Value, words: Sequence[tuple[str, int, int]], text: str) -> bool:
    """Whether the words of place `v` (5-letter prefixes, accents folded) all stand within PLACE_TOLD
    words after the evidence's place `e`, in its clause (commas go on; a sentence's end, another
    clause or a relation word stop it): the larger place it lies in, told with it ("Passy, in
    Haute-Savoie, France"; "Warsaw, in what was then the Kingdom of Poland, part of the Russian
    Empire"), not the place of the next event ("born in Warsaw and died in Paris")."""
    mine = {_fold(w)[:5] for w in re.findall(r"\w+", v.text) if w[:1].isupper()}
    if not mine:
        return False
    _i, j = _around(words, e.start, e.end)
    after, end = [], e.end
    for w, a, b in words[j:j + PLACE_TOLD]:
        if _SENTENCE_END.search(text, end, a) or _PLACE_TOLD_END.search(text, end, a) or w.lower() in _told_stops():
            break
        after.append(_fold(w)[:5])
        end = b
    return mine <= set(after)


def _named_elsewhere(v: Value, evs: list[TextValues], order: list[int], same_name: NameMatcher) -> bool:
    return any(e.kind == "place" and e.rel != v.rel and same_name(v.text, e.text) for i in order for e in evs[i].values)


def _closest(v: Value, cands: list[tuple[int, Value]]) -> tuple[int, Value]:
    """The candidate that disagrees least (a date with the most parts in common)."""
    if v.kind == "date":
        return min(cands, key=lambda ie: len(date_diff(v, ie[1])))
    return cands[0]


_SENT_END = re.compile(r"(?<=[.!?。！？])\s*|\n+")
# what a period with a space after it does not end: an ordinal or a day ("18. yüzyılda", "am 6. August
# 1930", "1. Weltkrieg"), an initial ("J. S. Bach"), or a sentence going on in lower case ("1881.
# március 25.")
_NO_END_BEFORE = re.compile(r"(?:^|[\s(\[])(?:\d{1,3}|[A-ZÀ-ÖØ-ÞА-ЯЁ])\.$")


@functools.lru_cache(maxsize=2048)
def sentence_starts(text: str) -> tuple[int, ...]:
    """The offsets where the sentences of `text` start (0 first): after a sentence mark and a space
    (none needed after a full-width one), or a line break."""
    out = [0]
    for m in _SENT_END.finditer(text):
        gap = text[m.start():m.end()]
        if "\n" not in gap:
            mark = text[m.start() - 1:m.start()]
            if mark in ".!?" and not gap:
                continue                        # "3.5", "U.S.": no space, no end
            nxt = text[m.end():m.end() + 1]
            if mark == "." and (nxt.islower() or _NO_END_BEFORE.search(text, max(0, m.start() - 6), m.start())):
                continue
        if m.end() < len(text) and m.end() != out[-1]:
            out.append(m.end())
    return tuple(out)


def _sentence_around(text: str, at: int) -> tuple[int, int]:
    """(start, end) of the sentence of `text` that holds offset `at`."""
    starts = sentence_starts(text)
    k = bisect.bisect_right(starts, at)
    return starts[k - 1], starts[k] if k < len(starts) else len(text)


MATCH_SHARE = 0.6   # the share of the fact's content words an evidence sentence holds to speak for it


def _best_sentence(fact_content: set[str], passages: Sequence[tuple[str, str]],
                   order: list[int], han: bool = False) -> tuple[float, int, int, int] | None:
    """(share, passage, start, end) of the evidence sentence holding the largest share of the fact's
    content words (the first of equal ones, in `order`)."""
    best: tuple[float, int, int, int] | None = None
    for i in order:
        for s, e, words in _sentence_words(passages[i][0], han):
            share = len(fact_content & words) / len(fact_content)
            if best is None or share > best[0]:
                best = (share, i, s, e)
    return best


def _matching_sentence_value(v: Value, fact_content: set[str], passages: Sequence[tuple[str, str]],
                             evs: list[TextValues], order: list[int], lang: str) -> tuple[int, Value] | None:
    """The value of `v`'s kind in the evidence sentence that holds MATCH_SHARE of the fact's content
    words, where the evidence lacks `v` (the value the fact rewrote). A fact of one content word
    ("1948'de tutuklandı": Turkish drops the subject) speaks of the one sentence that holds it, when
    no other does and that sentence has one value of the kind."""
    if not fact_content or (len(fact_content) < 2 and lang in SPACELESS):
        return None
    best = _best_sentence(fact_content, passages, order)
    if best is None or best[0] < MATCH_SHARE:
        return None
    _share, i, s, e = best
    same = [x for x in evs[i].values if s <= x.start and x.end <= e and _same_kind(v, x)]
    if not same:
        return None
    if len(fact_content) == 1 and (len(same) > 1 or sum(
            bool(fact_content & ws) for t, _l in passages for _s, _e, ws in _sentence_words(t)) > 1):
        return None
    # several: the one among the fact's own words ("окончил в 1855", not "в 1850 году поступил")
    return i, max(same, key=lambda x: len(_near_words(evs[i].words, x) & fact_content))


def _around(words: Sequence[tuple[str, int, int]], start: int, end: int) -> tuple[int, int]:
    """(i, j): words[:i] end at or before `start`, words[j:] start at or after `end`."""
    return bisect.bisect_right(words, start, key=lambda w: w[2]), bisect.bisect_left(words, end, key=lambda w: w[1])


def _near_words(words: Sequence[tuple[str, int, int]], x: Value, n: int = 3) -> set[str]:
    """The content words (5-letter prefixes, as `_sentence_words`) within `n` words of value `x`."""
    i, j = _around(words, x.start, x.end)
    return {w.lower()[:5] for w, _a, _b in (*words[max(0, i - n):i], *words[j:j + n]) if w.lower() not in STOPWORDS}


def _moved_value(v: Value, fv: TextValues, fact_content: set[str], anywhere: list[tuple[int, Value]],
                 passages: Sequence[tuple[str, str]], evs: list[TextValues], order: list[int], lang: str,
                 same_name: NameMatcher = names_alike, fact: str = "") -> tuple[int, Value] | None:
    """A value the evidence has, but only in sentences about something else, where the evidence
    sentence that holds the fact says another value of the same kind among the fact's own words
    ("Albert ging 1896 in die Schweiz" against "Albert ging 1895 in die Schweiz, ... 1896 begann er
    sein Studium"): a year or number taken from elsewhere in the article, the binding LLMs get wrong.
    None unless (1) an evidence sentence holds MATCH_SHARE of the fact's content words, (2) no value
    of it agrees with `v`, (3) one of its values of `v`'s kind has two of the words within 3 words of
    `v` in the fact within 3 words of it too (the only one, when the fact has one there), and agrees
    with none of the fact's other values, and (4) every sentence that has `v` holds under FRAME_SHARE
    of the fact's content words and none of the words within 3 words of `v` (such a sentence may tell
    the fact's value in its own place: "shared the 1911 Nobel Prize" against "won the 1911 Nobel
    Prize" stays agreed). "1933 ging er nach Princeton" against "1894 zog die Familie nach Italien,
    Albert ging 1895 ... 1933 emigrierte er ..., wo er in Princeton lebte" stays agreed by (3): "nach"
    alone stands around 1894. Not in languages without spaces."""
    if lang in SPACELESS or v.rel is not None or len(fact_content) < 2:
        return None
    near = _near_words(fv.words, v)
    if not near:
        return None
    best = _best_sentence(fact_content, passages, order)
    if best is None or best[0] < MATCH_SHARE:
        return None
    _share, i, s, e = best
    inside = [x for j, x in anywhere if j == i and s <= x.start and x.end <= e]
    if inside:
        return _clause_swap(v, fact, fv, inside, passages[i][0], evs[i], (s, e, i), same_name)
    # not a value that agrees with another of the fact's ("in Ulm" of "in Ulm, Deutschland")
    same = [(len(_near_words(evs[i].words, x) & near), x) for x in evs[i].values
            if s <= x.start and x.end <= e and _same_kind(v, x)
            and not any(values_agree(o, x, same_name) for o in fv.values if o is not v)]
    same = [(k, x) for k, x in same if k >= min(2, len(near))]
    if not same:
        return None
    other = max(same, key=lambda kx: kx[0])[1]
    # the fact's words around its value that the other value lacks: "году" and "à" stand by every year
    own = near - _near_words(evs[i].words, other)
    for j, x in anywhere:
        if (_near_words(evs[j].words, x) & own
                or len(fact_content & _words_of_sentence(passages[j][0], x)) >= FRAME_SHARE * len(fact_content)):
            return None
    return i, other


def _other_award(v: Value, fact: str, fv: TextValues, anywhere: list[tuple[int, Value]],
                 passages: Sequence[tuple[str, str]], evs: list[TextValues], order: list[int], lang: str,
                 same_name: NameMatcher = names_alike) -> tuple[int, Value] | None:
    """A prize, marriage or foundation whose year belongs to another one ("He won the Nobel Prize in
    1953" against "He won the Pulitzer Prize in 1953 ... He was awarded the Nobel Prize in 1954"; "In
    1926 he married Hadley" against "In 1921 he married Hadley ... published ... in 1926"). A person
    may win or marry more than once, so a year the evidence has anywhere agreed before. Now: the
    evidence sentence holding MATCH_SHARE of the fact's content words gives this relation another
    value of the kind, none that agrees, and every sentence holding the fact's value holds fewer of
    the fact's content words than it (a tie stays agreed: "In 1954 he won the Nobel Prize" against
    both sentences above). Dates only: a count or score won differs from one season to the next ("7881
    Punkte"). In Chinese the "words" are pairs of Han characters (`han_pairs`, "莫言于1987年获得诺贝尔文学奖"
    against "2012年获得诺贝尔文学奖"); not in Japanese."""
    han = lang in HAN_LANGS
    if v.rel not in MANY or v.kind != "date" or (lang in SPACELESS and not han):
        return None
    spans = [(x.start, x.end) for x in fv.values]
    fact_content = set(han_pairs(fact, spans)) if han else _content(fact, fv.words, fv.values)
    if len(fact_content) < 2:
        return None
    best = _best_sentence(fact_content, passages, order, han)
    if best is None or best[0] < MATCH_SHARE:
        return None
    share, i, s, e = best
    inside = [x for x in evs[i].values if s <= x.start and x.end <= e and _same_kind(v, x)]
    other = [x for x in inside if x.rel == v.rel]
    if not other or any(values_agree(v, x, same_name) for x in inside):
        return None
    held = share * len(fact_content) - 1e-9
    if any(len(fact_content & _words_of_sentence(passages[j][0], x, han)) >= held for j, x in anywhere):
        return None
    return i, other[0]


def _clause_swap(v: Value, fact: str, fv: TextValues, inside: list[Value], text: str, ev: TextValues,
                 where: tuple[int, int, int], same_name: NameMatcher) -> tuple[int, Value] | None:
    """The sentence that holds the fact has its value, but in a clause about another name, while the
    fact's name stands in another clause with another value of the kind ("Er zog 1894 in die
    Schweiz" against "1894 zog die Familie nach Italien, Albert ging 1895 in die Schweiz"): a year
    joined to the next clause's place. None unless the fact's year and names (capitalised words after
    its first) stand in one clause of the fact; the clause of every agreeing value holds none of those
    names, and either a name of its own or none of the fact's other words ("1950'de serbest bırakıldı
    ve 1951'de Türkiye'den ayrıldı"); and one other clause holds a fact's name and one value of the
    kind that agrees with none of the fact's."""
    s, e, i = where
    if v.kind != "date" or v.year is None:
        return None
    fa, fb = next(((a, b) for a, b in _clauses(fact, 0, len(fact)) if a <= v.start < b), (0, 0))
    names = {w.lower() for w, a, _b in fv.words[1:] if w[:1].isupper() and fa <= a < fb
             and not _overlaps(a, a + len(w), [(v.start, v.end)])}
    if not names:
        return None               # the fact's year and its names: one clause of the fact
    content = {w.lower()[:5] for w, a, b in fv.words if w.lower() not in STOPWORDS and not _overlaps(a, b, [(v.start, v.end)])}
    clauses = _clauses(text, s, e)
    def words_in(a: int, b: int) -> list[str]:
        return [w for w, x, _y in ev.words if a <= x < b]
    def clause_of(x: Value) -> tuple[int, int]:
        return next((a, b) for a, b in clauses if a <= x.start < b)
    for x in inside:
        a, b = clause_of(x)
        mine = words_in(a, b)
        own = [w for w in mine if w[:1].isupper() and w.lower() not in names and text[a:b].find(w) > 0]
        if any(w.lower() in names for w in mine) or not (own or not content & {w.lower()[:5] for w in mine if
                                                                               not any(c.isdigit() for c in w)}):
            return None           # about something else: a name of its own, or none of the fact's words
    for a, b in clauses:
        if any(a <= x.start < b for x in inside) or not any(w.lower() in names for w in words_in(a, b)):
            continue
        other = [y for y in ev.values if a <= y.start < b and _same_kind(v, y)
                 and not any(values_agree(o, y, same_name) for o in fv.values)]
        if len(other) == 1:
            return i, other[0]
    return None


def _clauses(text: str, s: int, e: int) -> list[tuple[int, int]]:
    """The clauses of text[s:e] (`_CLAUSE_BREAK` marks their ends), as (start, end)."""
    cuts = [s, *(m.end() for m in _CLAUSE_BREAK.finditer(text, s, e)), e]
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


FRAME_WORDS = 2     # words on each side of a value that must read the same around the evidence's
FRAME_SHARE = 0.4   # and the share of the fact's content words that the evidence's sentence must hold


def _frame(words: Sequence[tuple[str, int, int]], start: int, end: int) -> tuple[str, ...] | None:
    """The FRAME_WORDS words before `start` and after `end` (lower case), None when either side has
    fewer."""
    i, j = _around(words, start, end)
    if i < FRAME_WORDS or len(words) - j < FRAME_WORDS:
        return None
    return tuple(w.lower() for w, _a, _b in (*words[i - FRAME_WORDS:i], *words[j:j + FRAME_WORDS]))


def _framed_value(v: Value, fact_words: Sequence[tuple[str, int, int]], fact_content: set[str],
                  passages: Sequence[tuple[str, str]], evs: list[TextValues], order: list[int],
                  lang: str) -> tuple[int, Value] | None:
    """An evidence value of the same kind standing between the same words as `v` ("shared the 1905
    Nobel Prize" against "shared the 1903 Nobel Prize"), in a sentence holding FRAME_SHARE of the
    fact's content words: the value the fact rewrote, where no evidence sentence holds enough of the
    fact to say so alone (a fact fusing two sentences). Without the share, the frame alone called
    0.5% of the held-out articles' own sentences with a number wrong ("the 2002 season" against
    "the 2006 season"), 0.2% with it. Not in languages without spaces, whose "words" are runs of
    characters."""
    if lang in SPACELESS:
        return None
    frame = _frame(fact_words, v.start, v.end)
    if frame is None or not fact_content:
        return None
    for i in order:
        for x in evs[i].values:
            if _same_kind(v, x) and _frame(evs[i].words, x.start, x.end) == frame:
                if len(fact_content & _words_of_sentence(passages[i][0], x)) >= FRAME_SHARE * len(fact_content):
                    return i, x
    return None


@functools.lru_cache(maxsize=512)
def _sentence_words(text: str, han: bool = False) -> tuple[tuple[int, int, frozenset[str]], ...]:
    """Each sentence of a passage (start, end) with its content words (cached by text); `han`: its
    pairs of Han characters instead (`han_pairs`), Chinese having no spaces between words."""
    out = []
    starts = sentence_starts(text)
    for s, nxt in zip(starts, [*starts[1:], len(text)]):
        part = text[s:nxt]
        words = han_pairs(part) if han else frozenset(
            w.lower()[:5] for w, _a, _b in words_with_offsets(part) if w.lower() not in STOPWORDS)
        out.append((s, s + len(part.rstrip()), words))
    return tuple(out)


_HAN_CHAR = re.compile(r"[\u4e00-\u9fff]")


def han_pairs(text: str, spans: Sequence[tuple[int, int]] = ()) -> frozenset[str]:
    """The pairs of adjacent Han characters of `text` ("获得诺贝尔" -> 获得, 得诺, 诺贝, 贝尔), none
    that overlaps `spans` (the values)."""
    return frozenset(text[k:k + 2] for k in range(len(text) - 1)
                     if _HAN_CHAR.match(text, k) and _HAN_CHAR.match(text, k + 1) and not _overlaps(k, k + 2, spans))


def _words_of_sentence(text: str, x: Value, han: bool = False) -> frozenset[str]:
    """The content words (`_sentence_words`) of the sentence of `text` that holds value `x`."""
    return next((ws for s, e, ws in _sentence_words(text, han) if s <= x.start and x.end <= e), frozenset())


def _same_kind(a: Value, b: Value) -> bool:
    if a.kind == "date" and b.kind == "date":
        return (a.day is None) == (b.day is None) or (a.year is not None and b.year is not None)
    return a.kind == b.kind and a.unit == b.unit
