"""Fitting the adaptation from the user's labels, and deciding, language by language, whether it
is adopted.

The data: every fact a person labelled whose automatic verdict came from the configured verifier
(S or NS; its own verdict, before any adaptation). Each language gets a calibration of its own,
shrunk towards the pooled one of the other languages (model.py), when it has at least MIN_OWN labels;
with fewer it gets the pooled one. Whether it is adopted is decided on held-out labels only:
FOLDS-fold cross-validation over the labels (stratified by language and label; a fold's models are
fitted without it and score only it). A language is adopted when the adapted verdicts agree with
more of its held-out labels than the verifier's own did; under MIN_LABELS labels it is not judged.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .. import metrics as M
from .detfit import FeatureModel, adapted_probs, choose_and_fit, deal_folds
from .features import (FEATURE_LIMIT, FEATURES, THRESHOLD, Row, clip_features, feature_row, p_supported, phi_of,
                       verifier_matches)
from .model import Calibration, Prior, fit

FOLDS = 5
MIN_LABELS = 10      # fewer labels in a language: not judged, not adopted
MIN_OWN = 30         # fewer: the pooled calibration, no model of its own
ECE_BINS = 10


@dataclass
class Scores:
    """Agreement of verdicts with the human labels and calibration of their p(supported)."""
    n: int
    accuracy: float | None
    kappa: float | None
    ece: float | None

    def to_dict(self) -> dict:
        r = lambda v: None if v is None else round(float(v), 4)  # noqa: E731
        return {"n": self.n, "accuracy": r(self.accuracy), "kappa": r(self.kappa), "ece": r(self.ece)}

    @classmethod
    def from_dict(cls, d: dict) -> "Scores":
        return cls(int(d.get("n", 0)), d.get("accuracy"), d.get("kappa"), d.get("ece"))


@dataclass
class LangResult:
    lang: str
    labels: int
    before: Scores
    after: Scores | None = None
    adopted: bool = False
    model: str = ""                  # "features", or the calibration's "own" or "pooled"
    why: str = ""                    # why it was not adopted
    calibration: Calibration | None = None
    features: FeatureModel | None = None      # when the features model was adopted

    @property
    def gain_points(self) -> float | None:
        """Held-out accuracy after minus before, in points."""
        if self.after is None or self.after.accuracy is None or self.before.accuracy is None:
            return None
        return 100.0 * (self.after.accuracy - self.before.accuracy)


@dataclass
class LearnResult:
    verifier: str
    labels: int
    pooled: Calibration
    languages: dict[str, LangResult] = field(default_factory=dict)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)     # what the user should know (clipped features)


# --------------------------------------------------------------------------- data


@dataclass
class Data:
    """The rows as arrays: features, labels (1: supported), languages, human and verifier labels."""
    x: np.ndarray
    y: np.ndarray
    lang: np.ndarray
    human: list[str]
    label: list[str]
    keys: list[tuple[str, str]]
    xb: np.ndarray = None           # x with a column of ones (the bias)
    phi: np.ndarray | None = None   # the verdicts' features (n x size; NaN rows: none), None: no row has any
    clipped: int = 0                # rows whose features went beyond +-FEATURE_LIMIT (clipped)

    @classmethod
    def of(cls, rows: list[Row]) -> "Data":
        x = np.stack([r.x for r in rows]) if rows else np.zeros((0, len(FEATURES)))
        phi = phi_matrix(rows)
        clipped = clip_features(phi) if phi is not None else 0
        return cls(x, np.array([r.y for r in rows], dtype=np.float64), np.array([r.lang for r in rows], dtype=object),
                   [r.human or "" for r in rows], [r.label for r in rows], [r.key for r in rows],
                   np.hstack([x, np.ones((len(x), 1))]), phi, clipped)

    def has_phi(self) -> np.ndarray:
        if self.phi is None:
            return np.zeros(len(self.y), dtype=bool)
        return np.all(np.isfinite(self.phi), axis=1)

    def __len__(self) -> int:
        return len(self.y)


def phi_matrix(rows: list[Row]) -> np.ndarray | None:
    """The rows' features as one matrix: the most common length among the rows that have them
    (one verifier version makes one length); a row without features of that length is NaN."""
    sizes: dict[int, int] = {}
    for r in rows:
        if r.phi is not None:
            sizes[len(r.phi)] = sizes.get(len(r.phi), 0) + 1
    if not sizes:
        return None
    size = max(sizes, key=lambda k: (sizes[k], k))
    out = np.full((len(rows), size), np.nan)
    for i, r in enumerate(rows):
        if r.phi is not None and len(r.phi) == size:
            out[i] = r.phi
    return out


def rows_from_store(store, verifier: str) -> list[Row]:
    """The labelled facts of the store whose verdict the verifier `verifier` made (a name and
    version, "offline/3-2r4-1a2b", or any version of a name: `verifier_matches`), each with the
    verifier's own verdict (the one before any adaptation)."""
    import json

    out: list[Row] = []
    raw_phi: list[str | None] = []
    for sid, fid, lang, _text, human, label, conf, ver, reason, marks, adapted, *rest in store.labelled_facts():
        if not verifier_matches(ver, verifier):
            continue
        if adapted:
            try:
                d = json.loads(adapted)
                label, conf = str(d["label"]), float(d["confidence"])
            except (ValueError, KeyError, TypeError):
                pass                     # a damaged record: the verdict as stored
        p = p_supported(label, 1.0 if conf is None else conf)
        if p is not None:
            marked = bool(marks) and _has_marks(marks)
            out.append(Row((sid, fid), lang, human, label, p, feature_row(p, reason, marked)))
            raw_phi.append(rest[0] if rest else None)
    _attach_phi(out, raw_phi)
    return out


