"""Phrases in a clause: a date next to a place ("born on 7 November 1867 in Warsaw" gives a date
fact and a place fact), one fact per prepositional phrase, a nationality before a noun."""
from __future__ import annotations

import re

from .clauses import Draft, Span, Word, n_words, words_in
from ..lexicon.rule_words import (
    DATE_AFTER,
    DATE_POSTS,
    DATE_PREPS,
    DATE_SHAPES,
    DATE_WORDS,
    HE_IN_WORDS,
    PLACE_ENDINGS,
    PLACE_POSTS,
    PLACE_PREPS,
    PP_SPLIT,
    PREPOSITIONS,
    YEAR,
)

# languages whose date needs no preposition or postposition to count as one
_BARE_DATES = ("zh", "ja", "ko", "tr", "hi", "ur", "bn", "ru", "bg", "th", "el",
               "cs", "pl", "sr", "fi", "hu", "lt", "eu", "he", "yue")
_CASED = {"ca", "ro", "cs", "pl", "sr", "fi", "lt", "eo", "ms", "hu", "eu", "la"}
# languages whose bare year is one only with its sign ("1867年")
_YEAR_SIGN = {"yue": "年"}
_DEMONYM = re.compile(r"\b(is|was|are|were|became)\s+(an?|the)\s+((?:[A-Z][\w-]+)(?:-[A-Z][\w-]+)?)\s+(?=[a-z])")


def date_place(text: str, a: int, b: int, v0: int, carried: str | None, lang: str) -> list[Draft] | None:
    ws = words_in(text, v0, b)
    if len(ws) < 3:
        return None
    for m in YEAR.finditer(text, v0, b):
        if lang in _YEAR_SIGN and not m.group().endswith(_YEAR_SIGN[lang]):
            continue                # "有8292集": a number, not a year
        date = _date_phrase(ws, m.start(), m.end(), lang)
        if date is None:
            continue
        d0, d1 = date
        p = _place_phrase(text, ws, d0, d1, b, lang)
        if p is None:
            continue
        p0, p1 = p
        first, second = ((d0, d1), (p0, p1)) if d0 < p0 else ((p0, p1), (d0, d1))
        # fact 1: everything but the second phrase; fact 2: everything but the first
        f1 = Draft([(a, second[0]), (second[1], b)], carried, (a, first[1]))
        f2 = Draft([(a, first[0]), (first[1], b)], carried, (second[0], b))
        return [f1, f2]
    return None


def _date_phrase(ws: list[Word], y0: int, y1: int, lang: str) -> Span | None:
    idx = next((i for i, (_w, s, _e) in enumerate(ws) if s >= y0), None)
    if idx is None:
        return None
    end_idx = idx
    while end_idx + 1 < len(ws) and ws[end_idx + 1][2] <= y1:
        end_idx += 1
    start = ws[idx][1]
    end = max(y1, ws[end_idx][2])
    preps = DATE_PREPS.get(lang, set())
    cjk = lang in ("zh", "ja", "ko", "yue")
    found = False
    j = idx - 1
    while j >= 0 and idx - j <= 6:
        w = ws[j][0].lower()
        if w in preps:
            start = ws[j][1]
            found = True
            break
        if w.isdigit() or w in DATE_WORDS or w.rstrip(".") in DATE_WORDS or (cjk and w in "年月日") or _shaped(w, lang):
            start = ws[j][1]
            j -= 1
            continue
        break
    posts = DATE_POSTS.get(lang, set())
    k = end_idx + 1
    while k < len(ws) and (ws[k][0].isdigit() or ws[k][0] in "年月日년월일" or ws[k][0].lower() in DATE_AFTER
                           or ws[k][0].rstrip("일월").isdigit() or _shaped(ws[k][0], lang)):
        end = ws[k][2]
        k += 1
    if k < len(ws) and ws[k][0] in posts:
        end = ws[k][2]
        found = True
    if not found and lang not in _BARE_DATES:
        return None
    return start, end


def _shaped(word: str, lang: str) -> bool:
    shape = DATE_SHAPES.get(lang)
    return shape is not None and shape.fullmatch(word.lower()) is not None


