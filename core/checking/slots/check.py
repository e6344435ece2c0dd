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
import re
from dataclasses import dataclass, field
from typing import Sequence
from .counts import count_agreements, count_conflicts
from .kinship import kin_conflicts
from .nationality import nationality_conflicts
from .occupation import occupation_conflicts
from .stated import read as read_statements
from ..text.textutil import (HAN_LANGS, SPACELESS, STOPWORDS, words_with_offsets)
from ..text.cldr import _fold
from ...languages import EAST_ASIAN
from .values import MANY, Value, _AGE_WORDS, _ages, _overlaps, relation_words
from .places import _CLAUSE_BREAK, _CLAUSE_MARKS, _COORDINATOR, _GAP_WORD, _SENTENCE_END, _breaks, _relation_hits
from .read import TextValues, sentence_starts, text_values
from .compare import NameMatcher, date_diff, dates_comparable, names_alike, names_comparable, values_agree
_CJK_LANGS = EAST_ASIAN


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
    # contradict one of them: a conflict only if the fact says nothing else (verify/offline.py decides)
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


@dataclass(frozen=True)
class _Against:
    """The evidence a fact is checked against: the passages ((text, lang) each) and each with the
    languages it is read in (`tagged`), the order they count in, the fact's language and subject,
    and how names are matched."""
    passages: Sequence[tuple[str, str]]
    tagged: Sequence[tuple[str, tuple[str, ...]]]
    order: list[int]
    lang: str
    entity: str
    same_name: NameMatcher


@dataclass(frozen=True)
class _FactSide:
    """The fact checked, its values and words (`fv`) and its content words."""
    fact: str
    fv: TextValues
    content: set[str]


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
    ag = _Against(passages, tagged, order, lang, entity, same_name)
    rep.conflicts.extend(_subject_conflicts(fact, fv, ag))
    counted = _count_conflicts(fact, lang, tagged, order)
    rep.conflicts.extend(counted)
    rep.agreed_counts = count_agreements(fact, lang, tagged, order)
    if not rep.conflicts:
        _read_statements(rep, fact, ag)
    if not fv.values:
        return rep
    evs = _passage_values(passages, lang, entity)
    fact_content = _content(fact, fv.words, fv.values)
    fs = _FactSide(fact, fv, fact_content)
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
            if (award := _other_award(v, fs, anywhere, evs, ag)) is not None:
                _add_conflict(rep, v, award)
                continue
            if same_slot:
                _check_slot(v, same_slot, anywhere, evs, ag, rep)
                continue
        moved = None if not anywhere else _moved_value(v, fs, anywhere, evs, ag)
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
               or _framed_value(v, fs, evs, ag))
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
                evs: list[TextValues], ag: _Against, rep: SlotReport) -> None:
    """A fact value whose slot the evidence fills: agreed, or a conflict."""
    order, same_name, texts = ag.order, ag.same_name, [t for t, _l in ag.passages]
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


def _read_statements(rep: SlotReport, fact: str, ag: _Against) -> None:
    """The fact's occupation and nationality words against the evidence's statements about the subject
    (stated.py): all confirmed (`rep.stated`), or the first one contradicted (`rep.unstated`)."""
    lang, passages, tagged, entity, order = ag.lang, ag.passages, ag.tagged, ag.entity, ag.order
    got = read_statements(fact, lang, tagged, entity, order)
    rep.concepts = got.words
    if got.sure():
        rep.stated = got.words
    elif got.wrong is not None and not got.unsure:
        a, b, kind, (i, x, y) = got.wrong
        fv = Value(kind, a, b, fact[a:b], rel=kind)
        rep.unstated = Conflict(fv, Value(kind, x, y, passages[i][0][x:y]), i, [(a, b)])


def _subject_conflicts(fact: str, fv: TextValues, ag: _Against) -> list[Conflict]:
    """What the fact says of its subject that the evidence contradicts: a relative, a nationality or
    an occupation, an age at a dated event."""
    lang, passages, tagged, entity, order = ag.lang, ag.passages, ag.tagged, ag.entity, ag.order
    return (
        _kin_conflicts(fact, lang, tagged, entity, order)
        + _nationality_conflicts(fact, lang, tagged, entity, order)
        + _event_age_conflicts(fact, fv, lang, passages, entity, order)
    )


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
    births = [
        (i, e)
        for i in order
        for e in evs[i].values
        if e.kind == "date" and e.rel == "born" and e.year is not None and not e.decade and (entity or not e.holder)
    ]
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


def _moved_value(v: Value, fs: _FactSide, anywhere: list[tuple[int, Value]], evs: list[TextValues],
                 ag: _Against) -> tuple[int, Value] | None:
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
    fv, fact_content = fs.fv, fs.content
    passages, order, lang, same_name = ag.passages, ag.order, ag.lang, ag.same_name
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
        return _clause_swap(v, fs, inside, evs, (s, e, i), ag)
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


def _other_award(v: Value, fs: _FactSide, anywhere: list[tuple[int, Value]], evs: list[TextValues],
                 ag: _Against) -> tuple[int, Value] | None:
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
    fact, fv = fs.fact, fs.fv
    passages, order, lang, same_name = ag.passages, ag.order, ag.lang, ag.same_name
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


def _clause_swap(v: Value, fs: _FactSide, inside: list[Value], evs: list[TextValues],
                 where: tuple[int, int, int], ag: _Against) -> tuple[int, Value] | None:
    """The sentence that holds the fact has its value, but in a clause about another name, while the
    fact's name stands in another clause with another value of the kind ("Er zog 1894 in die
    Schweiz" against "1894 zog die Familie nach Italien, Albert ging 1895 in die Schweiz"): a year
    joined to the next clause's place. None unless the fact's year and names (capitalised words after
    its first) stand in one clause of the fact; the clause of every agreeing value holds none of those
    names, and either a name of its own or none of the fact's other words ("1950'de serbest bırakıldı
    ve 1951'de Türkiye'den ayrıldı"); and one other clause holds a fact's name and one value of the
    kind that agrees with none of the fact's (`where`: the sentence [s, e) of passage i)."""
    s, e, i = where
    fact, fv, same_name = fs.fact, fs.fv, ag.same_name
    text, ev = ag.passages[i][0], evs[i]
    if v.kind != "date" or v.year is None:
        return None
    fa, fb = next(((a, b) for a, b in _clauses(fact, 0, len(fact)) if a <= v.start < b), (0, 0))
    names = {w.lower() for w, a, _b in fv.words[1:] if w[:1].isupper() and fa <= a < fb
             and not _overlaps(a, a + len(w), [(v.start, v.end)])}
    if not names:
        return None               # the fact's year and its names: one clause of the fact
    content = {
        w.lower()[:5] for w, a, b in fv.words if w.lower() not in STOPWORDS and not _overlaps(a, b, [(v.start, v.end)])
    }
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


def _framed_value(v: Value, fs: _FactSide, evs: list[TextValues], ag: _Against) -> tuple[int, Value] | None:
    """An evidence value of the same kind standing between the same words as `v` ("shared the 1905
    Nobel Prize" against "shared the 1903 Nobel Prize"), in a sentence holding FRAME_SHARE of the
    fact's content words: the value the fact rewrote, where no evidence sentence holds enough of the
    fact to say so alone (a fact fusing two sentences). Without the share, the frame alone called
    0.5% of the held-out articles' own sentences with a number wrong ("the 2002 season" against
    "the 2006 season"), 0.2% with it. Not in languages without spaces, whose "words" are runs of
    characters."""
    fact_words, fact_content, passages, order, lang = fs.fv.words, fs.content, ag.passages, ag.order, ag.lang
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
