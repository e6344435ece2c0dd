"""Which words of a not-supported fact are marked: the detector's flagged words, narrowed to what
the evidence does not say, or the whole fact."""
from __future__ import annotations

from typing import Sequence
from ..slots.check import _sentence_words
from ..text.textutil import (SPACELESS, STOPWORDS, words_with_offsets)


WHOLE = 0.8            # marks on this share of a fact's characters flag it whole ...
_SYLLABLES = SPACELESS | {"ko", "th"}   # ... and is narrowed where words are more than characters (a
                                        # Korean fact narrowed to syllables: silver ko -0.7)


def _whole(fact: str, marks: Sequence[tuple[int, int]]) -> bool:
    """Marks that cover the fact, or nearly (WHOLE of its characters other than spaces)."""
    size = sum(1 for ch in fact if not ch.isspace())
    marked = sum(1 for a, b in marks for ch in fact[a:b] if not ch.isspace())
    return size > 0 and marked >= WHOLE * size


NEAR_COPY = 0.6        # share of a fact's content words in one evidence sentence: a near copy


def narrow_marks(fact: str, entity: str, passages: Sequence[str]) -> list[tuple[int, int]]:
    """The wrong words of a not-supported fact that nearly copies an evidence sentence: its content
    words that neither that sentence nor any other passage has ("... the United Kingdom ..."
    against "... the United States ..."). Empty when the fact copies no sentence (an invented or
    unverifiable statement is wrong as a whole) or when every word is found."""
    ent = {w.lower()[:5] for w, _a, _b in words_with_offsets(entity)}
    words = [(w.lower()[:5], a, b) for w, a, b in words_with_offsets(fact)
             if w.lower() not in STOPWORDS and w.lower()[:5] not in ent]
    if len(words) < 3:
        return []
    content = {w for w, _a, _b in words}
    best: frozenset[str] = frozenset()
    share = 0.0
    everywhere: set[str] = set()
    for text in passages:
        for _s, _e, sw in _sentence_words(text):
            everywhere |= sw
            sh = len(content & sw) / len(content)
            if sh > share:
                share, best = sh, sw
    if share < NEAR_COPY or share >= 1.0:
        return []
    out: list[list[int]] = []
    for w, a, b in words:
        if w in best or w in everywhere:
            continue
        if out and a - out[-1][1] <= 1:
            out[-1][1] = b
        elif out and not fact[out[-1][1]:a].strip(" ,-"):
            out[-1][1] = b
        else:
            out.append([a, b])
    # a mark that swallows most of the fact says no more than the fact's own span
    if sum(b - a for a, b in out) > 0.6 * len(fact.strip()):
        return []
    return [(a, b) for a, b in out]


_REL_WORDS: set[str] | None = None
