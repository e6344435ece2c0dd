"""The features model: the verifier's own verdict corrected by what its detector pass read.

Where the verdicts' own numbers (p(supported) and a few flags: the calibration, model.py) tell the
right facts from the wrong ones no better than the verifier does (es, it, ko on mFAVA silver), the
detector's representations of the fact still carry more (docs/learning.md, "Refitting on the
detector's representations"). For a verdict that carries them (`Verdict.features`, the default
verifier's fact features, core/checking/verify/fact_features.py) the model is

    z = logit p(supported) + w . (u - mu) / sd + b,    u = [features, the calibration's four flags]

with the correction w . (u - mu) / sd + b bounded to [-CLIP, CLIP]. The verdict's own logit is a
fixed offset and the prior on w is N(0, 1/lam) (at the prior's centre
the verdicts are the verifier's own); mu and sd standardise u on the labels it is fitted on; lam is
chosen among LAMBDAS by 3-fold cross-validation within those labels (held-out accuracy, then
log-loss). Fitted by Newton's method (model.fit, the offset as a slope held at 1 by its prior).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from .model import Calibration, Prior, fit

LAMBDAS = (100.0, 10.0, 1.0)     # from the strongest prior: each fit starts from the last
INNER_FOLDS = 3
INNER_MAX = 500
# the most the model moves a verdict's logit: only verdicts with p(supported) within 0.27-0.73 can
# change side. The labels a user gives first are the facts nearest the threshold ("next uncertain");
# a model fitted on them, unbounded, also moved confident verdicts far from them, where nothing
# checked it (on probe features of mFAVA silver, after 100 labels: ca +1.9 ->
# +5.2 points, ko +5.3 -> +7.2; docs/learning.md)
CLIP = 1.0
HELD = 1e8                                   # prior precision that holds the offset's slope at 1
BIAS_PRECISION = 0.01


@dataclass
class FeatureModel:
    mu: np.ndarray
    sd: np.ndarray           # 0: a column constant on the labels, left out
    w: np.ndarray
    b: float
    lam: float

    @property
    def size(self) -> int:
        """The number of verdict features it reads (the flags are the last four of u)."""
        return len(self.mu) - 4

    def standardise(self, u: np.ndarray) -> np.ndarray:
        safe = np.where(self.sd > 0, self.sd, 1.0)
        return np.where(self.sd > 0, (u - self.mu) / safe, 0.0)

    def prob(self, x: np.ndarray, phi: np.ndarray) -> np.ndarray:
        """p'(supported) of rows: calibration feature rows `x` (n x 5, logit p first) and their
        verdict features `phi` (n x size)."""
        x = np.atleast_2d(np.asarray(x, dtype=np.float64))
        u = np.hstack([np.atleast_2d(np.asarray(phi, dtype=np.float64)), x[:, 1:]])
        z = x[:, 0] + np.clip(self.standardise(u) @ self.w + self.b, -CLIP, CLIP)
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))

    def to_dict(self) -> dict:
        r = lambda a: [round(float(v), 6) for v in a]  # noqa: E731
        return {"mu": r(self.mu), "sd": r(self.sd), "w": r(self.w), "b": round(float(self.b), 6),
                "lam": self.lam}

    @classmethod
    def from_dict(cls, d: dict) -> "FeatureModel":
        mu, sd, w = (np.asarray(d[k], dtype=np.float64) for k in ("mu", "sd", "w"))
        if not (mu.shape == sd.shape == w.shape and mu.ndim == 1 and len(mu) > 4):
            raise ValueError("a features model needs mu, sd and w of one length (> 4)")
        if not all(np.all(np.isfinite(a)) for a in (mu, sd, w)) or not np.isfinite(float(d["b"])):
            raise ValueError("a features model needs finite numbers")
        return cls(mu, sd, w, float(d["b"]), float(d.get("lam", 0.0)))


def _u(x: np.ndarray, phi: np.ndarray) -> np.ndarray:
    return np.hstack([phi, x[:, 1:]])


def fit_features(x: np.ndarray, phi: np.ndarray, y: np.ndarray, lam: float,
                 start: FeatureModel | None = None) -> FeatureModel:
    """The MAP features model of labels `y` on rows (`x`, `phi`) at prior precision `lam`."""
    u = _u(x, phi)
    mu = u.mean(axis=0)
    sd = u.std(axis=0)
    sd = np.where(sd > 1e-6, sd, 0.0)
    m = FeatureModel(mu, sd, np.zeros(u.shape[1]), 0.0, lam)
    xs = np.hstack([x[:, :1], m.standardise(u)])
    centre = Calibration(np.concatenate([[1.0], np.zeros(u.shape[1])]), 0.0)
    strength = np.concatenate([[HELD], np.full(u.shape[1], lam), [BIAS_PRECISION]])
    first = (
        Calibration(np.concatenate([[1.0], start.w]), start.b)
        if start is not None and len(start.w) == u.shape[1]
        else None
    )
    cal = fit(xs, y, Prior(centre, strength), start=first)
    return FeatureModel(mu, sd, cal.w[1:].copy(), cal.b, lam)


def deal_folds(keys: list[tuple[str, str]], group: np.ndarray, k: int, salt: str = "") -> np.ndarray:
    """A fold for every row, stratified by `group`: within each group the rows are ordered by a hash
    of their key (`salt` first: another dealing of the same keys; stable as labels are added) and
    dealt round-robin."""
    n = len(group)
    h = np.array([zlib.crc32((salt + "\x1f".join(key)).encode("utf-8")) for key in keys], dtype=np.int64)
    order = np.lexsort((np.arange(n), h, np.asarray(group, dtype=np.int64)))   # by group, hash, position
    out = np.empty(n, dtype=np.int64)
    out[order] = np.arange(n) % k
    return out


def _loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def choose_and_fit(x: np.ndarray, phi: np.ndarray, y: np.ndarray, keys: list[tuple[str, str]]) -> FeatureModel:
    """The features model on these labels, its prior's precision chosen by inner cross-validation
    (with more than INNER_MAX labels the weakest prior: the labels outweigh any of them, and the
    choice would cost seconds for 10,000 labels)."""
    return fit_features(x, phi, y, choose_lambda(x, phi, y, keys))


def choose_lambda(x: np.ndarray, phi: np.ndarray, y: np.ndarray, keys: list[tuple[str, str]]) -> float:
    if len(y) > INNER_MAX:
        return LAMBDAS[-1]
    fold = deal_folds(keys, y, INNER_FOLDS, salt="\x1e")        # inner folds: dealt apart from the outer
    held = {lam: np.zeros(len(y)) for lam in LAMBDAS}
    for k in range(INNER_FOLDS):
        tr, te = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        if not len(te) or len(np.unique(y[tr])) < 2:
            continue
        prev = None
        for lam in LAMBDAS:
            prev = fit_features(x[tr], phi[tr], y[tr], lam, prev)
            held[lam][te] = prev.prob(x[te], phi[te])
    return max(LAMBDAS, key=lambda lam: (float(np.mean((held[lam] >= 0.5) == (y > 0.5))), -_loss(held[lam], y), lam))


def adapted_probs(x: np.ndarray, phi: np.ndarray | None, calibration: Calibration | None,
                  features: FeatureModel | None) -> np.ndarray:
    """p'(supported) of rows as an adopted language makes them: by the features model where a row
    has features of its size, else by the calibration, else as the verifier said (`x`'s logit p)."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    out = 1.0 / (1.0 + np.exp(-x[:, 0])) if calibration is None else calibration.prob(x)
    out = np.array(out, dtype=np.float64)
    if features is not None and phi is not None:
        phi = np.atleast_2d(np.asarray(phi, dtype=np.float64))
        if phi.shape[1] == features.size:
            has = np.all(np.isfinite(phi), axis=1)
            if has.any():
                out[has] = features.prob(x[has], phi[has])
    return out
