"""Learning from the user's labels: a per-language calibration of the verifier's p(supported).

A layer on top of any verifier's output (it reads only what a `Verdict` exposes), so it composes
with whatever verifier the configuration names:

    features.py    p(supported) of a verdict and the features the calibration reads
    model.py       a logistic calibration fitted with a prior (identity, or the pooled model)
    learn.py       the labelled facts of the store, cross-validation, adoption per language
    adaptation.py  the adaptation file beside the store (versioned) and the `Adapter` that applies
                   it to new verdicts

`mfact learn` fits and adopts, `mfact rejudge` re-runs the verifier (and the adaptation) on stored
facts, the TUI refits in a worker every 25 new labels (config `adapt = auto|off`).
"""
from __future__ import annotations

from .adaptation import Adaptation, Adapter, adaptation_path, load_adaptation
from .features import THRESHOLD, p_supported
from .learn import LearnResult, learn_from_store

__all__ = ["Adaptation", "Adapter", "adaptation_path", "load_adaptation", "THRESHOLD", "p_supported",
           "LearnResult", "learn_from_store"]
