"""The words of an answer that its evidence does not say: the marks of a text that answers a question.

Annotators of answers to questions (Mu-SHROOM) mark the wrong value ("15. Oktober 1932", a title, a
name), not the fact around it. A word is *said* when the evidence or the question has it:

- the same word after case and accent folding (digits of every script read as 0-9), or each part of a
  hyphenated word ("white-winged" says "white" and "winged");
- for a word of six letters or more, a word with its first five letters (inflection: "Physikerin" /
  "Physiker");
- a word at most `FUZZY` of its letters away, starting with the same letter (a misspelling:
  "Carofilio" / "Carofiglio", "Salzberg" / "Salzburg": annotators do not mark typos);
- a number only where the evidence has its digits;
- in Arabic script, the letters written one for another read as one (أ إ آ / ا, ى / ي, ة / ه) and a
  word also without the clitics on its front (و ف ب ل ك, the article ال).

Function words and hedges ("around", "rund": `HEDGES`) are never marked, nor the words the question
says (`without_asked`). A word is its letters with their combining marks (the vowel signs of
Devanagari, Arabic harakat), not cut at them. In a language read by character (Chinese, Japanese) a
run of characters is said where the evidence has each of its two-character pieces. Marked words a
word or two apart, on one line, are one mark, as annotators mark a phrase ("Bordarztes Dr. Simon
Brice"). A mark of a value with at most two words beside it is the value ("beträgt 10,4" -> "10,4":
`values_only`); a mark inside a name is the whole name, the question's words included ("Elizabeth
Sterling": `whole_names`).

Which evidence says it: a long page says most words somewhere, so a sentence of the answer is read
against the evidence window that shares most with it and the question (`local_evidence`: windows of
`WINDOW_SENTENCES` sentences, overlap weighted by rarity), not against the whole page.
"""
from __future__ import annotations

import functools
import math
import re
from collections import Counter, defaultdict
from typing import Sequence

from ..text.cldr import magnitude_words, month_names_of
from ..text.textutil import MARKED_WORD, SPACELESS, STOPWORDS, WORD_PART, fold_accents, normalise_digits

PREFIX = 5              # letters two words share to be one word inflected
MIN_PREFIXED = 6        # ... in words of at least this many letters
FUZZY = 0.3             # edits per letter that still make two words one (a misspelling) ...
MIN_FUZZY = 4           # ... in words of at least this many letters
GAP_WORDS = 2           # words between two marks that still make them one
GAP_CHARS = 20          # ... in at most this many characters
GAP_CHARACTERS = 1      # where a character is about a word: characters between two marks that join them
VALUE_FRAME = 2         # content words beside a value that a mark of the value drops ("beträgt 10,4")
WINDOW_SENTENCES = 2    # sentences of the evidence read together against a sentence of the answer
WINDOWS = 1             # windows read per sentence of the answer

_WORD = MARKED_WORD
_PARTS = re.compile(WORD_PART)
_HAN_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+|[^\W_]+")
_DIGITS = re.compile(r"\d")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")


_ARABIC_LETTERS = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ى": "ي", "ة": "ه", "ؤ": "و", "ئ": "ي",
                                 "ـ": None, "گ": "ك", "ک": "ك", "ی": "ي"})
_ARABIC_PREFIXES = ("وال", "بال", "فال", "كال", "لل", "ال", "و", "ف", "ب", "ل", "ك")
_ARABIC = re.compile(r"[\u0600-\u06ff]")


def fold(word: str) -> str:
    """A word as it is compared: lower case, no accents, ASCII digits; in Arabic script the letters
    written one for another folded to one (hamza seats, alif maqsura, ta marbuta, tatweel)."""
    w = fold_accents(normalise_digits(word))
    return w.translate(_ARABIC_LETTERS) if _ARABIC.search(w) else w


def bare(word: str) -> str:
    """A folded word without the clitics Arabic writes on its front (و، ف، ب، ل، ك and the article
    ال), where three letters or more remain; any other word as it is."""
    if not _ARABIC.match(word):
        return word
    for p in _ARABIC_PREFIXES:
        if word.startswith(p) and len(word) - len(p) >= 3:
            return word[len(p):]
    return word


# words that hedge or sum up a value ("around 1.5 million", "rund 50.000", "कुल १२"): annotators mark
# the value, not these; never marked, like function words
HEDGES = frozenset(fold(w) for w in """
around approximately roughly nearly almost typically usually generally
etwa rund ungefähr circa ca knapp insgesamt
environ presque quasi
alrededor aproximadamente casi cerca
noin lähes yhteensä
ungefär omkring cirka nästan totalt
लगभग करीब क़रीब तक़रीबन कुल
حوالي تقريبا قرابة
""".split())


