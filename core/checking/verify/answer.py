"""The words of an answer that its evidence does not say: the marks of a not-supported fact in a text
that answers a question.

Annotators of answers to questions (Mu-SHROOM) mark the wrong value ("15. Oktober 1932", a title, a
name), not the fact around it. A word is *said* when the evidence or the question has it: the same
word after case and accent folding, or, for a word of six letters or more, a word with its first five
letters (inflection: "Physikerin" / "Physiker"); a number when the evidence has its digits. Function
words are never marked. In a language read by character (Chinese, Japanese) a run of characters is
said where the evidence has each of its two-character pieces. Marked words a word or two apart, on one
line, are one mark, as annotators mark a phrase ("Bordarztes Dr. Simon Brice").
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

from ..text.textutil import SPACELESS, STOPWORDS, fold_accents

PREFIX = 5              # letters two words share to be one word inflected
MIN_PREFIXED = 6        # ... in words of at least this many letters
GAP_WORDS = 2           # words between two marks that still make them one
GAP_CHARS = 12          # ... in at most this many characters
GAP_CHARACTERS = 1      # where a character is about a word: characters between two marks that join them

_WORD = re.compile(r"[^\W_]+(?:[.,'’\-][^\W_]+)*")
_HAN_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+|[^\W_]+")
_DIGITS = re.compile(r"\d")


@functools.lru_cache(maxsize=32)
def _said_words(texts: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str], str]:
    """The folded words of `texts`, their five-letter prefixes, and the texts folded as one (read
    once for the NS facts of an answer that share their passages, not once per fact)."""
    words = frozenset(fold_accents(m.group()) for t in texts for m in _WORD.finditer(t))
    prefixes = frozenset(w[:PREFIX] for w in words if len(w) >= PREFIX)
    return words, prefixes, fold_accents("\n".join(texts))


@functools.lru_cache(maxsize=32)
def _lowered(texts: tuple[str, ...]) -> str:
    """The texts as one, in lower case (once for the facts that share them)."""
    return "\n".join(texts).lower()


def _word_said(word: str, words: frozenset[str], prefixes: frozenset[str], folded: str) -> bool:
    w = fold_accents(word)
    if w in words or w in STOPWORDS:
        return True
    if _DIGITS.search(w):
        return w in folded
    return len(w) >= MIN_PREFIXED and w[:PREFIX] in prefixes


def _by_character(text: str, said: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for m in _HAN_RUN.finditer(text):
        run = m.group()
        if run.isascii() or len(run) == 1:
            if run.isascii() and run.lower() not in said:
                out.append((m.start(), m.end()))
            continue
        for i in range(len(run) - 1):
            if run[i:i + 2] not in said:
                out.append((m.start() + i, m.start() + i + 2))
    return out


def merge(text: str, marks: Sequence[tuple[int, int]], by_character: bool = False) -> list[tuple[int, int]]:
    """Marks a word or two apart on one line joined into one (a character apart, `by_character`)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(marks):
        if out:
            between = text[out[-1][1]:a]
            near = (len(between) <= GAP_CHARACTERS if by_character
                    else len(between) <= GAP_CHARS and len(_WORD.findall(between)) <= GAP_WORDS)
            if a <= out[-1][1] or ("\n" not in between and near):
                out[-1] = (out[-1][0], max(out[-1][1], b))
                continue
        out.append((a, b))
    return out


def unsaid(text: str, lang: str, evidence: Sequence[str], question: str = "") -> list[tuple[int, int]]:
    """The spans of `text` that neither the evidence nor the question says, joined as annotators
    mark them."""
    sources = [*evidence, question]
    if lang in SPACELESS:
        return merge(text, _by_character(text, _lowered(tuple(sources))), by_character=True)
    words, prefixes, folded = _said_words(tuple(sources))
    found = [(m.start(), m.end()) for m in _WORD.finditer(text)
             if not _word_said(m.group(), words, prefixes, folded)]
    return merge(text, found)
