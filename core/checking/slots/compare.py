"""Comparing values: names (folded, across scripts), dates part by part, bounds."""
from __future__ import annotations

import os
import re
from typing import Callable
from ..lexicon import gazetteer
from ..text.textutil import (scripts_of, fold_accents, han_simplified)
from .values import Value


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