def _attach_phi(rows: list[Row], raw: list[str | None]) -> None:
    """The rows' features from the store's JSON: parsed in one call when they are flat number
    arrays, as the store writes them (`_attach_flat`), else row by row as the store reads them back
    (`store_verdicts.features_of`); a damaged value leaves its row without."""
    from ..store_verdicts import features_of
    idx = [i for i, r in enumerate(raw) if r]
    if not idx or _attach_flat(rows, [raw[i] or "" for i in idx], idx):
        return
    for i in idx:
        rows[i].phi = phi_of(features_of(raw[i]))


def _attach_flat(rows: list[Row], texts: list[str], idx: list[int]) -> bool:
    """The fast path of `_attach_phi`: flat JSON arrays of numbers ("[1.5,-2,...]", as the store
    writes them) parsed by numpy in one call; False (nothing attached) when any text is not one."""
    if not all(t[:1] == "[" and t[-1:] == "]" and "[" not in t[1:] and t != "[]" for t in texts):
        return False
    counts = [t.count(",") + 1 for t in texts]
    try:
        flat = np.fromstring(",".join(t[1:-1] for t in texts), sep=",")
    except ValueError:                            # true, "1", null...: not plain numbers
        return False
    if len(flat) != sum(counts):
        return False
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    finite = np.logical_and.reduceat(np.isfinite(flat), starts)
    for k, (n, a) in enumerate(zip(counts, starts.tolist())):
        if finite[k]:
            rows[idx[k]].phi = flat[a:a + n].copy()
    return True


def _has_marks(raw: str) -> bool:
    import json
    try:
        d = json.loads(raw)
    except ValueError:
        return False
    return isinstance(d, dict) and bool(d.get("marks"))


def assign_folds(data: Data, folds: int = FOLDS) -> np.ndarray:
    """A fold for every row, stratified by (language, label) (`detfit.deal_folds`)."""
    langs = {lang: i for i, lang in enumerate(sorted(set(data.lang)))}
    group = np.array([2 * langs[lang] for lang in data.lang], dtype=np.int64) + data.y.astype(np.int64)
    return deal_folds(data.keys, group, folds)


# --------------------------------------------------------------------------- models


@dataclass
class Models:
    pooled: Calibration
    own: dict[str, Calibration]

    def for_lang(self, lang: str) -> Calibration:
        return self.own.get(lang, self.pooled)


def fit_models(data: Data, idx: np.ndarray, own_langs: set[str]) -> Models:
    """The pooled calibration on rows `idx`, and one per language of `own_langs` shrunk towards
    the pooled calibration of the other languages' rows (its own labels are not counted twice;
    with no other language, towards the identity)."""
    identity = Calibration.identity()
    pooled = fit(data.xb[idx], data.y[idx], Prior(identity), with_bias=True)
    own = {}
    for lang in own_langs:
        mine = data.lang[idx] == lang
        li, others = idx[mine], idx[~mine]
        if len(li):
            centre = (fit(data.xb[others], data.y[others], Prior(identity), start=pooled, with_bias=True)
                      if len(others) else identity)
            own[lang] = fit(data.xb[li], data.y[li], Prior(centre), start=centre, with_bias=True)
    return Models(pooled, own)


