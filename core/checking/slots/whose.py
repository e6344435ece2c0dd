"""Whose birth or death a relation word tells, when it is not the subject's (the slot checks,
core/checking/slots/check.py, assign each date and place the relation word nearest to it; these rules
say which relation words speak of someone else, and which values take no slot at all).

- **A relative's**: a birth or death word tied to a kinship word right before or after it, with only
  articles or possessives between: "2021 doğumlu bir oğulları var" (a son born in 2021),
  "2012年2月6日長女出生", "у неё родился сын", "وُلدت ابنتها عام 2012", "En 2012 naît sa fille",
  "She has a son born in 2021". Not where the kinship word describes the subject: "born the daughter
  of a teacher", "bir öğretmenin kızı olarak doğdu", "als Tochter eines Lehrers geboren",
  "作为家中的第五个孩子出生".
- **An owner in the genitive** (Turkish): "Newton'un ölümünden sonra" (after Newton's death),
  "Babasının Şubat 967'de ölümü" (his father's death): the owner holds the event; a named owner
  becomes the value's holder, which `text_values` compares with the subject.
- **Head-final languages** (Turkish, Korean, Japanese) put a birth's or death's date and place
  before its verb: a value after the relation word belongs to the next clause ("İstanbul doğumlu
  olan Lodi'nin çocukluğu Beşiktaş'ta geçti": Beşiktaş is where she grew up).
- **A start, not an event**: a value marked "from", "after", "until" by a case ending or a
  postposition ("1962'den sonra ölümüne kadar", "1997년부터") is the start of a period.
"""
from __future__ import annotations

import functools
import re
from typing import Callable

from .kinship import GENITIVE, kin_words
from ..text.textutil import SPACELESS, data_json, words_with_offsets

HEAD_FINAL = frozenset({"tr", "ko", "ja"})
# a value followed by these is where a period starts or ends, not the day of an event
_PERIOD_MARK = {
    "tr": re.compile(
        r"(?:['’]?[dt][ae]n|\s+yılından|\s+yılı?n?dan)?\s*(?:sonra|önce|beri|itibaren|kadar|dek|değin)(?!\w)"
        r"|['’]?[dt][ae]n(?!\w)"
    ),
    "ko": re.compile(r"\s*(?:부터|까지|이후|이전|전부터)"),
    "ja": re.compile(r"\s*(?:から|まで|以降|以前)"),
}
# "as" before a kinship word, or after it: the subject is that relative ("born as the youngest child")
_AS_BEFORE = frozenset("as als comme como come jako jak ca как".split())
_AS_AFTER = frozenset("olarak".split())
_AS_SPACELESS = ("作为", "作為", "身为", "身為", "として")
_KIN_AS_PARTICLE = re.compile(r"(?:로서|으로|로)$")           # Korean "아들로 태어났다": born as a son
# the words that may stand between a kinship word and the birth or death word it owns
_KIN_GAP = frozenset("""a an the bir un une una uno ein eine einen sa son ses su sus sua seu suo il la le el lo
her his their its ihr ihre ihren sein seine seinen его её ее их jego jej jeho její が は""".split())
_ARABIC_PROCLITIC = re.compile(r"^[وبلف](?=..)")
# a Turkish word in the genitive: "Newton'un", "Ebu Firas'ın", "babasının"
_TR_GENITIVE = re.compile(r"(?:['’]n?[ıiuü]n|[ıiuü]n[ıiuü]n|s[ıiuü]n[ıiuü]n)$")
_TR_EVENT_NOUN = re.compile(r"^(?:ölüm|doğum)(?!lu)", re.IGNORECASE)
GENITIVE_WORDS = 6          # words before a Turkish event noun searched for its owner
HEAD_FINAL_GAP = 4          # words between a relative, the subject of a verb-final clause, and its verb
SPACELESS_GAP = 12          # characters between a relative and the relation word, in Chinese or Japanese
# a name in apposition between a kinship word and the relation word: ", Иван Павлович, ", " Pierre Curie "
_CAP = r"[A-ZÀ-ÖØ-ÞĀ-ſА-ЯЁЂ-ЏΑ-Ω][\w'’.-]*"
_APPOSITION = re.compile(rf"\s*,?\s*{_CAP}(?:\s+{_CAP}){{0,3}}\s*,?\s*")

Hit = tuple[int, int, str]
Breaks = Callable[[str, int, int], bool]


@functools.lru_cache(maxsize=32)
def _forms(lang: str) -> frozenset[str]:
    """Kinship word forms of `lang`: its role table's, else the `_relatives` list of kinship.json."""
    table = kin_words().get(lang)
    if table:
        return frozenset(table)
    extra = data_json("kinship.json").get("_relatives", {})
    return frozenset(w.lower() for w in extra.get(lang, []))


def kin_spans(text: str, lang: str) -> list[tuple[int, int, bool]]:
    """(start, end, as_particle) of each kinship word of `lang` (and English) in `text`."""
    forms = _forms(lang) | _forms("en")
    if lang in SPACELESS:
        return sorted((m.start(), m.end(), False) for f in forms if not f.isascii()
                      for m in re.finditer(re.escape(f), text))
    spaced = [f for f in forms if " " in f]
    out = [(m.start(), m.end(), False) for f in spaced for m in re.finditer(r"(?<!\w)" + re.escape(f) + r"(?!\w)",
                                                                              text, re.IGNORECASE)]
    tokens = [(m.group(), m.start(), m.end()) for m in re.finditer(r"\w+", text)] if lang == "ko" \
        else words_with_offsets(text)          # Hangul syllables are no words of their own
    for w, s, e in tokens:
        low = re.split(r"['’]", w.lower())[0]
        if low in forms or (lang == "ar" and _ARABIC_PROCLITIC.sub("", low) in forms):
            out.append((s, e, False))
        elif lang == "ko":
            stem = next((f for f in forms if low.startswith(f) and len(low) - len(f) <= 2), None)
            if stem is not None:
                out.append((s, e, bool(_KIN_AS_PARTICLE.search(low[len(stem):]))))
    return sorted(out)


