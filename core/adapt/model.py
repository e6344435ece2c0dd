"""A logistic calibration of p(supported), fitted with a Gaussian prior on its parameters.

    p'(supported) = sigmoid(w . x + b),   x = features.feature_row (logit p first)

The prior's centre is the identity (w = [1, 0, ...], b = 0: p' = p, the verifier unadapted) for
the pooled model of all languages, and the pooled model for a language's own one: with few labels
a fit stays near what it is shrunk to, and moves only as far as the labels carry it. Newton's
method on the penalised log-loss (a handful of parameters: a few milliseconds for 10,000 labels).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .features import FEATURES

PRIOR_POOLED = 4.0       # prior precision of the pooled model around the identity
PRIOR_LANG = 4.0         # prior precision of a language's model around the pooled one


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


def fit(x: np.ndarray, y: np.ndarray, prior: Calibration, strength: float,
        iterations: int = 50) -> Calibration:
    """The maximum a posteriori calibration of labels `y` (1: supported) on rows `x`, with a
    Gaussian prior of precision `strength` centred on `prior` (Newton steps, halved until the
    penalised log-loss falls: a full step can overshoot where the labels are nearly separable)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if len(y) == 0:
        return Calibration(prior.w.copy(), prior.b)
    xb = np.hstack([x, np.ones((len(x), 1))])
    t0 = prior.theta()
    eye = np.eye(len(t0)) * strength

    def loss(t: np.ndarray) -> float:
        z = xb @ t
        return float(np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * strength * np.sum((t - t0) ** 2))

    t, f = t0.copy(), loss(t0)
    for _ in range(iterations):
        mu = 1.0 / (1.0 + np.exp(-np.clip(xb @ t, -30.0, 30.0)))
        g = xb.T @ (mu - y) + strength * (t - t0)
        step = np.linalg.solve((xb * (mu * (1.0 - mu))[:, None]).T @ xb + eye, g)
        a = 1.0
        while a > 1e-4:
            f_new = loss(t - a * step)
            if f_new <= f - 1e-4 * a * float(g @ step):
                break
            a *= 0.5
        else:
            break
        t, f = t - a * step, f_new
        if float(np.max(np.abs(a * step))) < 1e-6:
            break
    return Calibration(t[:-1].copy(), float(t[-1]))
