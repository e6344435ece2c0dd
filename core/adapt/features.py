"""What the calibration reads of a verdict: p(supported) and a few flags the verifier exposes.

p(supported) of a verdict: its confidence when it says S, one minus it when it says NS (how every
mfact verifier reports it); IR verdicts (a rule: the fact is about someone else) have none and
are never changed. The decision threshold is 0.5 on p(supported), before and after adaptation.

The flags come from the verdict alone (any verifier; the default verifier's reasons say which rule
decided): a slot conflict, a slot agreement, no evidence found, and whether it marked wrong words.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

THRESHOLD = 0.5
FEATURES = ("logit_p", "slot_conflict", "slot_agreement", "no_evidence", "marked")
_CLIP = 0.01


def p_supported(label: str | None, confidence: float | None) -> float | None:
    """p(supported) of an S or NS verdict (None for IR or no verdict), on the side of 0.5 its label
    is on: an NS verdict of confidence 0.5 (no evidence) is just below the threshold."""
    if label not in ("S", "NS") or confidence is None:
        return None
    c = min(1.0, max(0.0, float(confidence)))
    if label == "S":
        return max(c, THRESHOLD)
    return min(1.0 - c, THRESHOLD - 1e-6)


def logit(p: float) -> float:
    p = min(1.0 - _CLIP, max(_CLIP, p))
    return math.log(p / (1.0 - p))


def feature_row(p: float, reason: str | None, marked: bool) -> np.ndarray:
    """The features of one verdict, in the order of FEATURES."""
    r = (reason or "").lower()
    return np.array([logit(p), r.startswith("slot conflict"), r.startswith("slot agreement"),
                     r.startswith("no evidence"), bool(marked)], dtype=np.float64)


@dataclass
class Row:
    """One labelled (or, in the simulation, to be labelled) fact with its unadapted verdict."""
    key: tuple[str, str]         # (session id, fact id)
    lang: str
    human: str | None            # S / NS / IR, None when unlabelled
    label: str                   # the verifier's own label (S or NS)
    p: float                     # the verifier's own p(supported)
    x: np.ndarray                # feature_row
    phi: np.ndarray | None = None  # the verdict's detector features (`Verdict.features`), when it has them

    @property
    def y(self) -> int:
        return int(self.human == "S")


def verifier_name(verifier: str | None) -> str:
    """The verifier's name without its version ("offline/3-2-1a2b" -> "offline")."""
    return (verifier or "").split("/", 1)[0]


_MADE_BY = re.compile(r"[\w.+-]+/[\w.+-]+")


def is_made_by(verifier: str) -> bool:
    """Whether `verifier` is what a verdict records ("offline/3-2r4-1a2b"), not a verifier to build
    ("offline", "detector:/path/to/file.pt")."""
    return bool(_MADE_BY.fullmatch(verifier))


def verifier_matches(made_by: str | None, wanted: str) -> bool:
    """Whether a verdict made by `made_by` counts as `wanted`'s: the same name and version when
    `wanted` names a version (what `mfact learn` records since 2026-11-26: a new version of a verifier
    makes verdicts an adaptation was not fitted on), the same name when it names only a name
    (adaptations written before)."""
    if is_made_by(wanted):
        return (made_by or "") == wanted
    return verifier_name(made_by) == wanted


def row_of(key: tuple[str, str], lang: str, human: str | None, verdict) -> Row | None:
    """The row of a fact with a `Verdict` (its unadapted form); None for IR or no verdict."""
    if verdict is None:
        return None
    base = verdict.unadapted
    p = p_supported(base.label, base.confidence)
    if p is None:
        return None
    return Row(key, lang, human, base.label, p, feature_row(p, base.reason, bool(base.marks)),
               phi_of(verdict.features))


# the detector's features are probabilities, logits and projections of its states (within ~50);
# a value beyond this (1e308 in an imported file) would overflow the fit's sums into NaN: clipped
FEATURE_LIMIT = 1e4


def phi_of(features) -> np.ndarray | None:
    """A verdict's features as an array (None when it has none or they are not finite numbers),
    each clipped to +-FEATURE_LIMIT."""
    if not features:
        return None
    try:
        a = np.asarray(features, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return np.clip(a, -FEATURE_LIMIT, FEATURE_LIMIT) if a.ndim == 1 and np.all(np.isfinite(a)) else None


def clip_features(phi: np.ndarray) -> int:
    """Clip a features matrix to +-FEATURE_LIMIT in place (NaN: rows without features, kept); the
    number of rows that had a value beyond it."""
    with np.errstate(invalid="ignore"):
        over = np.abs(phi) > FEATURE_LIMIT
    rows = int(np.sum(np.any(over, axis=1))) if phi.ndim == 2 else int(np.any(over))
    if rows:
        np.clip(phi, -FEATURE_LIMIT, FEATURE_LIMIT, out=phi)
    return rows
