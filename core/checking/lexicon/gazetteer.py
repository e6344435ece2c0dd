"""Place names across languages and scripts, from CLDR (through Babel): every country and every
time zone's exemplar city (about 450 of the world's large cities) as each of CLDR's ~330 languages
writes it: "Варшава", "Βαρσοβία", "华沙", "ワルシャワ", "바르샤바", "وارسو", "वॉरसॉ" and "Varsovie"
are one city, in Poland.

The slot checks compare a birth or death place of the text with the evidence's. By spelling and by
the embedder they can tell "Warschau" from "Varsovie" only within a script or between Latin, Cyrillic
and Greek; in other scripts the embedder puts "华沙" as near "Varsovie" as "巴黎". What this table
knows decides there, both ways: the same place (or a city in the country named), or two different
ones. Names it does not know are left to the other comparisons.

Read once from Babel and kept in mfact's cache folder, named by Babel's version (1.3 s to build).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from ..text.textutil import fold_accents, han_simplified, lower_in_place, scripts_of

_FOLDED_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK"})
# the letters a word may carry after a name it inflects: a case ending ("Varšuvoje", "Варшаве",
# "Varsóban", "Βαρσοβίας"), a particle written on ("바르샤바에서", "ワルシャワで")
ENDING = 4
# one-letter prefixes written onto a word: Hebrew "in, to, from, and, the" ("בוורשה"), Arabic "in, to, and"
_PREFIXES = {"HEBREW": "בלמוהכש", "ARABIC": "بلوفك"}


def key(name: str) -> str:
    """A name as the table keeps it: lower case; Latin, Cyrillic and Greek without accents; Chinese in
    simplified characters; spaces, hyphens and dots made one space."""
    s = unicodedata.normalize("NFC", name.strip()).lower()
    if scripts_of(s) <= _FOLDED_SCRIPTS:
        s = fold_accents(s)
    s = han_simplified(s)
    return " ".join(re.split(r"[\s\-‐.·・'’]+", s)).strip()


@dataclass(frozen=True)
class Place:
    """What a name is: the ids it names ("z:Europe/Warsaw" a city, "t:PL" a country)."""
    ids: frozenset[str]

    @property
    def cities(self) -> frozenset[str]:
        return frozenset(i for i in self.ids if i.startswith("z:"))

    @property
    def countries(self) -> frozenset[str]:
        return frozenset(i for i in self.ids if i.startswith("t:"))


@functools.lru_cache(maxsize=1)
def _table() -> tuple[dict[str, list[str]], dict[str, str]]:
    """(name key -> ids, city id -> its country), from the cache or built from Babel."""
    try:
        import babel
        version = babel.__version__
    except ImportError:  # pragma: no cover - babel is a dependency
        return {}, {}
    from ...paths import cached_json

    tag = hashlib.sha256(json.dumps([version, 1]).encode()).hexdigest()[:12]
    got = cached_json(f"cldr-places-{tag}.json", lambda: dict(zip(("names", "country"), _build())),
                      valid=lambda v: isinstance(v, dict) and isinstance(v.get("names"), dict)
                      and isinstance(v.get("country"), dict))
    return dict(got["names"]), dict(got["country"])


def _build() -> tuple[dict[str, list[str]], dict[str, str]]:
    from babel import Locale, localedata
    from babel.core import get_global

    country = {f"z:{z}": f"t:{t}" for z, t in get_global("zone_territories").items()}
    found: dict[str, set[str]] = {}

    def add(name: str, pid: str) -> None:
        k = key(name)
        if len(k) >= 2 and not any(c.isdigit() for c in k):
            found.setdefault(k, set()).add(pid)

    for zone in country:        # the city of the zone's own id, in English ("Europe/Warsaw": "Warsaw")
        add(zone.rsplit("/", 1)[-1].replace("_", " "), zone)
    for ident in localedata.locale_identifiers():
        if "_" in ident:
            continue
        loc = Locale.parse(ident)
        for zone, d in loc.time_zones.items():
            if d.get("city") and f"z:{zone}" in country:
                add(d["city"], f"z:{zone}")
        for code, name in loc.territories.items():
            if len(code) == 2 and code.isalpha() and code not in ("EU", "EZ", "UN", "QO", "ZZ"):
                add(name, f"t:{code}")
    return {k: sorted(v) for k, v in found.items()}, country


@functools.lru_cache(maxsize=1)
def _by_start() -> dict[str, list[str]]:
    """The names by their first two characters, for names with an ending."""
    out: dict[str, list[str]] = {}
    for k in _table()[0]:
        out.setdefault(k[:2], []).append(k)
    return out


@functools.lru_cache(maxsize=8192)
def lookup(name: str) -> Place | None:
    """The places a name names, as written or with an ending or a one-letter prefix; None when the
    table does not know it."""
    k = key(name)
    if not k:
        return None
    names = _table()[0]
    if k in names:
        return Place(frozenset(names[k]))
    for cand in _stems(k):
        if cand in names:
            return Place(frozenset(names[cand]))
    return None


def exact(name: str) -> Place | None:
    """The places a name names as written (no ending or prefix taken off), or None."""
    k = key(name)
    found = _table()[0].get(k) if k else None
    return Place(frozenset(found)) if found else None


def _stems(k: str) -> Iterable[str]:
    """Names `k` may be, written with an ending or a prefix: the longest name it starts with, whose last
    letters it may change ("варшаве" for "варшава"), at most ENDING letters longer."""
    scripts = scripts_of(k)
    for script, letters in _PREFIXES.items():
        if script in scripts and len(k) > 3 and k[0] in letters:
            yield k[1:]
            if script == "HEBREW" and k[1:3] == "וו":
                yield k[2:]        # "בוורשה": after a prefix a word's first vav is written twice
    best = ""
    for cand in _by_start().get(k[:2], ()):
        if len(cand) < 4 or len(cand) <= len(best):
            continue
        n = len(os.path.commonprefix([k, cand]))
        changed = len(cand) - n               # the name's own last letters the ending replaces
        if changed <= 2 and n >= 4 and len(k) - n <= ENDING and n >= 0.6 * len(k) and (changed == 0 or len(cand) >= 5):
            best = cand
    if best:
        yield best


def relation(a: str, b: str) -> str | None:
    """"same" when the two names name one place (or a city and the country it is in), "different"
    when both are cities, or both countries, and not the same; None when the table cannot say."""
    pa, pb = lookup(a), lookup(b)
    if pa is None or pb is None:
        return None
    if pa.ids & pb.ids:
        return "same"
    country = _table()[1]
    if any(country.get(c) in pb.countries for c in pa.cities) or any(country.get(c) in pa.countries for c in pb.cities):
        return "same"
    if (pa.cities and pb.cities) or (pa.countries and pb.countries):
        return "different"
    return None


@functools.lru_cache(maxsize=64)
def _finder(script: str) -> re.Pattern[str] | None:
    """One pattern for every name of the table written in `script`, longest first."""
    names = sorted((k for k in _table()[0] if script in scripts_of(k) and " " not in k and len(k) >= 2),
                   key=len, reverse=True)
    return re.compile("|".join(map(re.escape, names))) if names else None


def find(text: str) -> list[tuple[int, int]]:
    """The spans of the table's names in a text in a script without capitals (Arabic, Hebrew,
    Devanagari, Thai, Hangul, Kana ...), each name a word or the start of one (a particle or a case
    ending after it; a one-letter prefix before it in Hebrew and Arabic)."""
    low = lower_in_place(text)
    out: list[tuple[int, int]] = []
    for script in sorted(scripts_of(low) - _FOLDED_SCRIPTS - {"CJK"}):
        pat = _finder(script)
        if pat is None:
            continue
        for m in pat.finditer(low):
            s, e = m.span()
            if script not in _UNSPACED_SCRIPTS and not _word_start(low, s, script):
                continue          # inside another word
            rest = _word_at(low, e)
            if script == "HANGUL" and rest and rest not in _KO_PLACE_PARTICLES:
                continue          # "프랑스인" (a Frenchman), not "프랑스에서" (in France)
            if script not in _UNSPACED_SCRIPTS | {"HANGUL"} and rest and (e - s < 4 or len(rest) > ENDING):
                continue          # the start of another word ("کیو", Kyiv, in "کیوری", Curie)
            if script == "KATAKANA" and (_KANA_NAME.match(low, e) or (s > 0 and _KANA_NAME.match(low, s - 1))):
                continue          # part of a longer name ("マリ" in "マリ・キュリー")
            if e - s < (2 if script in _SYLLABARIES else 3):
                continue          # a name of two letters would be found inside many words
            out.append((s, e))
    return sorted(out)


def _word_start(text: str, at: int, script: str) -> bool:
    """Whether a word starts at `at`, or only one- or two-letter prefixes stand before it ("בוורשה")."""
    s = at
    while s > 0 and text[s - 1].isalpha():
        s -= 1
    return s == at or (at - s <= 2 and all(c in _PREFIXES.get(script, "") for c in text[s:at]))


def _word_at(text: str, at: int) -> str:
    e = at
    while e < len(text) and text[e].isalpha():
        e += 1
    return text[at:e]


# scripts written without spaces between words: a name may start anywhere
_UNSPACED_SCRIPTS = frozenset({"THAI", "HIRAGANA", "KATAKANA", "LAO", "KHMER", "MYANMAR"})
_SYLLABARIES = frozenset({"HANGUL", "KATAKANA", "HIRAGANA"})      # a letter is a syllable: "파리", "パリ"
# Korean particles written after a place ("in", "to", "from", "until" ...)
_KO_PLACE_PARTICLES = frozenset("에서 에 의 은 는 이 가 을 를 으로 로 과 와 에서의 까지 부터".split())
_KANA_NAME = re.compile(r"[\u30a0-\u30ff]")        # katakana, its middle dot and its long vowel mark
