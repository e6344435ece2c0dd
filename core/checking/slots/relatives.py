"""A husband, wife, father or mother named in a script the evidence does not write (rules r29):
"Пьер Кюри был её мужем.", "Ο σύζυγός της ήταν ο Πιερ Κιουρί.", "彼女の夫はピエール・キュリーであった。" and
"كان زوجها بيير كوري." against "She shared the 1903 Nobel Prize in Physics with her husband, Pierre Curie".

kinship.py reads family roles in the languages of its tables, by their capitalised names. Here a fact
in another language is read as a *statement of a relative*: one kinship word of `kinship.json`'s
`_cross` table, a name, and nothing else but the short words of that table ("был", "её", "ήταν",
"の", "は", "であった"). Its name agrees with a name the evidence ties to a compatible role of the subject
when each of its words is a word of that name by sound (crossnames.same_name_word: "Пьер" is
"Pierre") and one of them is not the subject's own ("Кюри" alone could be anyone of the family).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Sequence

from .crossnames import same_name_word
from .kinship import compatible, links
from ..text.textutil import SPACELESS, data_json, fold_accents

_NAME_RUN = re.compile(r"[\u30a1-\u30ff\u4e00-\u9fff]+(?:[・·][\u30a1-\u30ff\u4e00-\u9fff]+)*")
_PUNCT = re.compile(r"[\s.,;:!?()\[\]\"'“”«»。、，！？・·।-]+")


@dataclass(frozen=True)
class Relative:
    """A fact that only names a relative: the role, the name's words, and the span of the whole statement."""
    role: str
    names: tuple[str, ...]
    start: int
    end: int


@functools.lru_cache(maxsize=64)
def _table(lang: str) -> tuple[tuple[tuple[str, str], ...], frozenset[str], tuple[str, ...]]:
    """((form, role) longest first, short words, endings) of `lang` in kinship.json's `_cross` table."""
    entry = data_json("kinship.json").get("_cross", {}).get(lang, {})
    forms = [(f.lower(), role) for role, fs in entry.get("roles", {}).items() for f in fs]
    return (tuple(sorted(forms, key=lambda t: -len(t[0]))), frozenset(entry.get("words", "").lower().split()),
            tuple(sorted(entry.get("endings", "").split(), key=len, reverse=True)))


def read(fact: str, lang: str) -> Relative | None:
    """The fact as a statement of one relative, or None (another language, no kinship word, more words)."""
    forms, words, endings = _table(lang)
    if not forms:
        return None
    low = fact.lower()
    if lang in SPACELESS:
        return _read_inside(fact, low, forms, words)
    role, names, kin = None, [], False
    pieces = [m for m in re.finditer(r"[^\s.,;:!?()\[\]\"“”«»。।]+", fact)]
    for m in pieces:
        w = m.group().lower()
        bare = _strip(w, endings)
        if w in words or bare in words:
            continue
        hit = next((r for f, r in forms if bare == f or w == f), None)
        if hit is not None and not kin:
            role, kin = hit, True
            continue
        names.append(_strip(m.group(), endings))
    if role is None or not names or any(n[:1].lower() != n[:1].upper() and not n[:1].isupper() for n in names):
        return None          # a name's words start with a capital where the script has them
    return Relative(role, tuple(names), pieces[0].start(), pieces[-1].end())


def _strip(word: str, endings: Sequence[str]) -> str:
    """A word without one ending of its language's (Korean particles and copulas: "퀴리였다" -> "퀴리")."""
    for e in endings:
        if word.endswith(e) and len(word) > len(e):
            return word[:-len(e)]
    return word


def _read_inside(fact: str, low: str, forms: Sequence[tuple[str, str]], words: frozenset[str]) -> Relative | None:
    """`read` where words are not spaced: the kinship word found inside, the name a run of katakana or of
    Chinese characters, and what is left the table's short words."""
    role, kin = None, (0, 0)
    for f, r in forms:
        at = low.find(f)
        if at >= 0 and not low.startswith(f + "人", at):           # "居里夫人" is Madame Curie, no husband
            role, kin = r, (at, at + len(f))
            break
    if role is None:
        return None
    rest = fact[:kin[0]] + " " * (kin[1] - kin[0]) + fact[kin[1]:]
    for w in sorted(words, key=len, reverse=True):
        rest = rest.replace(w, " " * len(w))
    runs = list(_NAME_RUN.finditer(rest))
    if len(runs) != 1 or _PUNCT.sub("", rest[:runs[0].start()] + rest[runs[0].end():]):
        return None
    return Relative(role, tuple(p for p in re.split(r"[・·]", runs[0].group()) if p), 0, len(fact.rstrip("。.")))


def agrees(rel: Relative, passages: Sequence[tuple[str, tuple[str, ...]]], entity: str) -> bool:
    """Whether the passages tie the relative's name to a compatible role of the subject's."""
    own = {fold_accents(w) for w in entity.split()}
    for text, langs in passages:
        for k in links(text, langs):
            if k.owner or not compatible(rel.role, k.role):
                continue
            theirs = k.name.split()
            matched = [next((t for t in theirs if _alike(n, t)), None) for n in rel.names]
            if all(matched) and any(fold_accents(t) not in own for t in matched if t):
                return True
    return False


def _alike(word: str, name_word: str) -> bool:
    return fold_accents(word) == fold_accents(name_word) or same_name_word(word, name_word)