@functools.lru_cache(maxsize=64)
def _said_words(texts: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str], dict[str, list[str]], str]:
    """The folded words of `texts` (and the parts of hyphenated ones), their five-letter prefixes,
    the words by first letter (for misspellings), and the texts folded as one; read once for the
    facts that share their passages."""
    words: set[str] = set()
    for t in texts:
        for m in _WORD.finditer(t):
            w = fold(m.group())
            words.add(w)
            words.add(bare(w))
            words.update(_PARTS.findall(w))
    prefixes = frozenset(w[:PREFIX] for w in words if len(w) >= PREFIX)
    by_letter: dict[str, list[str]] = defaultdict(list)
    for w in words:
        if len(w) >= MIN_FUZZY and not _DIGITS.search(w):
            by_letter[w[0]].append(w)
    return frozenset(words), prefixes, dict(by_letter), fold("\n".join(texts))


@functools.lru_cache(maxsize=64)
def _lowered(texts: tuple[str, ...]) -> str:
    """The texts as one, in lower case (once for the facts that share them)."""
    return "\n".join(texts).lower()


def edits_within(a: str, b: str, cap: int) -> bool:
    """Whether `a` becomes `b` in at most `cap` insertions, deletions and substitutions."""
    if abs(len(a) - len(b)) > cap:
        return False
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        if min(cur) > cap:
            return False
        prev = cur
    return prev[-1] <= cap


def _word_said(word: str, said: tuple[frozenset[str], frozenset[str], dict[str, list[str]], str]) -> bool:
    words, prefixes, by_letter, folded = said
    w = fold(word)
    if w in words or w in STOPWORDS or w in HEDGES:
        return True
    if bare(w) in words:
        return True
    if _DIGITS.search(w):
        return w in folded
    parts = _PARTS.findall(w)
    if len(parts) > 1 and all(p in words or p in STOPWORDS for p in parts):
        return True
    if len(w) >= MIN_PREFIXED and w[:PREFIX] in prefixes:
        return True
    cap = int(len(w) * FUZZY)
    if len(w) >= MIN_FUZZY and cap >= 1:
        return any(edits_within(w, v, cap) for v in by_letter.get(w[0], ()))
    return False


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
    """Marks a word or two apart on one line joined into one (a character apart, `by_character`),
    not across a hedge ("beträgt rund 50.000": the value is its own mark)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(marks):
        if out:
            between = text[out[-1][1]:a]
            gap = [] if by_character else _WORD.findall(between)
            near = (len(between) <= GAP_CHARACTERS if by_character
                    else len(between) <= GAP_CHARS and len(gap) <= GAP_WORDS
                    and not any(fold(w) in HEDGES for w in gap))
            if a <= out[-1][1] or ("\n" not in between and near):
                out[-1] = (out[-1][0], max(out[-1][1], b))
                continue
        out.append((a, b))
    return out


def unsaid_words(text: str, lang: str, sources: Sequence[str]) -> list[tuple[int, int]]:
    """The spans of the words of `text` (the characters, in a language read by character) that
    `sources` do not say, each on its own: before `unsaid` joins them and cuts them to values."""
    if lang in SPACELESS:
        return _by_character(text, _lowered(tuple(sources)))
    said = _said_words(tuple(sources))
    return [(m.start(), m.end()) for m in _WORD.finditer(text) if not _word_said(m.group(), said)]


def unsaid(text: str, lang: str, evidence: Sequence[str], question: str = "") -> list[tuple[int, int]]:
    """The spans of `text` that neither the evidence nor the question says, joined as annotators
    mark them, a value's mark cut to the value (`values_only`)."""
    found = unsaid_words(text, lang, [*evidence, question])
    if lang in SPACELESS:
        return merge(text, found, by_character=True)
    return values_only(text, merge(text, found), lang)


@functools.lru_cache(maxsize=None)
def _value_words(lang: str) -> frozenset[str]:
    return frozenset(fold(w).strip(".") for w in magnitude_words(lang) | month_names_of([lang]))


def _is_value(word: str, lang: str) -> bool:
    """A word of a value: it has a digit, or it is a month's name or a number's word ("Millionen")
    in CLDR."""
    return bool(_DIGITS.search(word)) or fold(word).strip(".") in _value_words(lang)


def values_only(text: str, marks: Sequence[tuple[int, int]], lang: str) -> list[tuple[int, int]]:
    """Each mark that holds a value and at most VALUE_FRAME other words (function words aside) cut
    to the value, from its first word to its last: annotators mark "10,4" in "beträgt 10,4", "200 und
    300" in "wiegen zwischen 200 und 300", "15. Oktober 1932", not the words that frame them. A longer
    mark is a claim of its own and stays whole."""
    out: list[tuple[int, int]] = []
    for a, b in marks:
        words = list(_WORD.finditer(text, a, b))
        value = [w for w in words if _is_value(w.group(), lang)]
        frame = [w for w in words if not _is_value(w.group(), lang) and fold(w.group()) not in STOPWORDS]
        out.append((value[0].start(), value[-1].end()) if value and len(frame) <= VALUE_FRAME else (a, b))
    return out


# --------------------------------------------------------------------------- the window that says it


