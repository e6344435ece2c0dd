"""Counts in the slot checks: "у них было три дочери" against "У них родились две дочери",
"Mit seiner Frau Katia hatte er vier Kinder" against "... mit der er sechs Kinder hatte".

A *count* is a cardinal number written as a word (`data/number_words.json`; Chinese numerals)
right before the noun it counts, in the same clause: "three daughters", "sechs Kinder", "üç
çocuğu", "ثلاث بنات", "三个女儿". Numbers in digits are the other slot checks' (they compare them
by the sentence around them). Its noun is the one or two words after the number (adjectives may stand
between: "drei große Romane"); nouns match by a common beginning, so that inflected forms agree
("дочери"/"дочерей", "Kinder"/"Kindern", "çocuk"/"çocuğu").

A fact's count conflicts when the evidence counts the same noun, never with the fact's number, and
with another number: the wrong number is marked. Anything less is no conflict: a noun the evidence
does not count, or counts with the fact's number somewhere ("two of his six children"). Counts are
compared within one language: "three daughters" against "две дочери" is left to the detector.

"One" is not a count (it is the indefinite article in most languages); numbers with a unit (%),
dates and years are the other slot checks' values.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Sequence

from ..text.textutil import HAN_LANGS, STOPWORDS, data_json, fold_accents, han_simplified, lowered, words_with_offsets

NOUN_WORDS = 2           # words after the number read as its noun (and adjectives before it)
MIN_PREFIX = 3           # nouns match by a common beginning of at least this many letters ...
MAX_PREFIX = 5           # ... and of all but one letter of the shorter one, up to this many

_GAP = re.compile(r"\s+")                                  # only spaces between a number and its noun
_ARABIC_PROCLITIC = re.compile(r"^[وفب](?=..)")            # "وثلاث بنات": and three daughters
_HEBREW_PROCLITIC = re.compile(r"^[ו](?=..)")
_PROCLITIC = {"ar": _ARABIC_PROCLITIC, "fa": _ARABIC_PROCLITIC, "ur": _ARABIC_PROCLITIC, "sd": _ARABIC_PROCLITIC,
              "he": _HEBREW_PROCLITIC}

# Chinese and Cantonese: a numeral, a classifier, the noun ("三个女儿", "两部小说", "兩子")
_HAN_DIGITS = {"一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CLASSIFIERS = "个個位名部本首张張座次场場家条條只隻间間所项項届屆枚种種支队隊篇份件架艘辆輛"
_HAN_COUNT = re.compile(r"(?<![第\d一二两兩三四五六七八九十百千万萬])([二两兩三四五六七八九十]{1,3})"
                        rf"([{_CLASSIFIERS}]?)([\u4e00-\u9fff]{{1,2}})")
_NOT_NOUN_HAN = set("月日年号號时時点點分秒倍成世百千万萬亿億")
_HAN_MEASURES = "岁"           # a count whose noun is its measure: an age ("四岁的她" against "三歲的波曼")
# an ordinal and what it ranks: "第六十二届" (the 62nd edition), "第83届", "第三任"
_HAN_WAR = re.compile(r"\w{0,3}战")     # "第一次世界大战", "第二次鸦片战争": names, not ranks an answer recounts
_HAN_ORDINAL = re.compile(r"第([一二三四五六七八九十百]{1,4}|\d{1,4})([届次任期季集轮部])")


@dataclass(frozen=True)
class Count:
    """A number before the noun it counts."""
    n: int
    start: int              # the number's characters
    end: int
    nouns: tuple[str, ...]  # the folded words after it (a Chinese count: its noun's characters)
    classified: bool = False    # Chinese: a classifier stands between number and noun
    ordinal: bool = False       # Chinese: "第N" and what it ranks, compared with ordinals only


_FOLDED = frozenset({"ar", "fa", "ur", "sd", "he"})     # scripts whose marks are often left out


def _fold(word: str, lang: str) -> str:
    """A word as counts compare it: lower case; without marks in the Arabic and Hebrew scripts only
    (elsewhere they tell words apart: Vietnamese "tấm", a sheet, is not "tám", eight)."""
    w = lowered(word)
    return fold_accents(w) if lang in _FOLDED else w


@functools.lru_cache(maxsize=None)
def _words_table(lang: str) -> dict[str, int]:
    table = data_json("number_words.json").get(lang, {})
    return {_fold(w, lang): int(n) for n, ws in table.items() for w in ws}


_DURATIONS = ("duration-year", "duration-month", "duration-week", "duration-day", "duration-hour",
              "duration-minute", "duration-century", "duration-decade")


@functools.lru_cache(maxsize=None)
def duration_words(lang: str) -> frozenset[str]:
    """A language's words for years, months, weeks, days, hours, minutes, decades and centuries
    (CLDR's unit patterns through Babel; folded): "three years later" and "for two years" count
    time, which sentences about different things do in different numbers."""
    try:
        from babel import Locale
        patterns = Locale.parse(lang)._data["unit_patterns"]
    except Exception:  # noqa: BLE001 - a language Babel lacks: no duration words
        return frozenset()
    found: set[str] = set()

    def walk(d: object) -> None:
        if isinstance(d, str):
            found.update(w for w in d.replace("{0}", " ").split() if "/" not in w and w.strip(".").isalpha())
        elif hasattr(d, "items"):
            for k, v in d.items():
                if k != "per":          # "{0} per year", "{0} في السنة"
                    walk(v)
    for unit in _DURATIONS:
        if unit in patterns:
            walk(patterns[unit])
    folded = {_fold(w.strip("."), lang) for w in found}
    return frozenset(w for w in folded if len(w) >= 2 and w not in STOPWORDS and w not in _words_table(lang))


def _is_duration(noun: str, lang: str) -> bool:
    """A duration word, or one with a short ending ("yılını", "Jahren"; not "ministers" for "min")."""
    return any(noun == u or len(u) >= 3 and noun.startswith(u) and (len(u) >= 4 or len(noun) - len(u) <= 4)
               for u in duration_words(lang))


def _han_number(s: str) -> int:
    if s.isdecimal():
        return int(s)
    if s == "十":
        return 10
    if s.startswith("十"):
        return 10 + _HAN_DIGITS.get(s[1:], 0)
    if s.endswith("十"):
        return 10 * _HAN_DIGITS.get(s[:-1], 0)
    if "十" in s:
        a, b = s.split("十", 1)
        return 10 * _HAN_DIGITS.get(a, 0) + _HAN_DIGITS.get(b, 0)
    return _HAN_DIGITS.get(s, 0) if len(s) == 1 else 0


@functools.lru_cache(maxsize=1024)
def counts(text: str, lang: str) -> tuple[Count, ...]:
    """Every count of `text` (cached by text and language)."""
    if lang in HAN_LANGS:
        return tuple(_han_counts(text))
    table = _words_table(lang)
    if not table:
        return ()
    toks = words_with_offsets(text)
    out = []
    for k, (tok, a, b) in enumerate(toks):
        n = _number(tok, table, lang)
        if n is None or n < 2:
            continue
        nouns = []
        end = b
        for w, x, y in toks[k + 1:k + 1 + NOUN_WORDS]:
            w = _fold(w, lang)
            if not _GAP.fullmatch(text[end:x]) or w in STOPWORDS or w[:1].isdigit() \
                    or _number(w, table, lang) is not None:
                break
            nouns.append(w)
            end = y
        if nouns and not _is_duration(nouns[0], lang):
            out.append(Count(n, a, b, tuple(nouns)))
    return tuple(out)


def _number(tok: str, table: dict[str, int], lang: str) -> int | None:
    if tok.isdecimal():
        return None
    w = _fold(tok, lang)
    if w in table:
        return table[w]
    proclitic = _PROCLITIC.get(lang)
    if proclitic is not None:
        return table.get(proclitic.sub("", w))
    return None


def _han_counts(text: str) -> list[Count]:
    """Counts and ordinals of a Chinese text, read in simplified characters (the same offsets)."""
    simple = han_simplified(text)
    out = []
    for m in _HAN_COUNT.finditer(simple):
        noun = m.group(3)
        if noun[0] in _NOT_NOUN_HAN:
            continue
        if noun[0] in _HAN_MEASURES:
            noun = noun[0]
        n = _han_number(m.group(1))
        if n >= 2:
            out.append(Count(n, m.start(1), m.end(1), (noun,), classified=bool(m.group(2)) or noun in _HAN_MEASURES))
    for m in _HAN_ORDINAL.finditer(simple):
        n = _han_number(m.group(1))
        if n >= 1 and not _HAN_WAR.match(simple, m.end()):
            out.append(Count(n, m.start(), m.end(1), (m.group(2),), classified=True, ordinal=True))
    return out


def _alike(a: str, b: str) -> bool:
    if a == b:
        return True
    short = min(len(a), len(b))
    if short < MIN_PREFIX:
        return False
    need = max(MIN_PREFIX, min(short, MAX_PREFIX) - 1)
    return a[:need] == b[:need]


def same_noun(a: Count, b: Count) -> bool:
    """Two counts of the same thing: a noun word in common (Chinese: the noun's first character
    after a classifier in both, else its two characters)."""
    if a.ordinal != b.ordinal:
        return False
    if a.nouns and len(a.nouns[0]) <= 2 and not a.nouns[0].isascii() and _is_han(a.nouns[0]):
        x, y = a.nouns[0], b.nouns[0] if b.nouns else ""
        if a.classified and b.classified:
            return x[:1] == y[:1]
        return len(x) == len(y) == 2 and x == y
    # the first word after each number, or the first of one against the second of the other (an
    # adjective between: "drei große Romane" and "zwei Romane"); not two second words, which are
    # often verbs ("iki çocuğu oldu", "beş yıl oldu")
    return any(_alike(x, y) for j, x in enumerate(a.nouns) for k, y in enumerate(b.nouns) if j == 0 or k == 0)


def _is_han(s: str) -> bool:
    return all("\u4e00" <= ch <= "\u9fff" for ch in s)


@dataclass(frozen=True)
class CountConflict:
    fact: Count
    evidence: Count
    passage: int


CONTEXT_SHARE = 1 / 3    # of the content words of the fact's clause around a count, the share that
                         # the evidence's sentence around the other number must hold
CONTEXT_SHARE_HAN = 0.25  # ... of its pairs of characters, in Chinese (a rewording keeps fewer pairs than words)
_CLAUSE_EDGE = re.compile(r"[,;:()\[\]–—،؛，；：（）]|\s-\s")
_SENTENCE_EDGE = re.compile(r"[.!?。！？]\s|[。！？\n]")


def _clause(text: str, at: int, edge: re.Pattern[str]) -> str:
    start = max((m.end() for m in edge.finditer(text, 0, at)), default=0)
    m = edge.search(text, at)
    return text[start:m.start() if m else len(text)]


def _context(text: str, c: Count, lang: str) -> set[str]:
    """The content words (five-letter beginnings) of the clause around count `c`, its number and
    noun left out; in Chinese, its pairs of characters."""
    if lang in HAN_LANGS:
        simple = han_simplified(text)
        return _pairs(_clause(simple, c.start, _CLAUSE_EDGE)) - _pairs(simple[c.start:c.end + 3])
    table = _words_table(lang)
    out = set()
    for w, _a, _b in words_with_offsets(_clause(text, c.start, _CLAUSE_EDGE)):
        f = _fold(w, lang)
        if f in STOPWORDS or f in table or f[:1].isdigit() or any(_alike(f, x) for x in c.nouns):
            continue
        out.add(f[:5])
    return out


def _pairs(text: str) -> set[str]:
    return {text[i:i + 2] for i in range(len(text) - 1) if _is_han(text[i:i + 2])}


def _in_context(ctx: set[str], text: str, c: Count, lang: str) -> bool:
    if not ctx:
        return True
    around = _clause(text, c.start, _SENTENCE_EDGE)
    sentence = (_pairs(han_simplified(around)) if lang in HAN_LANGS
                else {_fold(w, lang)[:5] for w, _a, _b in words_with_offsets(around)})
    return len(ctx & sentence) >= (CONTEXT_SHARE_HAN if lang in HAN_LANGS else CONTEXT_SHARE) * len(ctx)


@functools.lru_cache(maxsize=1024)
def _digit_counts(text: str, lang: str) -> tuple[Count, ...]:
    """Counts written in digits ("13 станций"), read for agreement only: a digit is the other slot
    checks' value, so it never makes a count conflict here."""
    if lang in HAN_LANGS:
        return ()
    toks = words_with_offsets(text)
    out = []
    for k, (tok, a, b) in enumerate(toks):
        before, after = text[a - 1:a] if a else " ", text[b:b + 1] or " "
        if not (tok.isdecimal() and len(tok) <= 3) or before in ".,:/" or after in ".,:/%":
            continue
        if k + 1 < len(toks) and _GAP.fullmatch(text[b:toks[k + 1][1]]):
            noun = _fold(toks[k + 1][0], lang)
            if noun[:1].isalpha() and noun not in STOPWORDS:
                out.append(Count(int(tok), a, b, (noun,)))
    return tuple(out)


def count_agreements(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]],
                     order: Sequence[int]) -> list[tuple[int, int]]:
    """The spans of the fact's counts that the evidence gives the same number for the same noun,
    in words or in digits ("тринадцать станций" against "13 станций"): the detector, which reads
    the words against the digits, flags such a count though the number is right."""
    mine = counts(fact, lang)
    if not mine:
        return []
    theirs = [c for i in order if lang in passages[i][1]
              for c in (*counts(passages[i][0], lang), *_digit_counts(passages[i][0], lang))]
    return [(fc.start, fc.end) for fc in mine if any(c.n == fc.n and same_noun(fc, c) for c in theirs)]


def count_conflicts(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]],
                    order: Sequence[int]) -> list[CountConflict]:
    """The fact's counts whose noun the evidence counts with other numbers only, one of them in a
    sentence that holds the fact's clause around the count (CONTEXT_SHARE of its content words:
    "Su ja susilaukė šešių vaikų" is no conflict with "... kiti septyni vaikai", the children of
    another mother). `passages`: (text, its languages) each; only passages in the fact's language
    are read."""
    mine = counts(fact, lang)
    if not mine:
        return []
    theirs = [(i, c) for i in order if lang in passages[i][1] for c in counts(passages[i][0], lang)]
    out = []
    for fc in mine:
        same = [(i, c) for i, c in theirs if same_noun(fc, c)]
        if not same or any(c.n == fc.n for _i, c in same):
            continue
        ctx = _context(fact, fc, lang)
        hit = next(((i, c) for i, c in same if _in_context(ctx, passages[i][0], c, lang)), None)
        if hit is not None:
            out.append(CountConflict(fc, hit[1], hit[0]))
    return out
