"""A fact that states of the subject only what the evidence states of it: its occupation and its
nationality, in any language and script (rules r27).

"Η Μαρί Κιουρί ήταν φυσικός και χημικός." against the English lead "Marie Curie was a Polish and
naturalised-French physicist and chemist" was NS: the detector reads Greek against English poorly,
and the occupation and nationality checks only ever found conflicts. Here the fact's *concept words*
are found: occupations (`data/occupation.json`, by their families: "φυσικός" and "physicist" are
phys) and nationalities (`data/nationality.json`'s adjectives, or a country's name in CLDR through
the gazetteer: "ポーランドの", "폴란드의", "पोलैंड की" are Poland). Each agrees when the evidence's own
statements about the subject name its family or its country (occupation.py, nationality.py read
those, in the evidence's languages). `stated` gives the spans of the agreeing words, or None when one
of them does not agree; the verifier then judges a fact whose every other word is the subject's name
or says nothing of its own ("ήταν", "και", "였다", "であった") S by agreement, as it does a fact of
agreed dates and places (`verify/agreed.py`, `_only_slots`). `read` also tells the word the statements
contradict (other kinds of work, none of the word's named anywhere; other countries only): such a fact
that says nothing else is a slot conflict ("Marie Curie bir ressamdı." against "... physicist").
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

from ..lexicon import gazetteer
from . import prizes
from . import relatives
from .crossnames import names_entity, sounds_like
from .kinship import name_words
from .nationality import _about, _forms_for as _nationality_forms, agree, statements as nationality_statements
from .occupation import _named_in, families_of, statements as occupation_statements, _forms_for as _occupation_forms
from ..text.textutil import data_json, fold_accents, words_with_offsets

# languages whose words are not spaced (Chinese, Japanese, Thai) or carry their particles (Korean
# "물리학자이자", "폴란드의"): their concept words are found inside the text
INSIDE = frozenset({"zh", "yue", "ja", "ko", "th"})
# a conjunction or article written onto the next word: Hebrew "וכימאית", Arabic "وكيميائية", "الفيزيائية"
_CLITICS = {"he": ("ו", "ה", "וה"), "ar": ("و", "ال", "وال")}
WILDCARD = "*"                # the families of "author": any work, so it confirms none


def stated(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]], entity: str,
           order: Sequence[int]) -> list[tuple[int, int, str]] | None:
    """(start, end, what) of the fact's occupation and nationality words that the evidence's statements
    about the subject confirm ("phys", "PL"); [] when the fact has none; None when one of them is not
    confirmed (a family or country the evidence's statements leave out, or none to compare with)."""
    got = read(fact, lang, passages, entity, order)
    return got.words if got.sure() else None


class Reading:
    """What the evidence's statements about the subject make of a fact's concept words: `words`, each
    (start, end, what); `unsure`, how many none of them confirms or contradicts; `wrong`, the first they
    contradict, as (start, end, kind, (passage, start, end) of what they say instead)."""

    def __init__(self) -> None:
        self.words: list[tuple[int, int, str]] = []
        self.unsure = 0
        self.wrong: tuple[int, int, str, tuple[int, int, int]] | None = None

    def sure(self) -> bool:
        return not self.unsure and self.wrong is None


def read(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]], entity: str,
         order: Sequence[int]) -> Reading:
    """The fact's concept words against the evidence's statements about the subject. An occupation is
    contradicted when the statements give the subject other kinds of work and no passage names its kind
    at all (occupation.py's rule); a nationality, when they give the subject other countries only."""
    out = Reading()
    rel = relatives.read(fact, lang)
    if rel is not None:        # rules r29: "Пьер Кюри был её мужем." against "her husband, Pierre Curie"
        out.words.append((rel.start, rel.end, rel.role))
        out.unsure = 0 if relatives.agrees(rel, [passages[i] for i in order], entity) else 1
        return out
    told = prizes.mentions(fact, lang)
    said = [(m.start, m.end, "prize", f"Nobel {m.field}" if m.field else "Nobel") for m in told]
    field_word = {m.start: m.word for m in told}
    found = sorted(said + [c for c in concept_words(fact, lang) if not _names(fact[c[0]:c[1]], entity)
                           and not any(c[0] < e and s < c[1] for s, e, *_r in said)])
    if not found:
        return out
    ev = _evidence(tuple((i, *passages[i]) for i in order), entity)
    for a, b, kind, value in found:
        out.words.append((a, b, value))
        if kind == "prize":
            agreed, against = _prize(value[6:] or None, prizes.years(fact), ev.prizes, ev.nominated)
            if agreed:
                continue
            a, b = field_word[a]          # the field's word is the one marked
        elif kind == "occupation":
            fams = set(value.split("|")) - {WILDCARD}
            if fams & ev.families:
                continue
            against = ev.occupation if ev.families and WILDCARD not in value.split("|") and not any(
                fams & _named_in(t, langs) for _i, t, langs in ev.passages) else None
        else:
            if any(agree(value, c) for c in ev.countries):
                continue
            against = ev.nationality if ev.countries else None
        if against is None:
            out.unsure += 1
        elif out.wrong is None:
            out.wrong = (a, b, kind, against)
    return out