def _keys(text: str, lang: str) -> frozenset[str]:
    """What two texts share when they speak of the same thing: five-letter word stems (function
    words left out), or two-character pieces in a language read by character."""
    if lang in SPACELESS:
        t = text.lower()
        return frozenset(t[i:i + 2] for i in range(len(t) - 1) if not t[i:i + 2].isspace())
    return frozenset(w[:PREFIX] for w in map(fold, _WORD.findall(text)) if w not in STOPWORDS)


@functools.lru_cache(maxsize=16)
def _windows(evidence: tuple[str, ...], lang: str) -> tuple[list[str], list[frozenset[str]], dict[str, float]]:
    """The evidence as windows of WINDOW_SENTENCES sentences (a sentence apart), their keys, and each
    key's weight (log(1 + windows / windows with it)); once per evidence."""
    sents = [s for t in evidence for s in _SENTENCE_END.split(t) if s.strip()]
    step = max(1, WINDOW_SENTENCES // 2)
    wins = [" ".join(sents[i:i + WINDOW_SENTENCES]) for i in range(0, len(sents), step)]
    keys = [_keys(w, lang) for w in wins]
    df = Counter(k for ks in keys for k in ks)
    n = len(wins)
    return wins, keys, {k: math.log(1 + n / c) for k, c in df.items()}


def ranked_windows(sentence: str, question: str, evidence: Sequence[str], lang: str) -> tuple[list[str], list[int]]:
    """The evidence's windows and their indices from the one that shares most with `sentence` (of
    an answer to `question`) to the one that shares least, each shared key weighted by its rarity
    (ties in the evidence's order)."""
    wins, keys, weight = _windows(tuple(evidence), lang)
    want = _keys(sentence, lang) | _keys(question, lang)
    score = [math.fsum(weight[k] for k in ks & want) for ks in keys]       # exact: no set order in it
    return wins, sorted(range(len(wins)), key=lambda i: (-score[i], i))


def local_evidence(sentence: str, question: str, evidence: Sequence[str], lang: str) -> list[str]:
    """The evidence windows that `sentence` (of an answer to `question`) is read against: the WINDOWS
    first of `ranked_windows`, in the evidence's order."""
    wins = _windows(tuple(evidence), lang)[0]
    if len(wins) <= WINDOWS:
        return wins
    wins, order = ranked_windows(sentence, question, evidence, lang)
    return [wins[i] for i in sorted(order[:WINDOWS])]


def whole_names(text: str, marks: Sequence[tuple[int, int]], lang: str) -> list[tuple[int, int]]:
    """Each mark that begins or ends inside a name carried to the whole name: the capitalised words a
    space apart around it (not the text's first word, which is capitalised as the start of a
    sentence). Annotators mark a wrong name whole ("Elizabeth Sterling" where the question says
    Sterling, "The Long Tomorrow"), not the part the evidence and the question do not say."""
    if lang in SPACELESS or not marks:
        return list(marks)
    words = list(_WORD.finditer(text))
    out: list[tuple[int, int]] = []
    for a, b in sorted(marks):
        inside = [i for i, w in enumerate(words) if w.start() < b and w.end() > a]
        if not inside:
            out.append((a, b))
            continue
        i, j = inside[0], inside[-1]
        if words[i].group()[:1].isupper():
            while i > 0 and words[i - 1].start() > 0 and _joined(text, words[i - 1], words[i]):
                i -= 1
        if words[j].group()[:1].isupper():
            while j + 1 < len(words) and _joined(text, words[j], words[j + 1]):
                j += 1
        a, b = min(a, words[i].start()), max(b, words[j].end())
        if out and a <= out[-1][1]:         # two marks of one name are one
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _joined(text: str, left: re.Match[str], right: re.Match[str]) -> bool:
    """Whether two words are of one name: both capitalised, one space apart."""
    return (left.group()[:1].isupper() and right.group()[:1].isupper()
            and text[left.end():right.start()] == " ")


def without_asked(text: str, marks: Sequence[tuple[int, int]], lang: str, question: str) -> list[tuple[int, int]]:
    """`marks` of `text` without the words the question says (function words aside): annotators mark
    an answer's wrong values, not the question it restates (in "The previous name of Gillette Stadium
    was Foxboro Stadium", asked for the stadium's previous name, not at "previous name of Gillette
    Stadium"). Marks left with no word of their own are dropped."""
    if not question or lang in SPACELESS or not marks:
        return list(marks)
    said = _said_words((question,))
    cuts = [(m.start(), m.end()) for m in _WORD.finditer(text)
            if fold(m.group()) not in STOPWORDS and _word_said(m.group(), said)]
    out: list[tuple[int, int]] = []
    for a, b in marks:
        pieces = [(a, b)]
        for x, y in cuts:
            if y <= a or x >= b:
                continue
            pieces = [p for s, e in pieces for p in ((s, min(e, x)), (max(s, y), e)) if p[1] > p[0]]
        for s, e in pieces:
            words = [w for w in _WORD.finditer(text, s, e) if fold(w.group()) not in STOPWORDS]
            if words:
                out.append((words[0].start(), words[-1].end()))
    return out
