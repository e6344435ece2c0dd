"""Evidence windows: the few sentences of long evidence worth comparing with a fact.

A passage is cut into windows (a sentence; a short one joined with the next) once per text (LRU
cache). For a fact, a cheap lexical stage ranks the windows of all its passages: BM25 over words
(CJK as character bigrams), plus a bonus for each number and capitalised name of the fact that the
window holds. Only the top windows go on to the embedder and the verifier, so a new ~6 KB article
costs a few embeddings, not one per sentence. When nothing matches lexically (the evidence in
another language), the first windows of each passage (a Wikipedia lead states the main facts
first) stand in.
"""
from __future__ import annotations

import functools
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from ..text.textutil import STOPWORDS, fold_script, normalise_digits

_WORDS = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f]")
MIN_WINDOW_CHARS = 40
MAX_WINDOW_CHARS = 600
MIN_SCORE = 1.5


@dataclass(frozen=True)
class Window:
    passage: int          # index of the passage among the fact's passages
    start: int            # offsets in that passage's text
    end: int
    text: str


def terms(text: str) -> list[str]:
    out: list[str] = []
    for w in _WORDS.findall(normalise_digits(text).casefold()):
        if _CJK.search(w):
            out.extend(w[i:i + 2] for i in range(max(1, len(w) - 1)))
        elif w not in STOPWORDS:
            out.append(fold_script(w)[:7])          # a crude stem: "elected"/"election" meet
    return out


@functools.lru_cache(maxsize=1024)
def _cut(text: str, lang: str) -> tuple[tuple[int, int], ...]:
    from ..text.segment import split_sentences

    spans: list[list[int]] = []
    for s in split_sentences(text, lang or "en"):
        if not s.text.strip():
            continue
        if spans and (spans[-1][1] - spans[-1][0] < MIN_WINDOW_CHARS) and s.end - spans[-1][0] <= MAX_WINDOW_CHARS:
            spans[-1][1] = s.end
        else:
            spans.append([s.start, s.end])
    out: list[tuple[int, int]] = []
    for a, b in spans:                 # an over-long "sentence" (a table, a list) in bounded pieces
        while b - a > MAX_WINDOW_CHARS:
            cut = text.rfind(" ", a + MAX_WINDOW_CHARS // 2, a + MAX_WINDOW_CHARS)
            cut = cut if cut > a else a + MAX_WINDOW_CHARS
            out.append((a, cut))
            a = cut
        if b > a:
            out.append((a, b))
    return tuple(out) or ((0, len(text)),)


@functools.lru_cache(maxsize=4096)
def _window_terms(text: str) -> tuple[Counter, int]:
    c = Counter(terms(text))
    return c, sum(c.values())


_CAP = re.compile(r"(?<!^)(?<![.!?]\s)\b([A-ZÀ-ÖØ-ÞА-ЯЁΑ-Ω][\w-]{2,})")
_DIGITS = re.compile(r"\d{2,}")


def windows(passages: Sequence[str], lang: str) -> list[Window]:
    out = []
    for pi, text in enumerate(passages):
        for a, b in _cut(text, lang):
            out.append(Window(pi, a, b, text[a:b]))
    return out


def lead_first(passages: Sequence[str], lang: str, limit: int) -> list[str]:
    """The distinct window texts of `passages`, each passage's first window (its lead) before the
    rest, at most `limit`: the windows the verifier embeds ahead, and the ones a sentence's best
    window is compared with."""
    ws = windows([p for p in passages if p and p.strip()], lang)
    ws.sort(key=lambda w: (w.start > 0, w.passage, w.start))
    return list(dict.fromkeys(w.text for w in ws))[:limit]


def top_windows(fact: str, passages: Sequence[str], lang: str, k: int = 3, lead: int = 1) -> list[Window]:
    """The `k` windows of `passages` that best match `fact` lexically, best first; when fewer than
    `k` match, the first `lead` window(s) fill in, and when none matches, the first `k`."""
    ws = windows(passages, lang)
    if len(ws) <= k:
        return ws
    q = set(terms(fact))
    names = {m.group(1)[:6].casefold() for m in _CAP.finditer(fact)}
    nums = set(_DIGITS.findall(normalise_digits(fact)))
    stats = [_window_terms(w.text) for w in ws]
    n = len(ws)
    df: Counter = Counter()
    for c, _len in stats:
        df.update(t for t in q if t in c)
    avg = sum(length for _c, length in stats) / n or 1.0
    scores = []
    for w, (c, length) in zip(ws, stats):
        s = 0.0
        for t in q:
            f = c.get(t, 0)
            if f:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * (length or 1) / avg))
        if nums:
            s += 0.5 * len(nums & set(_DIGITS.findall(normalise_digits(w.text))))
        if names:
            low = w.text.casefold()
            s += 0.3 * sum(1 for nm in names if nm in low)
        scores.append(s)
    order = sorted(range(n), key=lambda i: (-scores[i], i))
    # a window that shares only a common word or two with the fact is no candidate: the lead is
    # likelier to hold the fact, and it is already embedded
    floor = max(MIN_SCORE, 0.35 * scores[order[0]])
    picked = [i for i in order[:k] if scores[i] >= floor]
    # the lead (a Wikipedia lead states the main facts first) when fewer than k windows matched,
    # and the first windows when nothing matched at all (the evidence in another language)
    for i in range(n):
        if len(picked) >= k or i >= max(lead, k if not picked else lead):
            break
        if i not in picked:
            picked.append(i)
    return [ws[i] for i in picked]
