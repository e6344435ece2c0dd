"""Nobel Prizes said in any language and script (rules r29): "ノーベル化学賞", "노벨 화학상", "Νόμπελ Χημείας",
"रसायन विज्ञान का नोबेल पुरस्कार" and "Nobel Prize in Chemistry" are one prize.

A *mention* is the word "Nobel" with, beside it, the words for "prize" and the prize's field, with only
short connecting words between them ("Premio Nobel de Química", "Нобелевскую премию по химии",
"Nagroda Nobla w dziedzinie chemii", "جائزة نوبل في الكيمياء"). Its field is None when none is said
("ノーベル賞"). The words are data (`data/prizes.json`, per language). stated.py compares a fact's
mentions with the evidence's, the years said with them included.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Sequence

from ..text.textutil import data_json, lower_in_place, words_with_offsets

# languages whose words are not spaced, or carry their particles ("화학상을"): forms are found inside the text
INSIDE = frozenset({"zh", "yue", "ja", "ko", "th"})
MAX_BETWEEN = 4                  # connecting words and "prize" between "Nobel" and its field
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]*")


@dataclass(frozen=True)
class Mention:
    """A Nobel Prize said in a text: the span of its words, its field (None when not said) and the
    span of the field's word (the "Nobel" word's when there is none)."""
    start: int
    end: int
    field: str | None
    word: tuple[int, int]


@dataclass(frozen=True)
class _Forms:
    nobel: tuple[str, ...]
    fields: tuple[tuple[str, str], ...]          # (form, field), longest first
    prize: tuple[str, ...]
    connectors: frozenset[str]


@functools.lru_cache(maxsize=64)
def _forms(lang: str) -> _Forms:
    data = data_json("prizes.json")
    nobel = [*data["nobel"]["*"], *data["nobel"].get(lang, ())]
    fields = [(f.lower(), field) for field, by in data["fields"].items() for f in by.get(lang, ())]
    if lang != "en":        # English field names are written into many languages' texts
        fields += [(f, field) for field, by in data["fields"].items() for f in by["en"]]
    return _Forms(tuple(n.lower() for n in nobel), tuple(sorted(fields, key=lambda t: -len(t[0]))),
                  tuple(p.lower() for p in data["prize"].get(lang, ())) + ("prize",),
                  frozenset(c.lower() for c in data["connectors"].get(lang, ())))


def mentions(text: str, lang: str) -> list[Mention]:
    """The Nobel Prizes a text in `lang` says, in order."""
    low = lower_in_place(text)
    forms = _forms(lang)
    if not any(n in low for n in forms.nobel):
        return []
    return _inside(low, forms) if lang in INSIDE else _spaced(low, forms)


def _kind(word: str, low: str, at: int, forms: _Forms) -> tuple[str, tuple[str, int, int] | None]:
    """What a word is: ("nobel", None), ("field", (field, start, end)), ("prize", None), ("conn", None) or
    ("", None)."""
    if word.startswith(forms.nobel):
        return "nobel", None
    for form, field in forms.fields:
        if " " in form and low.startswith(form, at):
            return "field", (field, at, at + len(form))       # "vật lý"
        if " " not in form and word.startswith(form):
            return "field", (field, at, at + len(word))
    if word.startswith(forms.prize):
        return "prize", None
    if word in forms.connectors:
        return "conn", None
    return "", None


def _spaced(low: str, forms: _Forms) -> list[Mention]:
    words = words_with_offsets(low)
    kinds = [_kind(w, low, a, forms) for w, a, _b in words]
    out: list[Mention] = []
    for i, (k, _x) in enumerate(kinds):
        if k != "nobel" or any(m.start <= words[i][1] < m.end for m in out):
            continue
        lo = hi = i
        field: tuple[str, int, int] | None = None
        for step in (1, -1):         # the field after "Nobel" ("Nobel Prize in Chemistry"), else before it
            j = i + step
            while 0 <= j < len(words) and abs(j - i) <= MAX_BETWEEN + 1 and kinds[j][0] in ("prize", "conn"):
                j += step
            if 0 <= j < len(words) and kinds[j][0] == "field":
                field = kinds[j][1]
                lo, hi = min(lo, j), max(hi, j)
                break
        while hi + 1 < len(words) and kinds[hi + 1][0] == "prize":
            hi += 1                   # "Nobel Kimya Ödülü", "Nobel Prize"
        while lo > 0 and kinds[lo - 1][0] == "prize":
            lo -= 1                   # "Premio Nobel", "جائزة نوبل"
        if field is None:
            if lo < hi or words[i][0] not in forms.nobel:     # "Nobel Prize", "Nobelpreis"; not "Alfred Nobel"
                out.append(Mention(words[lo][1], words[hi][2], None, (words[i][1], words[i][2])))
            continue
        name, fstart, fend = field
        out.append(Mention(words[lo][1], max(words[hi][2], fend), name, (fstart, fend)))
    return _tidy(out)


def _inside(low: str, forms: _Forms) -> list[Mention]:
    """`mentions` where words are not spaced: "ノーベル化学賞", "노벨 화학상을", "รางวัลโนเบลสาขาเคมี"."""
    glue = sorted({*forms.prize, *forms.connectors, " "}, key=len, reverse=True)

    def skip(pos: int, step: int) -> int:
        moved = True
        while moved:
            moved = False
            for g in glue:
                if step > 0 and low.startswith(g, pos) or step < 0 and low.endswith(g, 0, pos):
                    pos += len(g) * step
                    moved = True
                    break
        return pos

    out: list[Mention] = []
    for n in forms.nobel:
        for m in re.finditer(re.escape(n), low):
            a, b = m.span()
            field, fa, fb = None, a, b
            after = skip(b, 1)
            before = skip(a, -1)
            for form, name in forms.fields:
                if low.startswith(form, after):
                    field, fa, fb = name, after, after + len(form)
                    break
                if low.endswith(form, 0, before):
                    field, fa, fb = name, before - len(form), before
                    break
            start, end = min(a, fa), max(b, fb)
            end = _grow(low, end, forms.prize, 1)
            start = _grow(low, start, forms.prize, -1)
            if field is not None or (start, end) != (a, b):       # "ノーベル賞"; not "アルフレッド・ノーベル"
                out.append(Mention(start, end, field, (fa, fb)))
    return _tidy(out)


def _grow(low: str, pos: int, words: Sequence[str], step: int) -> int:
    """`pos` moved over a "prize" word written next to it (after it with step 1, before it with -1)."""
    for w in sorted(words, key=len, reverse=True):
        if step > 0 and low.startswith(w, pos):
            return pos + len(w)
        if step < 0 and low.endswith(w, 0, pos):
            return pos - len(w)
    return pos


def _tidy(found: list[Mention]) -> list[Mention]:
    """In order, without one inside another."""
    out: list[Mention] = []
    for m in sorted(found, key=lambda m: (m.start, -m.end)):
        if not out or m.start >= out[-1].end:
            out.append(m)
    return out


def years(text: str) -> frozenset[str]:
    """The years (1500-2099) a text says."""
    return frozenset(_YEAR.findall(text))


# A prize won where the evidence has it nominated, or the reverse: (won, nominated) word beginnings per
# language ("$": the whole word). FAVA's relation errors swap these, and the detector, reading a sentence otherwise
# close to its evidence, passes them ("Grammy Ödülü'nü kazandı" against "Grammy Ödülü'ne aday gösterildi": S 0.97).
AWARD_STATUS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "en": (("won$", "win$", "wins$", "winning", "winner", "received", "awarded"), ("nominat", "shortlisted")),
    "es": (("ganó", "ganador", "ganadora", "recibió", "obtuvo", "galardonad"), ("nominad", "nominación")),
    "fr": (("remport", "reçu", "reçoit", "obtenu", "obtint", "lauréat"), ("nominé", "nomination")),
    "de": (("gewann", "gewinnt", "erhielt", "erhält", "ausgezeichnet"), ("nominier",)),
    "it": (("vinse", "vinto", "vince", "ricevette", "ricevuto", "ottenne", "ottenuto"), ("nominat", "candidat")),
    "pt": (("ganhou", "venceu", "recebeu", "conquistou"), ("nomead", "indicad", "indicação")),
    "ca": (("guanyà", "guanyar", "rebé"), ("nominat", "nominació")),
    "ro": (("câștigat", "primit"), ("nominaliz",)),
    "ru": (("получил", "выиграл", "удостоен", "награжд"), ("номинир", "номинац")),
    "pl": (("zdobył", "otrzymał", "wygrał"), ("nominow", "nominac")),
    "cs": (("získal", "vyhrál", "obdržel"), ("nominov", "nominac")),
    "tr": (("kazan", "aldı"), ("aday",)),
    "id": (("memenang", "meraih", "menerima"), ("nominasi", "dinominasikan")),
    "ms": (("memenang", "meraih", "menerima"), ("nominasi", "dicalonkan")),
    "hu": (("nyert", "elnyert", "kapott"), ("jelöl",)),
    "fi": (("voitti", "sai$"), ("ehdol",)),
    "ar": (("فاز", "حصل", "نال"), ("رشح", "ترشيح", "مرشح", "ترشح")),
}

# "nominated" in the languages AWARD_STATUS has none for
_NOMINATED = {"ja": ("ノミネート", "候補"), "zh": ("提名",), "yue": ("提名",), "ko": ("후보",), "el": ("υποψήφι",),
              "he": ("מועמד",), "hi": ("नामांकित", "नामांकन"), "uk": ("номінов", "номінац"), "bg": ("номиниран",),
              "sr": ("номинов", "nominov"), "nl": ("genomineerd", "nominatie"), "vi": ("đề cử",), "fa": ("نامزد",)}


@functools.lru_cache(maxsize=64)
def _nomination_stems(langs: tuple[str, ...]) -> tuple[str, ...]:
    """The beginnings of "nominated" in `langs` and English."""
    return tuple(st.rstrip("$") for lg in dict.fromkeys([*langs, "en"])
                 for st in (*AWARD_STATUS.get(lg, ((), ()))[1], *_NOMINATED.get(lg, ())))


def _nominated(sentence: str, langs: tuple[str, ...]) -> tuple[int, int] | None:
    """The span of the word by which a sentence says a nomination ("He was nominated for the Nobel Prize
    in Literature"; its prizes are not won), or None."""
    low = lower_in_place(sentence)
    for st in _nomination_stems(langs):
        at = low.find(st)
        if at >= 0:
            end = at + len(st)
            while end < len(low) and low[end].isalpha():
                end += 1
            return at, end
    return None


@functools.lru_cache(maxsize=256)
def _sentences(
    text: str, langs: tuple[str, ...]
) -> tuple[tuple[tuple[Mention, ...], frozenset[str], tuple[int, int] | None], ...]:
    """Each sentence of a passage that says a Nobel Prize, read once: (its prizes in any of `langs` and
    English, at the passage's offsets; the years it says; the span of the word by which it says a
    nomination, or None)."""
    out = []
    for s in _SENTENCE.finditer(text):
        found: list[Mention] = []
        for lang in dict.fromkeys([*langs, "en"]):      # one prize read in two languages is one, with its field
            for m in mentions(s.group(), lang):
                same = [x for x in found if x.start < m.end and m.start < x.end]
                if not same:
                    found.append(m)
                elif m.field and not any(x.field for x in same):
                    found = [x for x in found if x not in same] + [m]
        if not found:
            continue
        at = s.start()
        nom = _nominated(s.group(), langs)
        out.append((tuple(Mention(m.start + at, m.end + at, m.field, (m.word[0] + at, m.word[1] + at))
                          for m in sorted(found, key=lambda m: m.start)),
                    years(s.group()), None if nom is None else (nom[0] + at, nom[1] + at)))
    return tuple(out)


def nominations(text: str, langs: Sequence[str]) -> list[tuple[str, tuple[int, int]]]:
    """(field, span of the nomination's word) of each Nobel Prize of a field a passage says someone was
    nominated for ("nominated for the Nobel Prize in Literature")."""
    return [(m.field, nom) for found, _ys, nom in _sentences(text, tuple(langs)) if nom is not None
            for m in found if m.field]


def said_in(text: str, langs: Sequence[str]) -> list[tuple[Mention, frozenset[str]]]:
    """The Nobel Prizes a passage says won in any of its languages, each with the years of its sentence
    (a sentence of a nomination says none)."""
    return [(m, ys) for found, ys, nom in _sentences(text, tuple(langs)) if nom is None for m in found]