def _gap(text: str, s: int, e: int) -> bool:
    return re.fullmatch(r"[\s,，、.]*", text[s:e]) is not None


def _place_phrase(text: str, ws: list[Word], d0: int, d1: int, b: int, lang: str) -> Span | None:
    """A place phrase right before or after the date: a place preposition and a name (cased
    scripts: capitalised words, with ", Region" parts). In Chinese a verb of a life after the place
    ("在法国去世") stays out of it: it belongs to the date's fact too."""
    found = _place_span(text, ws, d0, d1, b, lang)
    if found is None or lang not in ("zh", "yue"):
        return found
    verb = (_ZH_VERB_AFTER_PLACE if lang == "zh" else _YUE_VERB_AFTER_PLACE).search(text, found[0] + 2, found[1])
    if verb is None and lang == "yue":
        return None         # Cantonese: only a place of a life's event ("喺華沙出世"), not any "喺 ..."
    return (found[0], verb.start()) if verb else found


def _place_span(text: str, ws: list[Word], d0: int, d1: int, b: int, lang: str) -> Span | None:
    preps = PLACE_PREPS.get(lang, set())
    # the languages added for mFAVA (rules v19) read their script's case even where no word after the
    # verb is capitalised ("založena v roce 1980": "roce" is no place)
    cased = any(w[:1].isupper() for w, _s, _e in ws) or (lang in _CASED and any(c.isupper() for c in text))
    after = [w for w in ws if w[1] >= d1]
    before = [w for w in ws if w[2] <= d0]
    if after and _gap(text, d1, after[0][1]) and after[0][0].lower() in preps and len(after) > 1:
        names = _name_run(text, after[1:], cased, lang)
        if names is not None:
            return after[0][1], names
    found = _place_after(text, after, d1, b, lang)
    if found is not None:
        return found
    # before the date
    if before and _gap(text, before[-1][2], d0):
        for i in range(len(before) - 1, max(-1, len(before) - 6), -1):
            if before[i][0].lower() in preps and i < len(before) - 1:
                run = before[i + 1:]
                if not cased or all(w[0][:1].isupper() for w in run):
                    return before[i][1], before[-1][2]
                break
    return None


# verbs of a life that follow the place they happen at in Chinese ("在巴黎去世", "在华沙出生")
_ZH_VERB_AFTER_PLACE = re.compile(
    r"(?:出生|诞生|去世|逝世|病逝|过世|死亡|逝|死|工作|学习|生活|定居|长大|任教|居住|结婚|成婚|"
    r"毕业|登基|即位|被捕|被杀|遇刺|下葬|安葬)(?:了)?$"
)


_YUE_VERB_AFTER_PLACE = re.compile(
    r"(?:出世|出生|過身|过身|去世|逝世|死|返工|做嘢|讀書|读书|住|結婚|结婚|畢業|毕业)(?:咗)?$"
)
_PLACE_MARKS = {"zh": r"[于在]", "yue": r"[喺響响]"}


def _place_after(text: str, after: list[Word], d1: int, b: int, lang: str) -> Span | None:
    """A place after the date in the languages that mark it in the word itself or after it."""
    if lang in _PLACE_MARKS:
        m = re.search(_PLACE_MARKS[lang], text[d1:b])
        if m:
            end = re.search(r"[，,。；]|$", text[d1 + m.end():b])
            assert end is not None   # `$` always matches
            return d1 + m.start(), d1 + m.end() + end.start()
    if lang in ("ja",) and after:
        m = re.match(r"\s*([\u30a0-\u30ff\u4e00-\u9fff]+)で", text[d1:b])
        if m:
            return d1 + m.start(1), d1 + m.end()
    if lang == "ko":
        m = re.match(r"\s*(\S+에서)", text[d1:b])
        if m:
            return d1 + m.start(1), d1 + m.end(1)
    if lang == "th":
        m = re.match(r"\s*((?:ที่|ใน)\S+)", text[d1:b])
        if m:
            return d1 + m.start(1), d1 + m.end(1)
    if lang == "tr" and after and re.search(r"['’](?:da|de|ta|te)$", after[0][0]):
        return after[0][1], after[0][2]
    if lang == "bn" and after and re.search(r"(?:তে|য়|ে)$", after[0][0]) and not after[0][0][0].isdigit():
        return after[0][1], after[0][2]
    ending = PLACE_ENDINGS.get(lang)
    if ending is not None:
        return _place_ending(after, ending, lang)
    if lang == "he" and after and after[0][0].startswith("ב") and len(after[0][0]) > 2 \
            and after[0][0] not in HE_IN_WORDS and not _shaped(after[0][0], lang):
        return after[0][1], after[0][2]
    if lang == "sd":       # "۾" (in) is a sign, not a word: "1867 تي وارسا ۾ پيدا ٿي"
        m = re.match(r"\s*(\S+)\s+۾(?!\S)", text[d1:b])
        return None if m is None else (d1 + m.start(1), d1 + m.end())
    posts = PLACE_POSTS.get(lang, set())
    if posts:
        for i, w in enumerate(after[:4]):
            if w[0] in posts and i > 0:
                return after[0][1], w[2]
    return None


