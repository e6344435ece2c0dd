"""CaLMScore surface checks of one text (Arora et al., CaLMQA): non-empty, in the requested language,
not repetitive (a run of >= 20 tokens of `o200k_base` occurring >= 4 times).

The `o200k_base` encoding is loaded offline from the `bpe-openai` package, which ships the file
tiktoken would otherwise download.
"""
from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING, Iterable

from .figures import Checks

REPEAT_RUN = 20
REPEAT_TIMES = 4

_lock = threading.Lock()
_encoding = None


if TYPE_CHECKING:  # pragma: no cover
    from .protocols import LanguageDetector
    from .session import Session

def _o200k():
    global _encoding
    with _lock:
        if _encoding is None:
            import bpe_openai

            _encoding = bpe_openai.get_encoding("o200k_base")
        return _encoding


_CHUNK = 20_000


def tokenize(text: str) -> list[int]:
    """Token ids of `o200k_base` (offline). A long text is encoded in pieces cut at whitespace (the
    encoder refuses very long inputs), which gives the same tokens except at the cuts."""
    if not text:
        return []
    enc = _o200k()
    if len(text) <= _CHUNK:
        return list(enc.encode(text))
    out: list[int] = []
    pos, n = 0, len(text)
    while pos < n:
        end = min(n, pos + _CHUNK)
        if end < n:
            cut = max(text.rfind(" ", pos, end), text.rfind("\n", pos, end))
            end = cut if cut > pos + _CHUNK // 2 else end
        out.extend(enc.encode(text[pos:end]))
        pos = end
    return out


def repeated_run(tokens: Iterable[int], run: int = REPEAT_RUN, times: int = REPEAT_TIMES) -> tuple[int, ...] | None:
    """The first run of `run` consecutive tokens that occurs at least `times` times (occurrences may
    overlap: "a a a a ..." repeats too), or None. Any longer repeated run contains such a run."""
    toks = list(tokens)
    if run <= 0 or len(toks) < run:
        return None
    seen: Counter = Counter()
    for i in _candidates(toks, run, times):
        key = tuple(toks[i:i + run])
        seen[key] += 1
        if seen[key] >= times:
            return key
    return None


def _candidates(toks: list, run: int, times: int) -> Iterable[int]:
    """The start of every run of `run` tokens that may occur `times` times, in order: those whose
    rolling hash does (every occurrence of a repeated run has the same hash, so the count above
    finds the same run as over all starts). A 1 MB text has 400,000 runs: hashing them with numpy
    takes 20 ms where counting them all as tuples took 0.3 s. Tokens that are not integers of 64
    bits: every start."""
    n = len(toks) - run + 1
    if n < 4 * times or times <= 1:
        return range(n)
    try:
        import numpy as np

        arr = np.asarray(toks, dtype=np.uint64)
        if arr.ndim != 1:
            return range(n)
    except (ImportError, TypeError, ValueError, OverflowError):
        return range(n)
    h = np.zeros(n, dtype=np.uint64)
    p = np.uint64(1_000_003)
    for j in range(run):        # polynomial hash of each window, wrapping modulo 2**64
        h = h * p + arr[j:j + n]
    _, inv, counts = np.unique(h, return_inverse=True, return_counts=True)
    return np.nonzero(counts[inv] >= times)[0].tolist()


def is_repetitive(text: str, run: int = REPEAT_RUN, times: int = REPEAT_TIMES) -> bool:
    return repeated_run(tokenize(text), run, times) is not None


def _norm_lang(code: str) -> str:
    code = (code or "").strip().lower().replace("_", "-")
    return code.split("-")[0]


def session_checks(session: "Session") -> Checks:
    """A session's CaLM checks: its own when it has them, else computed from its text."""
    if session.checks.has_calm:
        return session.checks
    return calm_checks(session.text, session.language)


def calm_checks(text: str, lang: str, detector: "LanguageDetector | None" = None) -> Checks:
    """CaLMScore checks of one answer in the requested language `lang`.

    Returns the Checks {non_empty, detected_language, language_prob, language_ok, repetitive, passed}:
    `passed` is what CaLMScore counts (non-empty, right language, not repetitive). An empty text is
    not in the right language and not repetitive. `detector`: the LanguageDetector to use (default:
    mfact.core.langid.detect, py3langid with polyglot for the languages it decides)."""
    from .langid import detect as detect_expecting

    non_empty = bool(text and text.strip())
    if non_empty:
        detected, prob = detector.detect(text) if detector is not None else detect_expecting(text, expect=lang)
    else:
        detected, prob = "", 0.0
    language_ok = non_empty and _norm_lang(detected) == _norm_lang(lang)
    repetitive = non_empty and is_repetitive(text)
    return Checks(
        non_empty=non_empty,
        detected_language=detected or None,
        language_prob=round(float(prob), 4),
        language_ok=bool(language_ok),
        repetitive=bool(repetitive),
        passed=bool(non_empty and language_ok and not repetitive),
    )
