"""A fact's features: what the token-level detector read of it, as numbers the user's adaptation can
learn from (`Verdict.features`; core/adapt/detfit.py).

The default verifier reads a fact's words in its sentence (sentence_scores.py). From that one pass
each fact gets 50 numbers (FEATURE_NAMES):
- 18 scalars: the detector's probabilities and logits over the fact's tokens (max, mean, quartiles,
  the share at or above the detector's threshold, their number), the paraphrase gate's cosine and
  whether it applies, the sentence's top probability, its length and the fact's share of it, the
  feature model's p(supported) before the blend, the best window's similarity, the fact's words;
- 32 principal components of the fact's detector states: v = [mean final state over the fact's
  tokens, the final state of its top token, mean head hidden layer] (3 x 384), projected on a basis
  computed once, without labels, from the detector's development sentences (`Basis`, the file
  `data/detector-basis.npz`, made by `python -m mfact.core.training.feature_basis`). The projection
  is linear, so each token's states are projected in the detector's pass (`detector.Projection`,
  96 numbers a token) and pooled per fact here.

Why (docs/learning.md, "Refitting on the detector's representations"): on mFAVA silver, what the
verdicts' own numbers carry could not gain 5 points in es, it or ko however many labels; these
numbers, refitted on 100 labels, did in es and ko.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

SCALARS = ("has_tokens", "p_max", "p_mean", "logit_max", "logit_mean", "logit_q25", "logit_q50", "logit_q75",
           "share_flagged", "log_tokens", "gate_cos", "gate_on", "sentence_p_max", "log_sentence_chars",
           "fact_share", "logit_p_lite", "window_sim", "log_words")
COMPONENTS = 32
FEATURE_NAMES = SCALARS + tuple(f"pc{i + 1}" for i in range(COMPONENTS))
BASIS_FILE = "detector-basis.npz"
HIDDEN = 384


class Basis:
    """The fact basis: mean (3 x 384) and components (k x 3 x 384) of fact state vectors."""

    def __init__(self, mean: np.ndarray, comps: np.ndarray, digest: str, meta: str = ""):
        if comps.ndim != 2 or comps.shape[1] != 3 * HIDDEN or mean.shape != (3 * HIDDEN,):
            raise ValueError(f"a fact basis needs a mean of {3 * HIDDEN} and components k x {3 * HIDDEN}")
        self.mean = mean.astype(np.float32)
        self.comps = comps.astype(np.float32)
        self.digest = digest
        self.meta = meta
        self.offset = self.comps @ self.mean              # C mu: subtracted after pooling
        self.detector = _named_detector(meta)

    def fits(self, detector_digest: str) -> bool:
        """Whether the basis was computed on the detector whose SHA-256 starts with `detector_digest`
        (a basis that names no detector fits any): another detector's states are other numbers."""
        return not self.detector or (bool(detector_digest) and self.detector.startswith(detector_digest))

    @property
    def k(self) -> int:
        return int(self.comps.shape[0])

    def projection(self):
        from ..neural.detector import Projection
        c = self.comps
        return Projection(c[:, :HIDDEN], c[:, HIDDEN:2 * HIDDEN], c[:, 2 * HIDDEN:])

    def project(self, v: np.ndarray) -> np.ndarray:
        """Components of whole fact vectors (n x 1,152): C (v - mu)."""
        return (np.asarray(v, np.float32) - self.mean) @ self.comps.T

    @classmethod
    def load(cls, path: str | Path) -> "Basis":
        raw = Path(path).read_bytes()
        import io
        with np.load(io.BytesIO(raw), allow_pickle=False) as z:
            meta = str(z["meta"]) if "meta" in z.files else ""
            return cls(z["mean"].astype(np.float32), z["comps"].astype(np.float32),
                       hashlib.sha256(raw).hexdigest()[:8], meta)


def _named_detector(meta: str) -> str:
    """The detector SHA-256 a basis's meta JSON names ("" for none or unreadable meta)."""
    try:
        d = json.loads(meta) if meta else {}
    except ValueError:
        return ""
    return str(d.get("detector_sha256") or "") if isinstance(d, dict) else ""


def default_basis_path() -> Path:
    return Path(str(resources.files("mfact.core").joinpath("checking", "data", BASIS_FILE)))


@functools.lru_cache(maxsize=4)
def load_basis(path: str | None = None) -> Basis | None:
    """The shipped basis (or `path`); None when there is none or it is unreadable (no features)."""
    p = Path(path) if path else default_basis_path()
    try:
        return Basis.load(p)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def _logit(p: float) -> float:
    p = min(0.99, max(0.01, p))
    return math.log(p / (1.0 - p))


def _quantile(xs: list[float], q: float) -> float:
    """The q-quantile of sorted numbers, interpolated linearly (numpy's default method)."""
    h = q * (len(xs) - 1)
    i = int(h)
    return xs[i] if i + 1 >= len(xs) else xs[i] + (h - i) * (xs[i + 1] - xs[i])


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


@dataclass(frozen=True)
class FactScores:
    """A fact's scores besides its tokens': its best window's cosine and the gate's cosine, the
    detector's word threshold, the feature model's p and the window similarity."""
    cos: float
    gate_cos: float
    threshold: float
    p_lite: float
    window_sim: float


def fact_features(tokens, span: tuple[int, int], sentence_chars: int, scores: FactScores, fact: str,
                  basis: Basis) -> list[float] | None:
    """The 50 numbers of a fact spanning [start, end) (`span`) of a sentence whose tokens the detector
    read (`detector.SentenceTokens` with projections); None when no token of the sentence falls in it.
    Plain floats over the fact's few tokens and one pooling of their projections: ~60 us a fact."""
    start, end = span
    cos, gate_cos, threshold = scores.cos, scores.gate_cos, scores.threshold
    p_lite, window_sim = scores.p_lite, scores.window_sim
    inside = [t for t, (a, b) in enumerate(tokens.spans) if a < end and start < b]
    if not inside or tokens.proj is None or tokens.proj.shape[1] != 3 * basis.k:
        return None
    lg = tokens.logits.tolist()
    mine = [lg[t] for t in inside]
    p = [_sigmoid(x) for x in mine]
    top = max(range(len(mine)), key=mine.__getitem__)
    srt = sorted(mine)
    n = len(mine)
    scalars = [1.0, max(p), sum(p) / n, srt[-1], sum(mine) / n, _quantile(srt, 0.25), _quantile(srt, 0.5),
               _quantile(srt, 0.75), sum(x >= threshold for x in p) / n, math.log1p(n), cos, float(cos >= gate_cos),
               _sigmoid(max(lg)), math.log1p(sentence_chars),
               (min(end, sentence_chars) - start) / max(1, sentence_chars), _logit(p_lite), window_sim,
               math.log1p(len(fact.split()))]
    k = basis.k
    pooled = tokens.proj[inside].mean(axis=0)
    comps = pooled[:k] + tokens.proj[inside[top], k:2 * k] + pooled[2 * k:] - basis.offset
    return np.round(np.concatenate([np.array(scalars), comps.astype(np.float64)]), 4).tolist()