def predict(models: Models, data: Data, idx: np.ndarray) -> np.ndarray:
    """p'(supported) of rows `idx`, each by its language's calibration."""
    out = np.zeros(len(idx))
    for lang in set(data.lang[idx]):
        sel = data.lang[idx] == lang
        out[sel] = models.for_lang(lang).prob(data.x[idx[sel]])
    return out


def cross_validate(data: Data, own_langs: set[str], folds: int = FOLDS, fold: np.ndarray | None = None) -> np.ndarray:
    """Held-out p'(supported) of every row: the models of fold k are fitted without fold k's rows
    and score only them (`fold`: the rows' folds, when already dealt)."""
    fold = assign_folds(data, folds) if fold is None else fold
    probs = np.full(len(data), np.nan)
    for k in range(folds):
        test = np.flatnonzero(fold == k)
        train = np.flatnonzero(fold != k)
        if len(test):
            probs[test] = predict(fit_models(data, train, own_langs), data, test)
    return probs


# --------------------------------------------------------------------------- scores


def ece(p: np.ndarray, y: np.ndarray, bins: int = ECE_BINS) -> float | None:
    """Expected calibration error of p(supported) against the labels (equal-width bins)."""
    if len(p) == 0 or not np.all(np.isfinite(p)):
        return None                      # never a figure computed from NaN
    b = np.minimum((np.asarray(p) * bins).astype(int), bins - 1)
    total = 0.0
    for k in range(bins):
        sel = b == k
        if sel.any():
            total += sel.sum() * abs(float(np.mean(p[sel])) - float(np.mean(y[sel])))
    return float(total / len(p))


def scores(human: list[str], labels: list[str], p: np.ndarray, y: np.ndarray) -> Scores:
    ag = M.agreement(zip(human, labels))
    return Scores(len(human), ag.accuracy, ag.kappa, ece(p, y))


def adapted_labels(p: np.ndarray) -> list[str]:
    return ["S" if v >= THRESHOLD else "NS" for v in p]


# --------------------------------------------------------------------------- learning


def learn(rows: list[Row], verifier: str = "offline", langs: set[str] | None = None,
          folds: int = FOLDS) -> LearnResult:
    """Cross-validate, decide per language (those in `langs`, default all), fit the adopted ones
    on all their labels."""
    t0 = time.perf_counter()
    data = Data.of(rows)
    counts: dict[str, int] = {}
    for lang in data.lang:
        counts[lang] = counts.get(lang, 0) + 1
    own = {lang for lang, n in counts.items() if n >= MIN_OWN}
    fold = assign_folds(data, folds) if len(data) else np.zeros(0, dtype=np.int64)
    held = cross_validate(data, own, folds, fold) if len(data) else np.zeros(0)
    final = fit_models(data, np.arange(len(data)), own)
    res = LearnResult(verifier, len(data), final.pooled)
    if data.clipped:
        res.notes.append(f"{data.clipped:,} labelled verdicts have features beyond +-{FEATURE_LIMIT:g}"
                         " (a damaged or foreign file?): clipped to that range")
    p0 = np.array([r.p for r in rows]) if rows else np.zeros(0)
    for lang in sorted(counts):
        if langs is not None and lang not in langs:
            continue
        sel = np.flatnonzero(data.lang == lang)
        r = _decide(lang, data, p0, held, final, lang in own)
        if len(sel) >= MIN_LABELS:
            _consider_features(r, data, p0, held, fold, folds)
        res.languages[lang] = r
    res.seconds = time.perf_counter() - t0
    return res


def _decide(lang: str, data: Data, p0: np.ndarray, held: np.ndarray, final: Models, own: bool) -> LangResult:
    sel = np.flatnonzero(data.lang == lang)
    human = [data.human[i] for i in sel]
    y = data.y[sel]
    before = scores(human, [data.label[i] for i in sel], p0[sel], y)
    r = LangResult(lang, len(sel), before, model="own" if own else "pooled")
    if len(sel) < MIN_LABELS:
        r.why = f"too few labels ({len(sel)} < {MIN_LABELS})"
        return r
    r.after = scores(human, adapted_labels(held[sel]), held[sel], y)
    gain = r.gain_points or 0.0
    if gain <= 0.0:
        r.why = (f"no gain on held-out labels ({100 * before.accuracy:.1f}% -> {100 * r.after.accuracy:.1f}%)"
                 if r.after.accuracy is not None and before.accuracy is not None else "no held-out accuracy")
        return r
    r.adopted = True
    r.calibration = final.for_lang(lang)
    return r