def _place_ending(after: list[Word], ending: re.Pattern[str], lang: str) -> Span | None:
    """A capitalised name in a locative case right after the date ("1867 Varsovassa"), or in
    Hungarian after the verb that follows it ("7-én született Varsóban")."""
    for i, (w, s, e) in enumerate(after[:2 if lang == "hu" else 1]):
        if w[:1].isupper():
            return (s, e) if ending.fullmatch(w) and w[1:2].islower() else None     # not "BCEan"
        if i == 0 and lang == "hu" and not w[:1].isalpha():
            return None
    return None


def _name_run(text: str, ws: list[Word], cased: bool, lang: str) -> int | None:
    """End of a place name starting at ws[0]: capitalised words, also across ', ' (Pensacola,
    Florida); caseless scripts: up to the next comma or preposition."""
    if cased and not ws[0][0][:1].isupper():
        return None
    end = ws[0][2]
    preps = PREPOSITIONS.get(lang, set())
    for w, s, e in ws[1:]:
        between = text[end:s]
        if cased:
            if w[:1].isupper() and re.fullmatch(r"\s*,?\s*", between):
                end = e
                continue
            if w.lower() in {"de", "del", "di", "da", "upon", "on"} and between.strip() == "":
                continue
            break
        if "," in between or w.lower() in preps:
            break
        end = e
    return end


def pp_split(text: str, a: int, b: int, v0: int, carried: str | None, lang: str) -> list[Draft] | None:
    """"received his Ph.D. in physics from Harvard in 2001": one fact per prepositional phrase."""
    preps = PP_SPLIT.get(lang)
    if not preps:
        return None
    ws = words_in(text, v0, b)
    starts = [i for i, (w, _s, _e) in enumerate(ws) if w in preps and i > 0]
    if len(starts) < 2 or starts[0] < (1 if carried else 2):
        return None
    bounds = [ws[i][1] for i in starts] + [b]
    pps = [(bounds[i], bounds[i + 1]) for i in range(len(starts))]
    if any(n_words(text[p0:p1]) < 2 or n_words(text[p0:p1]) > 8 for p0, p1 in pps):
        return None
    # the phrases must hold a name or a number (not "in silent films in the 1910s" adverbs)
    if not all(re.search(r"\d", text[p0:p1]) or any(w[:1].isupper() for w, _s, _e in words_in(text, p0, p1)[1:])
               or words_in(text, p0, p1)[0][0] == "as" for p0, p1 in pps):
        return None
    head = (a, bounds[0])
    return [Draft([head, (p0, p1)], carried, (a if idx == 0 else p0, p1)) for idx, (p0, p1) in enumerate(pps)]


def demonym(text: str, a: int, b: int, carried: str | None, lang: str) -> list[Draft] | None:
    """"is an American actor" -> "is an American" + "is an actor"."""
    if lang != "en":
        return None
    m = _DEMONYM.search(text[a:b])
    if m is None:
        return None
    name_end = a + m.end(3)
    rest0 = a + m.end()
    if n_words(text[rest0:b]) < 1:
        return None
    art_end = a + m.end(2)
    return [Draft([(a, name_end)], carried, (a, name_end)),
            Draft([(a, art_end), (rest0, b)], carried, (rest0, b))]