class _Evidence:
    """The occupation families and countries the passages' statements give the subject, with the first
    word of each ((passage, start, end)) to show against a fact's."""

    def __init__(self, passages: tuple[tuple[int, str, tuple[str, ...]], ...]):
        self.passages = passages
        self.families: set[str] = set()
        self.countries: set[str] = set()
        self.occupation: tuple[int, int, int] | None = None
        self.nationality: tuple[int, int, int] | None = None
        # (field or None, years of its sentence, (passage, start, end) of its field word) of each Nobel Prize said
        self.prizes: list[tuple[str | None, frozenset[str], tuple[int, int, int]]] = []
        self.nominated: list[tuple[str, tuple[int, int, int]]] = []      # (field, the nomination's word)


def _prize(
    field: str | None,
    years: frozenset[str],
    said: Sequence[tuple[str | None, frozenset[str], tuple[int, int, int]]],
    nominated: Sequence[tuple[str, tuple[int, int, int]]],
) -> tuple[bool, tuple[int, int, int] | None]:
    """(agreed, what the evidence says instead) of a fact's Nobel Prize of `field` (None: none said),
    said with `years`. Agreed when the evidence says a prize of that field in a sentence of one of
    those years (or of none); contradicted when its fielded prizes are of other fields only, or when the
    field's are of other years and another field's is of the fact's year ("Nobel Prize in Physics in
    1911" against "1903 Nobel Prize in Physics ... 1911 Nobel Prize in Chemistry"), or when the evidence
    says the subject was only nominated for it (the nomination's word is shown)."""
    if field is None:
        return bool(said), None
    fielded = [x for x in said if x[0]]
    same = [x for x in fielded if x[0] == field]
    if any(not years or not ys or years & ys for _f, ys, _w in same):
        return True, None
    other = [x for x in fielded if x[0] != field and years & x[1]]       # that year's prize is shown first
    nom = [w for f, w in nominated if f == field]
    if not same and nom:
        return False, nom[0]
    if not same:
        return False, (other or fielded)[0][2] if fielded else None
    return False, other[0][2] if other else None


def _names(word: str, entity: str) -> bool:
    """Whether a word of the fact is a word of the entity's name, in any spelling or script."""
    return bool(entity) and any(names_entity(w, entity) or sounds_like(w, entity) for w in word.split())


@functools.lru_cache(maxsize=256)
def _evidence(passages: tuple[tuple[int, str, tuple[str, ...]], ...], entity: str) -> _Evidence:
    """What the passages' ((index, text, languages) each) statements say of the subject."""
    subject = name_words(entity)
    ev = _Evidence(passages)
    for i, text, langs in passages:
        ev.prizes += [(m.field, ys, (i, *m.word)) for m, ys in prizes.said_in(text, langs)]
        ev.nominated += [(f, (i, *w)) for f, w in prizes.nominations(text, langs)]
        for st in occupation_statements(text, langs):
            if _about(st, subject):
                ev.families |= {f for w in st.countries for f in w[0].split("|")} - {WILDCARD}
                ev.occupation = ev.occupation or (i, st.countries[0][1], st.countries[0][2])
        for st in nationality_statements(text, langs):
            if _about(st, subject):
                ev.countries |= {w[0] for w in st.countries}
                ev.nationality = ev.nationality or (i, st.countries[0][1], st.countries[0][2])
    return ev


