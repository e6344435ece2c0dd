"""The claim combiner: p(supported) of a claim read alone, from its fact features.

A claim with no sentence around it (`mfact verify-pairs`, a claim against its own evidence) is read
by the detector as a sentence of its own; its 50 fact features (`fact_features.py`: the detector's
word scores, the paraphrase gate's cosine, the feature model's p, 32 components of the detector's
states) go through a logistic model fitted on the training premises of XNLI dev
(`python -m mfact.core.training.train_combiner`). On held-out XNLI this takes the standalone verdicts
from 0.735 (the feature model and the slot checks) to about 0.775 (docs/verifier.md, "The claim
combiner"). The slot checks still decide after it: a conflicting value is NS, a claim of agreeing
values only is S.

The file (`data/claim-combiner.json`) names the detector and the fact basis it was fitted on: other
weights give other features, and the combiner is then not used (the blend decides, as before).
numpy only; no torch. Fitted by `core/training/train_combiner.py`.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .fact_features import _sigmoid

COMBINER_FILE = "claim-combiner.json"
FORMAT = "mfact.claim-combiner/1"


def default_path() -> Path:
    from importlib import resources
    return Path(str(resources.files("mfact.core").joinpath("checking", "data", COMBINER_FILE)))


@dataclass(frozen=True)
class CombinerOrigin:
    """What a claim combiner was fitted on: the detector (its SHA-256), the fact basis (its digest),
    the pair reader whose logit is its last input ("": no such input), and the fit's own record
    (`meta`: the command, the data, the penalty and the figures)."""
    detector: str = ""
    basis: str = ""
    reader: str = ""
    meta: dict | None = None


class ClaimCombiner:
    """z = w . (u - mu) / sd + b over the fact features u (and, when the origin's `reader` names a
    pair reader, its logit after them); p(supported) = sigmoid(z / temperature)."""

    def __init__(self, mu: Sequence[float], sd: Sequence[float], w: Sequence[float], b: float,
                 origin: CombinerOrigin = CombinerOrigin(), temperature: float = 1.0):
        detector, basis, reader, meta = origin.detector, origin.basis, origin.reader, origin.meta
        self.mu = np.asarray(mu, np.float64)
        self.sd = np.asarray(sd, np.float64)
        self.w = np.asarray(w, np.float64)
        self.b = float(b)
        self.temperature = float(temperature)
        if not (self.mu.shape == self.sd.shape == self.w.shape and self.w.ndim == 1 and len(self.w)):
            raise ValueError("claim combiner: mu, sd and w must be vectors of one length")
        if not (np.isfinite(self.mu).all() and np.isfinite(self.w).all() and math.isfinite(self.b)
                and (self.sd > 0).all() and math.isfinite(temperature) and temperature > 0):
            raise ValueError("claim combiner: numbers must be finite, sd positive")
        self.detector = detector
        self.basis = basis
        self.reader = reader        # the pair reader whose logit is the last input ("": no such input)
        self.meta = meta or {}
        blob = json.dumps([self.mu.tolist(), self.sd.tolist(), self.w.tolist(), self.b, self.temperature, reader])
        self.digest = hashlib.sha256(blob.encode()).hexdigest()[:8]

    def fits(self, detector_digest: str, basis_digest: str, reader_digest: str = "") -> bool:
        """Fitted on the features of this detector (SHA-256 prefix) and this fact basis, and, when
        it reads a pair reader's logit, on that reader (`reader_digest`, a prefix of its SHA-256)."""
        return (bool(detector_digest) and self.detector.startswith(detector_digest)
                and bool(basis_digest) and self.basis == basis_digest
                and (not self.reader or (bool(reader_digest) and self.reader.startswith(reader_digest))))

    def logit(self, features: Sequence[float]) -> float:
        """z before the temperature."""
        u = np.asarray(features, np.float64)
        if u.shape != self.w.shape:
            raise ValueError(f"claim combiner: {len(u)} features, fitted on {len(self.w)}")
        return float(((u - self.mu) / self.sd) @ self.w + self.b)

    def prob(self, features: Sequence[float]) -> float:
        return _sigmoid(self.logit(features) / self.temperature)

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "detector": self.detector,
            "basis": self.basis,
            "reader": self.reader,
            "mu": self.mu.tolist(),
            "sd": self.sd.tolist(),
            "w": self.w.tolist(),
            "b": self.b,
            "temperature": self.temperature,
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, d: dict) -> "ClaimCombiner":
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ValueError(f"not a claim combiner file (format {FORMAT})")
        origin = CombinerOrigin(str(d.get("detector", "")), str(d.get("basis", "")), str(d.get("reader", "")),
                                d.get("meta") if isinstance(d.get("meta"), dict) else {})
        return cls(d["mu"], d["sd"], d["w"], d["b"], origin, float(d.get("temperature", 1.0)))


@functools.lru_cache(maxsize=4)
def _load(path: str, mtime_ns: int) -> ClaimCombiner | None:
    try:
        return ClaimCombiner.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load_combiner(path: str | Path | None = None) -> ClaimCombiner | None:
    """The shipped combiner (or `path`); None when there is none or it is unreadable."""
    p = Path(path) if path else default_path()
    try:
        return _load(str(p.resolve()), p.stat().st_mtime_ns)
    except OSError:
        return None
