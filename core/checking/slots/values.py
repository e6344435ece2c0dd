"""The values a text states: dates (CLDR month names, numeric and CJK forms, decades, ranges), ages,
numbers and ordinals, each a `Value` with its offsets; the relation words of `data/relations.json`."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Iterable
from ..text.textutil import data_json
from ..text.cldr import _fold, _month_regex, month_words, number_symbols

RELATIONS = ("born", "died", "founded", "married", "won")
MANY = ("founded", "married", "won")      # relations a person may fill more than once


@functools.lru_cache(maxsize=1)
def relation_words() -> dict[str, dict[str, list[str]]]:
    data = data_json("relations.json")
    return {r: {lang: [w.lower() for w in ws] for lang, ws in data[r].items()} for r in RELATIONS}


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
_NUMBER_RE = re.compile(
    r"(?<![\w.,])(" + _NUM + r")(\s?%|\s?per ?cent|\s?pour ?cent|\s?por ciento|\s?Prozent)?(?![\w])"
)


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
        if day is not None and (pair := _dual_date(text, (s, e), mo, day, parts, table)):
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


def _dual_date(text: str, span: tuple[int, int], mo: int, day: int, parts: list[tuple[int, int, str]],
               table: dict[str, int]) -> list[Value] | None:
    """"27 января [8 февраля] 1834" (the day and month [s, e) read, `span`): the date, and the bracketed
    one (`alt`) with the same year; None when no such bracket and year follow."""
    s, e = span
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