def concept_words(fact: str, lang: str) -> list[tuple[int, int, str, str]]:
    """(start, end, "occupation" or "nationality", families joined by "|" or a country) of the
    occupation and nationality words of a fact in `lang`, not overlapping."""
    if lang in INSIDE:
        return _inside(fact, lang)
    out: list[tuple[int, int, str, str]] = []
    words = words_with_offsets(fact)
    i = 0
    while i < len(words):
        got = _phrase(fact, words, i, lang)
        if got is not None:
            n, hit = got
            out.append(hit)
            i += n
            continue
        w, a, b = words[i]
        hit1 = _word(w, lang)
        if hit1 is not None:
            out.append((a, b, *hit1))
        i += 1
    return out


def _phrase(
    fact: str, words: list[tuple[str, int, int]], i: int, lang: str
) -> tuple[int, tuple[int, int, str, str]] | None:
    """An occupation of three or two words from word i ("عالم فيزياء", "भौतिक विज्ञानी"): (words, hit)."""
    forms = _occupation_forms((lang,))[0]
    for n in (3, 2):
        if i + n > len(words):
            continue
        a, b = words[i][1], words[i + n - 1][2]
        for k in _bare(fold_accents(re.sub(r"\s+", " ", fact[a:b])), lang):
            if k in forms:
                return n, (a, b, "occupation", "|".join(sorted(forms[k])))
    return None


def _word(word: str, lang: str) -> tuple[str, str] | None:
    """("occupation", families) or ("nationality", country) of one word, or None."""
    for w in _bare(word.lower(), lang):
        fams = families_of(w, (lang,))
        if fams:
            return "occupation", "|".join(sorted(fams))
        country = _nationality_forms((lang,)).get(fold_accents(w))
        if country:
            return "nationality", country
        code = _country(gazetteer.exact(w)) if _could_be_country(word) else None
        if code:
            return "nationality", code
    return None


def _bare(word: str, lang: str) -> list[str]:
    """A word as written, then without each Hebrew or Arabic clitic it starts with (more than two letters
    left): "וכימאית" -> "כימאית"."""
    return [word, *(word[len(c):] for c in _CLITICS.get(lang, ()) if word.startswith(c) and len(word) > len(c) + 2)]


def _could_be_country(word: str) -> bool:
    """A word that may be a country's name: four letters or more, with a capital where its script has
    them (CLDR's names in ~330 languages hold short and lower-case words: Vietnamese "tại", "at", is one)."""
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 4 and (letters[0].isupper() or letters[0].lower() == letters[0].upper())


def _country(place: gazetteer.Place | None) -> str | None:
    """The country a place of the gazetteer is, when it is one and only that."""
    if place is None:
        return None
    codes = sorted(i[2:] for i in place.ids if i.startswith("t:"))
    return codes[0] if codes and len(place.ids) == len(codes) else None


@functools.lru_cache(maxsize=32)
def _inside_forms(lang: str) -> tuple[tuple[str, str, str], ...]:
    """(form, kind, value) of `lang`'s own occupation and nationality forms as written (kana keep their
    voicing marks), longest first."""
    own = [(w.lower(), "occupation", "|".join(sorted(entry["families"])))
           for concept, entry in data_json("occupation.json").items() if not concept.startswith("_")
           for w in entry.get(lang, ())]
    own += [(w.lower(), "nationality", code) for code, langs in data_json("nationality.json").items()
            if not code.startswith("_") for w in langs.get(lang, ())]
    return tuple(sorted(own, key=lambda t: len(t[0]), reverse=True))


def _inside(fact: str, lang: str) -> list[tuple[int, int, str, str]]:
    """`concept_words` for a text whose words are not spaced: the forms found inside it, longest first,
    and the countries the gazetteer finds ("ポーランド" in "ポーランドの物理学者")."""
    text = fact.lower()
    out: list[tuple[int, int, str, str]] = []

    def free(a: int, b: int) -> bool:
        return not any(a < y and x < b for x, y, *_r in out)

    for form, kind, value in _inside_forms(lang):
        for m in re.finditer(re.escape(form), text):
            if free(*m.span()):
                out.append((m.start(), m.end(), kind, value))
    for a, b in gazetteer.find(fact):
        code = _country(gazetteer.lookup(fact[a:b]))
        if code and free(a, b):
            out.append((a, b, "nationality", code))
    return sorted(out)
