"""Relations and places: which relation word (born, died, founded, married, won) a value fills,
life ranges in parentheses and their holders, birth and death places in every script, bounds
("born before 1867")."""
from __future__ import annotations

import functools
import re
import unicodedata
from typing import Sequence
from ..lexicon import gazetteer
from . import whose
from .crossnames import other_script, same_name_word
from .kinship import name_words
from ..text.textutil import (STOPWORDS, normalise_digits,
                       words_with_offsets)
from ..text.cldr import _all_month_words, _fold
from .values import RELATIONS, Value, _overlaps, relation_words


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
_BORN_PAREN = {
    lang: re.compile(r"[(（]\s*(?:" + abbr + r")\s*([^()（）;]{4,80}?)\s*[)）;]") for lang, abbr in _BORN_ABBR.items()
}
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
_RANGE_PLACE_AFTER = re.compile(
    r"\s*,\s*(?:(?=[a-zß-ÿа-яё])\w+\s+)?([A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁЂ-ЏΑ-Ω][\w'’.-]*(?:[ \-][\w'’.-]+){0,3}?)\s*(?:,|$)"
)


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
_CAP_RUN = re.compile(
    r"(?<![\w'’-])([A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁЂ-ЏΑ-Ω][\w'’.-]*"
    r"(?:[ \-](?:(?:de|du|del|di|da|von|van|der|den|la|le|sur|am|an|upon|on)[ \-])?"
    r"[A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁЂ-ЏΑ-Ω][\w'’-]*)*)"
)


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


_IN_BEFORE = re.compile(
    r"(?<!\w)(?:в|во|из|w|we|in|im|à|en|em|na|a|u|au|nel|nella|no|din|from|aus)\s+$"
)  # "в семье учителя в Тобольске"


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
_HAN_NOT_PLACE = re.compile(
    r"^[一二三四五六七八九十两兩这這那该該此其当當]|家庭|家族|家中|世家|之家|书香|書香|年|月|日|期间|期間|时候|時候"
)
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
    "before": {
        "tr": r"['’]?\w{0,4}\s+önce|\s*yılından\s+önce",
        "zh": "之前|以前",
        "yue": "之前|以前",
        "ja": "以前|より前",
    },
    "after": {
        "tr": r"['’]?\w{0,4}\s+sonra|\s*yılından\s+sonra",
        "zh": "之后|以后|之後|以後",
        "yue": "之后|以后|之後|以後",
        "ja": "以降|以後|より後",
    },
}


@functools.lru_cache(maxsize=64)
def _bound_res(lang: str) -> list[tuple[str, re.Pattern[str] | None, re.Pattern[str] | None]]:
    out = []
    for qual in ("before", "after"):
        pre, post = _BOUND_BEFORE[qual].get(lang), _BOUND_AFTER[qual].get(lang)
        out.append(
            (
                qual,
                re.compile(r"(?<!\w)(?:" + pre + r")\s+(?:the\s+year\s+|l'an\s+|dem\s+jahr\s+)?$", re.IGNORECASE)
                if pre
                else None,
                re.compile(r"(?:" + post + ")") if post else None,
            )
        )
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
