"""The detector's word scores of a fact, read from its whole sentence.

The token-level detector (`detector.py`) was trained on sentences: a Wikipedia sentence, corrupted
or kept, against evidence windows. The facts the extractor makes are often clauses of a sentence,
and scored alone they read worse: on mFAVA silver (8 answers per language, the detector alone with
the paraphrase gate) the pipeline's facts scored one by one gave 51.2 token F1, their sentences 58.2,
and the sentences' scores kept inside the facts' spans 57.4 (docs/verifier.md). So a fact whose
sentence is known (`FactContext`) takes the scores of its words from one detector pass over the
sentence, with windows picked for the sentence and the paraphrase gate applied to the sentence;
the sentence is scored once for all its facts (kept in a small LRU).
"""
from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from typing import Any, Callable, Sequence

import numpy as np

from ...protocols import FactContext
from ..lexicon.rule_words import QUOTES
from ..text.textutil import han_simplified, has_cyrillic, serbian_latin
from .windows import lead_first, top_windows

Words = list[tuple[int, int, float]]          # (start, end, p(hallucinated)) per word

CACHE_SENTENCES = 512
COMPARED_WINDOWS = 256   # a sentence's best window is compared with at most this many of the evidence's
APART_MIN_WINDOWS = 5    # ... and with fewer than this many there is no "rest" to stand apart from
MAX_CHARS = 1500         # longer sentences are not read whole (the detector reads 62 tokens at a time:
                         # a 200 KB unpunctuated "sentence" would take minutes); their facts alone


def fact_words(fact: str, ctx: FactContext, words: Words) -> Words:
    """The sentence's word scores that fall in the fact's span, in the fact's own characters: shifted
    when the fact is that span's text, else each word looked up in the (reworded) fact, in order;
    a word the fact does not have is left out."""
    inside = [(a, b, p) for a, b, p in words if a < ctx.end and ctx.start < b]
    if ctx.sentence[ctx.start:ctx.end] == fact:
        return [(max(0, a - ctx.start), min(len(fact), b - ctx.start), p) for a, b, p in inside]
    out: Words = []
    cur = 0
    for a, b, p in inside:
        w = ctx.sentence[a:b]
        if not w.strip():
            continue
        i = fact.find(w, cur)
        if i < 0:
            i = fact.find(w)
        if i < 0:
            # the extractor drops quotes and brackets ("«Братья Карамазовы»." -> "Братья Карамазовы"):
            # the word without them
            w = w.strip(_WORD_EDGES)
            i = fact.find(w, cur) if w else -1
            if i < 0 and w:
                i = fact.find(w)
        if i < 0:
            continue
        out.append((i, i + len(w), p))
        cur = i + len(w)
    return out


_WORD_EDGES = QUOTES + "'‘’‹›「」『』()[]{}（）【】.,;:!?。，；：！？、"


class Read:
    """One sentence as the detector read it: its gated word scores, its tokens (with projected
    states when the scorer projects them; None for an empty sentence), the paraphrase gate's
    cosine (the sentence against its best window), the word scores before the gate, and the text
    and windows the detector read (Chinese simplified, Serbian evidence in Latin letters)."""

    __slots__ = ("words", "tokens", "cos", "raw", "pair")

    def __init__(self, words: Words, tokens: Any = None, cos: float = 0.0, raw: Words | None = None,
                 pair: tuple[str, Sequence[str]] | None = None):
        self.words = words
        self.tokens = tokens
        self.cos = cos
        self.raw = words if raw is None else raw       # the word scores before the gate
        self.pair = pair            # (the sentence as read, its evidence windows): what the pair reader reads


