"""The words of a fact worth highlighting in its evidence (the TUI's evidence pane and the HTML
export both mark them)."""
from __future__ import annotations

import re
import unicodedata
from typing import Iterable

_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f]+")
_STOP = {"the", "and", "was", "his", "her", "she", "for", "with", "that", "this", "from", "has",
         "had", "were", "are", "who", "which", "also", "de", "la", "el", "en", "le", "les", "des",
         "del", "los", "las", "et", "un", "une", "por", "con", "est", "fue"}


def _strip_punct(tok: str) -> str:
    i, j = 0, len(tok)
    while i < j and unicodedata.category(tok[i])[0] in "PSZ":
        i += 1
    while j > i and unicodedata.category(tok[j - 1])[0] in "PSZ":
        j -= 1
    return tok[i:j]


def match_terms(fact: str) -> list[str]:
    """Words of the fact worth highlighting in evidence (case-insensitive, stop words dropped).
    Words are whitespace-separated, so Indic words keep their vowel signs; runs of Han, kana,
    Hangul or Thai (written without spaces) give their character pairs."""
    terms: set[str] = set()
    for raw in (fact or "").split():
        tok = _strip_punct(raw)
        if not tok:
            continue
        lw = tok.lower()
        if lw in _STOP:
            continue
        cjk = _CJK.findall(tok)
        if cjk:
            for run in cjk:
                terms.update(run[i:i + 2] for i in range(max(1, len(run) - 1)))
            continue
        if len(tok) >= 3 or not tok.isascii() or tok.isdigit():
            terms.add(lw)
    return sorted(terms, key=len, reverse=True)


def term_pattern(terms: Iterable[str]) -> re.Pattern | None:
    """One case-insensitive pattern matching any of `terms` (longest first); None for none."""
    terms = sorted({t for t in terms if t}, key=len, reverse=True)
    if not terms:
        return None
    return re.compile("|".join(re.escape(t) for t in terms), re.IGNORECASE)