def relatives_hits(text: str, hits: list[Hit], lang: str, breaks: Breaks) -> set[int]:
    """Indices of the birth and death words in `hits` that tell a relative's event."""
    events = [i for i, h in enumerate(hits) if h[2] in ("born", "died")]
    if not events:
        return set()
    kins = kin_spans(text, lang)
    return {i for i in events for k in kins if _tied(text, hits[i], k, lang, breaks)}


def _tied(text: str, hit: Hit, kin: tuple[int, int, bool], lang: str, breaks: Breaks) -> bool:
    (s, e, _rel), (ks, ke, as_particle) = hit, kin
    if as_particle or _as_subject(text, ks, ke, lang):
        return False
    a, b = (ke, s) if ke <= s else (e, ks) if e <= ks else (0, 0)
    if a == b == 0:
        return False
    gap = text[a:b]
    if ke <= s and (gap.strip() == "," or _APPOSITION.fullmatch(gap)):
        return True                  # "Her father, born in 1830, ...", "Его отец, Иван Павлович, умер"
    if breaks(text, a, b):
        return False
    if ke <= s and _subject_before_verb(text, ks, ke, gap, lang):
        return True
    words = [w.lower() for w, _s, _e in words_with_offsets(gap)]
    return len(words) <= 2 and all(w in _KIN_GAP for w in words)


def _subject_before_verb(text: str, ks: int, ke: int, gap: str, lang: str) -> bool:
    """A kinship word opening the words that end with the relation word, in a verb-final language
    ("Mendeleyev'in babası 1847'de Tobolsk'ta öldü") or in Chinese and Japanese ("她的父亲于1902年去世");
    not a possessor ("Babasının memleketi Tobolsk'ta doğdu", "父亲的家乡"): the relative is the
    clause's subject."""
    if lang in SPACELESS:
        return len(gap) <= SPACELESS_GAP and not re.search(r"[，,、。；;：:]", gap) and not gap.startswith(("的", "の"))
    if lang not in HEAD_FINAL:
        return False
    own = text[ks:ke].lower()
    return not (lang == "tr" and _TR_GENITIVE.search(own)) and len(words_with_offsets(gap)) <= HEAD_FINAL_GAP


def _as_subject(text: str, ks: int, ke: int, lang: str) -> bool:
    """Whether the kinship word describes the subject: "as" before it, or after it ("kızı olarak"),
    "of" after it ("the daughter of"), "之" before it ("居里之女")."""
    if lang in SPACELESS:
        clause = re.split(r"[，,。；;：:]", text[:ks])[-1]
        return any(a in clause for a in _AS_SPACELESS) or text[max(0, ks - 1):ks] == "之" \
            or text[ke:ke + 3].startswith(_AS_SPACELESS)
    before = [w.lower() for w, _s, _e in words_with_offsets(text[max(0, ks - 40):ks])][-3:]
    after = [w.lower() for w, _s, _e in words_with_offsets(text[ke:ke + 30])][:1]
    return bool(set(before) & _AS_BEFORE) or bool(after and (after[0] in _AS_AFTER or after[0] in GENITIVE
                                                             or after[0] in ("eines", "einer")))


def genitive_owners(text: str, hits: list[Hit], lang: str, breaks: Breaks) -> dict[int, str]:
    """Turkish: {index of an event noun in `hits`: its owner} where a word in the genitive comes
    before it in its clause, the owner's name ("" for a relative: "babasının")."""
    if lang != "tr":
        return {}
    out: dict[int, str] = {}
    words = words_with_offsets(text)
    for i, (s, e, rel) in enumerate(hits):
        if rel not in ("born", "died") or not _TR_EVENT_NOUN.match(text[s:e]):
            continue
        before = [(w, ws, we) for w, ws, we in words if we <= s][-GENITIVE_WORDS:]
        for j in range(len(before) - 1, -1, -1):
            w, ws, we = before[j]
            if breaks(text, we, s):
                break
            if _TR_GENITIVE.search(w):
                if re.split(r"['’]", w.lower())[0] in _forms("tr"):
                    out[i] = ""                 # "Babasının ... ölümü": a relative's
                elif w[:1].isupper():
                    out[i] = _owner_name(before[:j + 1])
                break
    return out


def _owner_name(words: list[tuple[str, int, int]]) -> str:
    """The capitalised words ending with the last of `words` (its genitive ending cut off)."""
    name = [re.split(r"['’]", words[-1][0])[0]]
    for w, _s, _e in reversed(words[:-1]):
        if not w[:1].isupper() and w not in ("von", "van", "de", "bin", "ibn"):
            break
        name.insert(0, w)
    return " ".join(name)


def marks_period(text: str, start: int, end: int, lang: str) -> bool:
    """Whether the value at text[start:end] is marked as the start or the end of a period (by what
    follows it, or by its own case ending: "Varşova'dan", from Warsaw)."""
    pat = _PERIOD_MARK.get(lang)
    return pat is not None and (pat.match(text, end) is not None
                                or (lang == "tr" and _TR_FROM.search(text, start, end) is not None))


_TR_FROM = re.compile(r"['’][dt][ae]n$")
