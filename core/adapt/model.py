"""A logistic calibration of p(supported), fitted with a Gaussian prior on its parameters.

    p'(supported) = sigmoid(w . x + b),   x = features.feature_row (logit p first)

The prior's centre is the identity (w = [1, 0, ...], b = 0: p' = p, the verifier unadapted) for
the pooled model of all languages, and the pooled model of the other languages for a language's own
one: with few labels a fit stays near what it is shrunk to, and moves only as far as the labels
carry it. Newton's
method on the penalised log-loss (a handful of parameters: a few milliseconds for 10,000 labels).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .features import FEATURES

# prior precision of each parameter around the prior's centre (the slope on logit p(supported), the
# flags' weights, the bias): a fit moves from the centre as far as about 4 labels' worth of evidence.
# The slope's is 16 times stronger: labels taken near the threshold ("next uncertain") say where
# the threshold lies but almost nothing about the slope, and at precision 4 a few batches of mostly-S
# labels flattened it (fr: 1 -> 0.12, every fact S, 5 points below random labels at 50); the slope
# moves with hundreds of labels spread over p(supported) (docs/learning.md)
PRIOR_SLOPE = 64.0
PRIOR_OTHER = 4.0


def prior_precision() -> np.ndarray:
    return np.array([PRIOR_SLOPE] + [PRIOR_OTHER] * (len(FEATURES) - 1) + [PRIOR_OTHER])


@dataclass
class Calibration:
    w: np.ndarray
    b: float = 0.0

    @classmethod
    def identity(cls) -> "Calibration":
        w = np.zeros(len(FEATURES))
        w[0] = 1.0
        return cls(w, 0.0)

    def theta(self) -> np.ndarray:
        return np.concatenate([self.w, [self.b]])

    def prob(self, x: np.ndarray) -> np.ndarray:
        """p'(supported) of feature rows (n x features), or of one row."""
        z = np.asarray(x, dtype=np.float64) @ self.w + self.b
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))

    def to_dict(self) -> dict:
        return {"w": [round(float(v), 6) for v in self.w], "b": round(float(self.b), 6)}

    @classmethod
    def from_dict(cls, d: dict) -> "Calibration":
        w = np.asarray(d["w"], dtype=np.float64)
        if w.shape != (len(FEATURES),) or not np.all(np.isfinite(w)) or not np.isfinite(float(d["b"])):
            raise ValueError(f"a calibration needs {len(FEATURES)} finite weights and a bias")
        return cls(w, float(d["b"]))


@dataclass(frozen=True)
class Prior:
    """A Gaussian prior on a calibration's parameters: centred on `centre`, of precision `strength`
    per parameter (default `prior_precision()`; weights in FEATURES order, then the bias)."""
    centre: Calibration
    strength: np.ndarray | float | None = None


def fit(x: np.ndarray, y: np.ndarray, prior: Prior, iterations: int = 50, start: Calibration | None = None,
        with_bias: bool = False) -> Calibration:
    """The maximum a posteriori calibration of labels `y` (1: supported) on rows `x` (`with_bias`:
    rows that end in a column of ones already), with the Gaussian `prior`, from `start` (default:
    the prior's centre; a fit near the answer takes fewer steps). Newton steps, halved until the
    penalised log-loss falls: a full step can overshoot where the labels are nearly separable."""
    centre = prior.centre
    y = np.asarray(y, dtype=np.float64)
    if len(y) == 0:
        return Calibration(centre.w.copy(), centre.b)
    x = np.asarray(x, dtype=np.float64)
    xb = x if with_bias else np.hstack([x, np.ones((len(x), 1))])
    t0 = centre.theta()
    strength = (prior_precision() if prior.strength is None
                else np.broadcast_to(np.asarray(prior.strength, float), t0.shape))

    def objective(t: np.ndarray) -> tuple[float, np.ndarray]:
        z = xb @ t
        return float(np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(strength * (t - t0) ** 2)), z

    t = (start.theta() if start is not None else t0).copy()
    f, z = objective(t)
    for _ in range(iterations):
        mu = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
        g = xb.T @ (mu - y) + strength * (t - t0)
        if float(np.max(np.abs(g))) < 1e-6:
            break
        step = np.linalg.solve((xb * (mu * (1.0 - mu))[:, None]).T @ xb + np.diag(strength), g)
        a = 1.0
        while a > 1e-4:
            f_new, z_new = objective(t - a * step)
            if f_new <= f - 1e-4 * a * float(g @ step):
                break
            a *= 0.5
        else:
            break
        t, f, z = t - a * step, f_new, z_new
        if float(np.max(np.abs(a * step))) < 1e-6:
            break
    return Calibration(t[:-1].copy(), float(t[-1]))