class SentenceScorer:
    """Gated detector word scores of whole sentences against passages, cached by sentence, language
    and passages. With `project` (fact_features.Basis.projection()), the tokens' states are
    projected in the same pass and kept with the words (the fact features)."""

    def __init__(self, gate: Callable[[Words, float, Callable[[], float], str], Words], k: int,
                 size: int = CACHE_SENTENCES,
                 project: Any = None):
        self.gate = gate
        self.k = k
        self.size = size
        self.project = project
        self._cache: OrderedDict[tuple, Read] = OrderedDict()
        self._evidence: OrderedDict[tuple, np.ndarray] = OrderedDict()     # the windows' vectors
        self._lock = threading.Lock()

    def apart(self, embedder: Any, lang: str, passages: Sequence[str], qvec: np.ndarray) -> float:
        """How far a sentence's best window stands apart from the evidence: the E5 cosine of the
        sentence (`qvec`, its query vector) with its best window minus the median over the evidence's
        windows (leads first, at most COMPARED_WINDOWS); 0.0 with fewer than APART_MIN_WINDOWS.
        A paraphrase of one window reads closer to it than to the rest of the article in any
        language; an unsupported sentence about the same subject reads about as close to many."""
        key = (lang, hash(tuple(passages)))
        with self._lock:
            vecs = self._evidence.get(key)
        if vecs is None:
            texts = lead_first(passages, lang, COMPARED_WINDOWS)
            vecs = embedder.embed_passages(texts) if len(texts) >= APART_MIN_WINDOWS else np.zeros((0, 1), np.float32)
            with self._lock:
                self._evidence[key] = vecs
                while len(self._evidence) > 16:
                    self._evidence.popitem(last=False)
        if len(vecs) < APART_MIN_WINDOWS:
            return 0.0
        sims = vecs @ np.asarray(qvec, np.float32)
        return float(sims.max() - np.median(sims))

    def read(self, det: Any, embedder: Any, lang: str, jobs: Sequence[tuple[str, Sequence[str]]],
             side: Any = None, want: frozenset[int] = frozenset()) -> list[Read]:
        """Per (sentence, passage texts): the sentence as read (`Read`). With `side` (`PairReader.side`),
        the sentences of the jobs in `want` read now also get the pair reader's logit on the way
        (`Read.tokens.side`; a sentence already read keeps what it had)."""
        keys = [(s, lang, hash(tuple(ps))) for s, ps in jobs]
        with self._lock:
            known = {k: self._cache[k] for k in keys if k in self._cache}
            for k in known:
                self._cache.move_to_end(k)
        first: dict[tuple, int] = {}
        for i, k in enumerate(keys):
            if k not in known and jobs[i][0].strip():
                first.setdefault(k, i)
        todo = list(first.values())
        wanted = {keys[j] for j in want}
        fresh = self._score(det, embedder, lang, [jobs[i] for i in todo], side,
                            frozenset(n for n, i in enumerate(todo) if keys[i] in wanted))
        with self._lock:
            for i, w in zip(todo, fresh):
                known[keys[i]] = w
                self._cache[keys[i]] = w
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return [known.get(k) or Read([]) for k in keys]

    def _score(self, det: Any, embedder: Any, lang: str, jobs: Sequence[tuple[str, Sequence[str]]],
               side: Any = None, want: frozenset[int] = frozenset()) -> list[Read]:
        if not jobs:
            return []
        if lang == "sr":      # Serbian evidence in Cyrillic, a text in Latin letters: read both in Latin
            jobs = [(s, [serbian_latin(p) for p in ps] if not has_cyrillic(s) else ps) for s, ps in jobs]
        if lang == "zh":      # traditional and simplified characters: both read simplified (same offsets)
            jobs = [(han_simplified(s), [han_simplified(p) for p in ps]) for s, ps in jobs]
        wins = [[w.text for w in top_windows(s, list(ps), lang, k=self.k)] for s, ps in jobs]
        pairs = [(s, ws) for (s, _ps), ws in zip(jobs, wins)]
        if not hasattr(det, "score_tokens"):          # a detector that gives words only
            scored = [(w, None) for w in det.score(pairs)]
        elif side is not None and want:
            scored = det.score_tokens(pairs, project=self.project, side=side, want=want)
        else:
            scored = det.score_tokens(pairs, project=self.project)
        svecs = embedder.embed_queries([s for s, _ps in jobs])
        flat = [w for ws in wins for w in ws]
        pvecs = embedder.embed_passages(flat) if flat else None      # one call for all the windows
        out = []
        pos = 0
        for j, (ws, (words, tokens)) in enumerate(zip(wins, scored)):
            cos = float(np.max(pvecs[pos:pos + len(ws)] @ svecs[j])) if ws and pvecs is not None else 0.0
            pos += len(ws)
            apart = functools.partial(self.apart, embedder, lang, jobs[j][1], svecs[j])    # asked only when needed
            out.append(Read(self.gate(words, cos, apart, lang), tokens, cos, words, pairs[j]))
        return out
