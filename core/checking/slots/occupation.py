"""Occupations in the slot checks: "Marie Curie was a biologist" against "Marie Curie was a Polish
and naturalised-French physicist and chemist".

An *occupation statement* is a copula about the subject followed, within a few words, by
occupation nouns (the copulas, articles and subjects of `nationality.py`; the nouns are data,
`data/occupation.json`: concept -> families and forms per language), so statements in different
languages compare by the families of work they name ("physicist" and "Physikerin": phys).

A word of the fact's statements conflicts when (1) the evidence makes occupation statements about the
same subject, (2) none of their words shares a family with it, and (3) no passage holds a word of its
families anywhere ("she also sang" would not save "singer", but "the singer ..." would). A
hypernym ("scientist", "artist") lists every family below it, so it agrees with any of them.
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

from .kinship import every_kin_word
from .nationality import ARTICLES, COPULAS, PREPOSITIONS, STOP, NationalityConflict, Statement, said_of_subject
from ..text.textutil import HAN_LANGS, by_languages, data_json, fold_accents

WINDOW = 8          # words after the copula and article in which occupations count
PREFIX_MIN = 5      # a form this long also matches the words it begins ("физиком" for "физик")

_TOKEN = re.compile(r"[^\W\d_][\w'’·-]*|[–—]|[,.;:!?]")
_PARENS = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, dict[str, frozenset[str]]]:
    """language -> {folded form: the families of every concept with that form}."""
    out: dict[str, dict[str, frozenset[str]]] = {}
    for concept, entry in data_json("occupation.json").items():
        if concept.startswith("_"):
            continue
        fams = frozenset(entry["families"])
        for lang, words in entry.items():
            if lang == "families":
                continue
            for w in words:
                key = fold_accents(w)
                forms = out.setdefault(lang, {})
                forms[key] = forms.get(key, frozenset()) | fams
    return out


@functools.lru_cache(maxsize=64)
def _forms_for(langs: tuple[str, ...]) -> tuple[dict[str, frozenset[str]], tuple[str, ...], bool]:
    """({form: families} of `langs` and English, the forms of PREFIX_MIN letters or more, longest
    first, and whether German compounds count)."""
    forms = by_languages(_table(), langs)
    long = tuple(sorted((f for f in forms if len(f) >= PREFIX_MIN and " " not in f), key=len, reverse=True))
    return forms, long, "de" in langs


@functools.lru_cache(maxsize=65536)
def families_of(word: str, langs: tuple[str, ...]) -> frozenset[str]:
    """The families a word names: a form, a word a long form begins, or (German) a compound one ends."""
    forms, long, german = _forms_for(langs)
    w = fold_accents(word)
    if w in forms:
        return forms[w]
    for f in long:
        if w.startswith(f) or (german and w.endswith(f)):
            return forms[f]
    return frozenset()


@functools.lru_cache(maxsize=2048)
def statements(text: str, langs: tuple[str, ...]) -> tuple[Statement, ...]:
    """Every occupation statement in `text` ("countries" holds each word's families, joined by "|")."""
    forms = _forms_for(langs)[0]
    if not forms:
        return ()
    if langs and langs[0] in HAN_LANGS:
        return _han_statements(text, langs)
    plain = _PARENS.sub(lambda m: " " * len(m.group(0)), text)
    toks = [(m.group(0), m.start()) for m in _TOKEN.finditer(plain)]
    out: list[Statement] = []
    for i, (tok, _s) in enumerate(toks):
        if tok.lower() not in COPULAS:
            continue
        found = _words_after(text, toks, i + 1, forms, langs)
        start = max((k for k, (t, _x) in enumerate(toks[:i]) if t in STOP), default=-1) + 1
        if found and not any(t.lower() in every_kin_word() for t, _x in toks[start:i]):
            subject = " ".join(t for t, _x in toks[start:i] if t not in STOP and t != ",")
            out.append(Statement(tuple(found), subject))     # (not "his father was a merchant")
    return tuple(out)


def _words_after(text: str, toks: list[tuple[str, int]], j: int, forms: dict[str, frozenset[str]],
                 langs: tuple[str, ...]) -> list[tuple[str, int, int]]:
    """(families joined by "|", start, end) of the occupation words in the WINDOW words from token j."""
    found: list[tuple[str, int, int]] = []
    k, seen = j, 0
    while k < len(toks) and seen < WINDOW and toks[k][0] not in STOP:
        tok, s = toks[k]
        if tok == "," or tok.lower() in ARTICLES:
            k += 1
            continue
        seen += 1
        phrase = _phrase(text, toks, k, forms)       # "femme politique", "chess player"
        if phrase:
            fams, n, end = phrase
            found.append(("|".join(sorted(fams)), s, end))
            k += n
            continue
        if tok.lower() in PREPOSITIONS or tok.lower() in every_kin_word():
            break               # "Jest synem lekarza": the doctor is the father
        parts = [p for p in tok.split("-") if p]       # "singer-songwriter", "physicist-chemist"
        fams = families_of(tok, langs) or frozenset().union(*(families_of(p, langs) for p in parts))
        if fams:
            found.append(("|".join(sorted(fams)), s, s + len(tok)))
        k += 1
    return found


def _phrase(text: str, toks: list[tuple[str, int]], k: int,
            forms: dict[str, frozenset[str]]) -> tuple[frozenset[str], int, int] | None:
    """(families, words, end) of an occupation of three or two words from token k, or None."""
    for n in (3, 2):
        if k + n - 1 >= len(toks):
            continue
        last, at = toks[k + n - 1]
        fams = forms.get(fold_accents(re.sub(r"\s+", " ", text[toks[k][1]:at + len(last)])))
        if fams:
            return fams, n, at + len(last)
    return None


@functools.lru_cache(maxsize=256)
def _named_in(text: str, langs: tuple[str, ...]) -> frozenset[str]:
    """The families the words of `text` name (read once a text)."""
    if langs and langs[0] in HAN_LANGS:
        return frozenset(f for _s, _e, fams in _han_words(text, 0, len(text), langs) for f in fams)
    out: set[str] = set()
    for m in _TOKEN.finditer(text):
        if m.group(0)[:1].isalpha():
            out |= families_of(m.group(0), langs)
    return frozenset(out)


_HAN_COPULA = re.compile(r"[是係]")        # (为/為 is also "by": "為後世法學家所接受")
# a relative before the copula or in the window: the occupation is theirs ("他的父親...是...外交官",
# "是銀行家...的長子")
_HAN_KIN = re.compile(r"父[亲親]|母[亲親]|[儿兒]子|女[儿兒]|丈夫|妻子|太太|[哥姐弟妹]{2}|[长長][子女]|[次幼]子|"
                      r"祖父|祖母|爷爷|爺爺|奶奶|外公|外婆|孙|孫|老[公婆]|老豆|老母|阿[爸媽妈]")
_HAN_STOP = re.compile(r"[。！？；;!?\n]")
_HAN_CLAUSE = re.compile(r"[，,、：:（）()]")
HAN_WINDOW = 14         # characters after 是 in which occupations count ("中国著名的物理学家")


@functools.lru_cache(maxsize=16)
def _han_forms(langs: tuple[str, ...]) -> tuple[str, ...]:
    """The forms of `langs` written in Han characters, longest first."""
    return tuple(sorted((f for f in _forms_for(langs)[0] if f and "\u4e00" <= f[0] <= "\u9fff"), key=len, reverse=True))


def _han_words(text: str, a: int, b: int, langs: tuple[str, ...]) -> list[tuple[int, int, frozenset[str]]]:
    """(start, end, families) of the occupation forms inside text[a:b], longest first, not overlapping."""
    forms = _forms_for(langs)[0]
    out: list[tuple[int, int, frozenset[str]]] = []
    for f in _han_forms(langs):
        for m in re.finditer(re.escape(f), text[a:b]):
            s, e = a + m.start(), a + m.end()
            if not any(s < y and x < e for x, y, _f in out):
                out.append((s, e, forms[f]))
    return sorted(out)


def _han_statements(text: str, langs: tuple[str, ...]) -> tuple[Statement, ...]:
    """Chinese statements: 是 (係) and the occupations in the characters after it, up to a clause
    mark; the subject is what stands before it in its clause ("莫言是中国作家")."""
    out = []
    for m in _HAN_COPULA.finditer(text):
        end = m.end() + HAN_WINDOW
        cut = _HAN_CLAUSE.search(text, m.end(), end) or _HAN_STOP.search(text, m.end(), end)
        stop = cut.start() if cut else min(end, len(text))
        found = _han_words(text, m.end(), stop, langs)
        start = max((x.end() for x in (_HAN_STOP.finditer(text, 0, m.start()))), default=0)
        sent_end = _HAN_STOP.search(text, m.end())
        if not found or _HAN_KIN.search(text, start, sent_end.start() if sent_end else len(text)):
            continue
        clause = [x.end() for x in _HAN_CLAUSE.finditer(text, start, m.start())]
        subject = text[clause[-1] if clause else start:m.start()].strip()
        out.append(Statement(tuple(("|".join(sorted(f)), s, e) for s, e, f in found), subject))
    return tuple(out)


def occupation_conflicts(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]],
                         entity: str, order: Sequence[int]) -> list[NationalityConflict]:
    """The occupations of the fact's statements about the subject that the evidence's statements
    about the subject leave out, where no passage names their kind of work at all ("countries" of a
    conflict: (families, start, end))."""
    said, theirs = said_of_subject(fact, lang, passages, entity, order, statements)
    if not said or not theirs:
        return []
    known = frozenset(f for _i, w in theirs for f in w[0].split("|"))
    out = []
    for w in said:
        fams = frozenset(w[0].split("|"))
        if "*" in fams | known or fams & known or any(fams & _named_in(t, langs) for t, langs in passages):
            continue
        out.append(NationalityConflict(w, theirs[0][1], theirs[0][0]))
    return out
