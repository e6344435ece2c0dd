"""Which fact to label next ("next uncertain"): the TUI's `w` key and bench/learning.py's simulated
user both ask `LabelOrder.next`, one fact at a time.

Each pick is the unlabelled fact whose p(supported) is closest to the decision threshold (its label
teaches the most about where the threshold lies), except every SPREAD_EVERY-th of the first
SPREAD_UNTIL labels: a *spread* pick, the unlabelled fact nearest a quantile of p(supported) over
all the facts, the quantiles taken in the van der Corput order (the median, then the quartiles, then
the eighths...). So the labels the first refit learns from (the TUI refits after 25) cover the whole
range of p, and the calibration sees how far off the verifier is away from the threshold, not only
next to it: labels bunched near p = 0.5 estimate a shift of the verifier worse than a sample spread
over p does (fr: the adaptation gained 4.6 points from 50 random labels, 1.5 from 50 of the
nearest). After the first refit, the facts nearest the threshold are the ones to ask about
(docs/learning.md, "the order").

Deterministic for a given state (the facts, their p, which are labelled): facts of equal p are
taken in the order of a hash of their ids, salted (the TUI salts with the session's id, the bench
with its seed); the order of the facts in the list does not matter.
"""
from __future__ import annotations

import zlib
from typing import Sequence

import numpy as np

from .features import THRESHOLD, p_supported

SPREAD_EVERY = 3        # labels 3, 6, ... 24 (n = 2, 5, ... 23 labelled before) are spread picks
SPREAD_UNTIL = 25       # from the 26th label on, nearest the threshold only


def spread_quantile(j: int) -> float:
    """The j-th spread pick's quantile (j = 0, 1, ...): the van der Corput sequence in base 2
    (0.5, 0.25, 0.75, 0.125, 0.625, ...), each new one in the widest gap the others leave."""
    out, f, j = 0.0, 0.5, j + 1
    while j:
        out += f * (j & 1)
        j >>= 1
        f *= 0.5
    return out


class LabelOrder:
    """The order in which facts are asked for labels, over a fixed list of facts (`ids`)."""

    def __init__(self, ids: Sequence[str], salt: str = ""):
        h = np.array([zlib.crc32(f"{salt}\x1f{i}".encode("utf-8")) for i in ids], dtype=np.int64)
        self.rank = np.empty(len(h), dtype=np.int64)          # the tie-break: by hash, then by id
        self.rank[np.lexsort((np.array(list(ids), dtype=object).astype(str), h))] = np.arange(len(h))

    def next(self, p: Sequence[float], labelled: Sequence[bool]) -> int | None:
        """The index of the fact to label next, given every fact's p(supported) (NaN: no S/NS
        verdict, never asked) and which are labelled; None when no unlabelled fact has a p."""
        p = np.asarray(p, dtype=np.float64)
        valid = np.isfinite(p)
        free = valid & ~np.asarray(labelled, dtype=bool)
        if not free.any():
            return None
        idx = np.flatnonzero(free)
        n = int(np.count_nonzero(valid)) - len(idx)                # labelled facts with a p
        if n < SPREAD_UNTIL and n % SPREAD_EVERY == SPREAD_EVERY - 1:
            return self._spread(p, valid, idx, n // SPREAD_EVERY)
        d = np.round(np.abs(p[idx] - THRESHOLD), 6)
        return int(idx[np.lexsort((self.rank[idx], d))[0]])

    def _spread(self, p: np.ndarray, valid: np.ndarray, idx: np.ndarray, j: int) -> int:
        """The unlabelled fact whose rank by p among all the facts with a p is nearest the j-th
        spread quantile."""
        vidx = np.flatnonzero(valid)
        pos = np.empty(len(p), dtype=np.float64)
        pos[vidx[np.lexsort((self.rank[vidx], p[vidx]))]] = np.arange(len(vidx))
        target = spread_quantile(j) * (len(vidx) - 1)
        return int(idx[np.lexsort((self.rank[idx], np.abs(pos[idx] - target)))[0]])


def _p_of(verdict) -> float:
    p = None if verdict is None else p_supported(verdict.label, verdict.confidence)
    return np.nan if p is None else p


def next_uncertain(facts, salt: str = ""):
    """The fact the "next uncertain" key moves to: `LabelOrder.next` over a session's facts (p from
    each fact's verdict; a human label marks it labelled). None when every fact with an S or NS
    verdict is labelled."""
    p = [_p_of(f.auto) for f in facts]
    i = _order_of(facts, salt).next(p, [f.human is not None for f in facts])
    return None if i is None else facts[i]


_last: tuple[tuple, LabelOrder] | None = None


def _order_of(facts, salt: str) -> LabelOrder:
    """The `LabelOrder` of a session's facts, kept while they stay the same list (hashing and
    sorting 20,000 ids was 15 ms of each press of the key)."""
    global _last
    key = (salt, id(facts), len(facts), facts[0].id if facts else None, facts[-1].id if facts else None)
    if _last is None or _last[0] != key:
        _last = (key, LabelOrder([f.id for f in facts], salt))
    return _last[1]
