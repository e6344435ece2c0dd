"""A person's name written in another script: "마리 퀴리", "マリ・キュリー", "Μαρί Κιουρί", "ماري كوري",
"मैरी क्यूरी", "מארי קירי" and "มารี กูรี" are "Marie Curie".

Each word is written in Latin letters (anyascii's tables, ISC) and reduced to its consonants by
sound class (b p f v; c k q g x; d t; s z; l r; m n), vowels and glides dropped, doubled letters
once: "Marie" and "마리" (MaLi) are both "NR", "Curie", "퀴리" (KwiLi) and "キュリー" (kiyuri) "KR",
"Einstein" and "アインシュタイン" (ainshiyutain) "NSTN". Two words match when their skeletons of two or
more classes are equal, or, in a script that writes particles and endings onto a name (Korean,
Japanese, Turkish ...), when the word's skeleton is the name's and one class more ("퀴리는": "KRN").

Between different scripts it is the only comparison there is. Within one script only a capitalised
word is compared this way, and only where spelling rules found nothing ("Kiuri" for "Curie" in
Lithuanian).
"""
from __future__ import annotations

import functools
import re
from typing import Callable

from ..text.textutil import scripts_of

_ascii: Callable[[str], str] | None
try:
    from anyascii import anyascii as _ascii
except ImportError:  # pragma: no cover - anyascii is a dependency
    _ascii = None

_DIGRAPHS = (("sch", "s"), ("sh", "s"), ("ch", "k"), ("zh", "s"), ("kh", "k"), ("ph", "p"), ("th", "t"),
             ("ts", "s"), ("tz", "s"), ("ck", "k"), ("gh", "k"))
_CLASS = str.maketrans({"b": "P", "p": "P", "f": "P", "v": "P", "c": "K", "k": "K", "q": "K", "g": "K",
                        "x": "K", "d": "T", "t": "T", "s": "S", "z": "S", "j": "S", "l": "R", "r": "R",
                        "m": "N", "n": "N"})
_DROP = re.compile(r"[^PKTSRN]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
# scripts whose words take a particle or an ending written on ("퀴리는", "キュリーは" is spaced off by は)
_ENDINGS = frozenset({"HANGUL", "HIRAGANA", "KATAKANA"})


@functools.lru_cache(maxsize=4096)
def skeleton(word: str, soft: bool = False) -> str:
    """A word's consonants by sound class, in Latin letters whatever its script ("" without anyascii).
    `soft`: a Latin word's c and g before e, i and y read as s and j, as Spanish, French, Italian and
    English names say them ("García", 가르시아, is "KRS"; read hard, "KRK")."""
    if _ascii is None:
        return ""
    s = _ascii(word).lower()
    if _HAN.search(word):
        s = s.replace("j", "g")      # pinyin j, q, x come from k/g sounds: "居里" (ju li) is "Curie"
    elif soft:
        s = re.sub(r"g(?=[eiy])", "j", re.sub(r"c(?=[eiy])", "s", s))
    for a, b in _DIGRAPHS:
        s = s.replace(a, b)
    s = _DROP.sub("", s.translate(_CLASS))
    return re.sub(r"(.)\1+", r"\1", s)


def _script(text: str) -> frozenset[str]:
    return scripts_of(text) - {"COMMON"}


def other_script(word: str, name: str) -> bool:
    """Whether `word` and `name` are written in scripts with no letter in common."""
    a, b = _script(word), _script(name)
    return bool(a) and bool(b) and not (a & b)


def same_name_word(word: str, name_word: str) -> bool:
    """Whether `word`, in another script than `name_word`, is that name word by sound ("퀴리는" for
    "Curie"). False within one script."""
    if not other_script(word, name_word):
        return False
    w, n = skeleton(word), skeleton(name_word)
    if len(n) < 2 or not w:
        return False
    if w == n or (_script(name_word) == {"LATIN"} and w == skeleton(name_word, soft=True)):
        return True
    return bool(_script(word) & _ENDINGS) and len(w) == len(n) + 1 and w.startswith(n)


def names_entity(word: str, entity: str) -> bool:
    """Whether a word of a text is one of the entity's name words written in another script."""
    return any(same_name_word(word, e) for e in re.split(r"[\s\-]+", entity) if len(e) > 1)


def sounds_like(word: str, entity: str) -> bool:
    """Whether `word` is one of the entity's name words by sound: in another script (`names_entity`), or
    in the same script when it is capitalised and its skeleton is a name word's ("Kiuri": "Curie")."""
    if names_entity(word, entity):
        return True
    if not word[:1].isupper():
        return False
    w = skeleton(word)
    return len(w) >= 2 and any(skeleton(e) == w for e in re.split(r"[\s\-]+", entity) if len(e) > 1)


# titles after a Chinese name ("居里夫人": Madame Curie)
_HAN_TITLES = ("夫人", "先生", "女士", "博士", "教授")
_HAN_NAME_RUN = re.compile(r"[\u4e00-\u9fff]+(?:·[\u4e00-\u9fff]+)*")


def one_fewer(short: str, long: str) -> bool:
    """Whether skeleton `short` is `long` with one consonant left out ("TN" for "TRN": Korean, Japanese
    and Chinese transcriptions drop an r)."""
    return len(long) == len(short) + 1 and any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _han_part(part: str, entity_words: list[str]) -> bool:
    """A Chinese transcription of one of the name words: the same skeleton, or one consonant fewer
    ("阿尔伯特", a er bo te, for "Albert": RPT for RPRT)."""
    w = skeleton(part)
    for e in entity_words:
        n = skeleton(e)
        if len(n) >= 2 and (w == n or (len(n) >= 3 and one_fewer(w, n))):
            return True
    return False


def han_name_spans(text: str, entity: str) -> list[tuple[int, int]]:
    """Where a Chinese text writes the entity's name (entity in Latin letters): a dotted name all of whose
    parts transcribe name words ("玛丽·居里"), or two to four characters that open the text or a clause
    and transcribe one, before a title, a particle or a verb ("居里夫人出生于", "爱因斯坦于")."""
    words = [e for e in re.split(r"[\s\-]+", entity) if len(e) > 1 and not _HAN.search(e)]
    if not words:
        return []
    out = []
    for m in _HAN_NAME_RUN.finditer(text):
        run, a = m.group(), m.start()
        *first, last = run.split("·")
        if first and not all(_han_part(p, words) for p in first):
            continue
        if not first and a > 0 and text[a - 1] not in "，。；：、,;: \n（(「『\"":
            continue
        at = a + sum(len(p) + 1 for p in first)          # where the last part starts
        for n in (len(last), 4, 3, 2):
            if 2 <= n <= min(4, len(last)) and (n < len(last) or first) and _han_part(last[:n], words):
                end = at + n
                title = next((t for t in _HAN_TITLES if text.startswith(t, end)), "")
                out.append((a, end + len(title)))
                break
    return out