def features_held_out(data: Data, rows: np.ndarray, fold: np.ndarray, folds: int = FOLDS) -> np.ndarray:
    """Held-out p'(supported) of `rows` (one language's rows with features) by the features model:
    fold k's model is fitted on the other folds' rows (its prior chosen within them) and scores only
    fold k's."""
    out = np.full(len(rows), np.nan)
    phi = data.phi if data.phi is not None else np.zeros((len(data), 0))
    for k in range(folds):
        tr, te = rows[fold[rows] != k], np.flatnonzero(fold[rows] == k)
        if not len(te):
            continue
        if len(np.unique(data.y[tr])) < 2:
            out[te] = p0_of(data, rows[te])
            continue
        m = choose_and_fit(data.x[tr], phi[tr], data.y[tr], [data.keys[i] for i in tr])
        out[te] = m.prob(data.x[rows[te]], phi[rows[te]])
    return out


def p0_of(data: Data, idx: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-data.x[idx, 0]))


def _consider_features(r: LangResult, data: Data, p0: np.ndarray, held: np.ndarray,
                       fold: np.ndarray, folds: int) -> None:
    """Adopt the features model instead when, with at least MIN_OWN labelled verdicts that carry
    features, its held-out accuracy is above both the verifier's and the adopted calibration's
    (verdicts without features keep the calibration when it was adopted, else their own p)."""
    sel = np.flatnonzero(data.lang == r.lang)
    has = data.has_phi()[sel]
    rows = sel[has]
    if len(rows) < MIN_OWN or len(np.unique(data.y[rows])) < 2:
        return
    base = held[sel] if r.adopted else p0[sel]
    hf = base.copy()
    hf[has] = features_held_out(data, rows, fold, folds)
    human = [data.human[i] for i in sel]
    after = scores(human, adapted_labels(hf), hf, data.y[sel])
    best = r.after.accuracy if r.adopted and r.after is not None else r.before.accuracy
    if after.accuracy is None or best is None or after.accuracy <= best or not clearly_better(hf, base, data.y[sel]):
        if not r.adopted:
            r.why += f"; features model {100 * after.accuracy:.1f}%" if after.accuracy is not None else ""
        return
    gain = 100.0 * (after.accuracy - best)
    if gain < MIN_FEATURES_GAIN:         # with 100k labels a sign test passes for +0.01 points
        said = f"features model {gain:+.2f} pts, under the {MIN_FEATURES_GAIN:g}-point minimum: not adopted"
        r.why = f"{r.why}; {said}" if r.why else said
        return
    assert data.phi is not None
    r.features = choose_and_fit(data.x[rows], data.phi[rows], data.y[rows], [data.keys[i] for i in rows])
    r.calibration = r.calibration if r.adopted else None
    r.after, r.adopted, r.model, r.why = after, True, "features", ""


# how clearly the features model must beat what it replaces on held-out labels, in standard
# deviations of a sign test: with 50 features and 200 labels, "more right than wrong" alone (0)
# adopted models of pure-noise features in 7 of 10 synthetic languages, 0.5 in 2, 1 in none
# (tests/test_adapt_features.py); on mFAVA silver's 8 languages, after 100 labels, the mean gain was
# +4.5 points at 0, +4.3 at 0.5, +3.7 at 1 (+3.5 without the features; docs/learning.md)
MARGIN = 0.5
# and by at least this many points of held-out accuracy: a model of 50 features more for a gain no
# user would see is not worth what it costs to apply, nor the doubt it brings
MIN_FEATURES_GAIN = 0.5


def clearly_better(new: np.ndarray, old: np.ndarray, y: np.ndarray) -> bool:
    """Whether held-out verdicts `new` are right on clearly more labels than `old` where the two
    differ: wins - losses >= MARGIN * sqrt(wins + losses) (a sign test, MARGIN standard deviations)."""
    a, b = (new >= THRESHOLD) == (y > 0.5), (old >= THRESHOLD) == (y > 0.5)
    wins, losses = int(np.sum(a & ~b)), int(np.sum(b & ~a))
    return wins > losses and wins - losses >= MARGIN * np.sqrt(wins + losses)


def predict_rows(r: "LangResult", x: np.ndarray, phi: np.ndarray | None) -> np.ndarray | None:
    """p'(supported) of rows under an adopted language's models (None when not adopted)."""
    if not r.adopted:
        return None
    return adapted_probs(x, phi, r.calibration, r.features)


def learn_from_store(store, verifier: str = "offline", langs: set[str] | None = None) -> LearnResult:
    return learn(rows_from_store(store, verifier), verifier, langs)
