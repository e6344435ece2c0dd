"""Reading one text: its values with their slots (`text_values`, cached by text), the values that
are someone else's, and sentence starts."""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from . import whose
from .crossnames import names_entity, sounds_like
from .kinship import function_words, links, mentions, name_words
from .nationality import PRONOUNS
from ..text.textutil import (HAN_LANGS, POSSESSIVES, STOPWORDS, fold_accents, normalise_digits,
                       words_with_offsets)
from ..text.cldr import _fold
from .values import Value, _ages, _dates, _numbers
from .places import (
    _CLAUSE_BREAK,
    _assign,
    _bounds,
    _han_places,
    _known_places,
    _life_range,
    _open_life,
    _places,
    _relation_hits,
    _sign_holders,
    _subject_named,
)


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
    kept = [
        Value(**{**v.__dict__, "rel": None})
        if v.holder and v.rel and entity and not _subject_named(v.holder, entity) and not _known_as(text, v, entity)
        else v
        for v in kept
    ]
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
    return v.rel == "died" and any(
        rel == "died"
        and (
            e <= v.start
            and not _CLAUSE_BREAK.search(text[e : v.start])
            or lang in whose.HEAD_FINAL
            and s >= v.end
            and not _CLAUSE_BREAK.search(text[v.end : s])
        )
        for s, e, rel in hits
    )


def _cased(text: str) -> bool:
    letters = [c for c in text[:400] if c.isalpha()]
    return bool(letters) and sum(c.isupper() or c.islower() for c in letters) / len(letters) > 0.8


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
