"""IncrementalMetrics (core/incremental.py) gives exactly what a full `session_metrics` gives, after
any sequence of relabels: property tests over random sessions and random label changes."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mfact.core import metrics as M
from mfact.core.figures import Checks
from mfact.core.incremental import IncrementalMetrics
from mfact.core.session import Entity, Fact, HumanLabel, Session, Verdict
from mfact.tui.widgets.metrics_bar import label_counts

CHECKS = {"language_ok": True, "detected_language": "en", "repetitive": False, "non_empty": True}
WORDS = ["Marie", "Curie", "was", "born", "in", "Warsaw", "1867", ",", ".", "她", "出生", "of",
         "radium", "  ", "\n", "Nobel", "prize", "!", "physicist", "--"]
LABELS = [None, "S", "NS", "IR"]


def make_session(rng: random.Random, n_facts: int, p_human: float) -> Session:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 400)))
    n = len(text)
    facts = []
    for i in range(n_facts):
        a = rng.randint(0, n)
        b = min(n, a + rng.randint(0, 60))
        auto = rng.choice(LABELS)
        human = rng.choice(LABELS[1:]) if rng.random() < p_human else None
        facts.append(Fact(id=f"f{i}", text="x", sentence=rng.randint(0, 5), span=(a, b),
                          auto=Verdict(auto, confidence=0.5) if auto else None,
                          human=HumanLabel(human) if human else None))
    if rng.random() < 0.7:
        facts.sort(key=lambda f: (f.span[0], f.sentence, f.span[1]))
    return Session(
        language="en", entity=Entity("Marie Curie"), text=text, facts=facts, checks=Checks.from_dict(CHECKS, "checks")
    )


def relabel(rng: random.Random, s: Session) -> object:
    f = rng.choice(s.facts)
    r = rng.random()
    if r < 0.6:
        lab = rng.choice(LABELS)
        f.human = HumanLabel(lab) if lab else None
    elif r < 0.9:
        lab = rng.choice(LABELS)
        f.auto = Verdict(lab, confidence=0.7) if lab else None
    else:
        f.human = HumanLabel(f.auto.label) if f.auto else None     # agree with the verifier
    return f


def same(inc: IncrementalMetrics, s: Session, p_value: bool, **kw) -> None:
    want = M.session_metrics(s, checks=CHECKS, p_value=p_value, **kw).to_dict()
    got = inc.metrics(p_value=p_value, **kw).to_dict()
    assert got == want
    assert inc.label_counts() == label_counts(s.facts)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_facts=st.integers(0, 90), p_human=st.floats(0, 1),
       steps=st.integers(1, 60))
def test_equal_to_full_recompute_after_random_relabels(seed, n_facts, p_human, steps):
    rng = random.Random(seed)
    s = make_session(rng, n_facts, p_human)
    inc = IncrementalMetrics(s, checks=CHECKS)
    same(inc, s, p_value=n_facts < 40)
    if not s.facts:
        return
    for _ in range(steps):
        inc.update(relabel(rng, s))
        same(inc, s, p_value=False)
    same(inc, s, p_value=True)


def test_calibration_is_exercised():
    """With 30+ relabels against the verifier, the calibrated hallucination rate (precision and
    recall from token-weighted pairs) is computed incrementally too."""
    rng = random.Random(7)
    s = make_session(rng, 120, 0.0)
    for f in s.facts:
        f.auto = Verdict(rng.choice(["S", "NS"]), confidence=0.9)
    inc = IncrementalMetrics(s, checks=CHECKS)
    for f in s.facts[:60]:
        f.human = HumanLabel(rng.choice(["S", "NS", "NS"]))
        inc.update(f)
    want = M.session_metrics(s, checks=CHECKS, p_value=True).to_dict()
    assert want["hallucination_precision"] is not None and want["agreement"]["n"] == 60
    assert inc.metrics(p_value=True).to_dict() == want
    cal = M.Calibration(100, 0.8, 0.5)
    assert inc.metrics(p_value=False, calibration=cal).to_dict() == M.session_metrics(
        s, checks=CHECKS, p_value=False, calibration=cal).to_dict()


def test_all_human_and_overlapping_ns_spans():
    """Every label a person's (no correction), and NS spans that overlap and touch (a token in
    two NS facts counts once; it stays counted until the last of them is relabelled)."""
    text = "Marie Curie was born in Warsaw in 1867 and died in 1934 in France."
    spans = [(0, 11), (6, 20), (20, 30), (31, 38), (31, 38), (60, 67)]
    facts = [Fact(id=f"f{i}", text="x", sentence=0, span=sp, human=HumanLabel("NS"))
             for i, sp in enumerate(spans)]
    s = Session(
        language="en", entity=Entity("Marie Curie"), text=text, facts=facts, checks=Checks.from_dict(CHECKS, "checks")
    )
    inc = IncrementalMetrics(s, checks=CHECKS)
    same(inc, s, p_value=True)
    assert inc.metrics(p_value=False).hallucination_rate_reason.startswith("all labels set by a person")
    for f in facts:
        f.human = HumanLabel("S")
        inc.update(f)
        same(inc, s, p_value=False)
    assert inc.metrics(p_value=False).hallucination_rate == 0.0


def test_drift_near_ties_use_the_loop():
    """Split points whose drift scores differ by less than 1e-12 are decided like
    `semantic_drift`'s loop (the first k that beats the best by more than 1e-12)."""
    for n in range(6, 40):
        for seed in range(20):
            rng = random.Random(n * 100 + seed)
            labels = [rng.choice(["S", "NS", "IR"]) for _ in range(n)]
            facts = [Fact(id=f"f{i}", text="x", sentence=i, span=(0, 0), human=HumanLabel(lab))
                     for i, lab in enumerate(labels)]
            s = Session(
                language="en", entity=Entity("X"), text="", facts=facts, checks=Checks.from_dict(CHECKS, "checks")
            )
            assert IncrementalMetrics(s, checks=CHECKS).drift() == M.semantic_drift(labels)


def test_stale_and_unknown_fact():
    rng = random.Random(1)
    s = make_session(rng, 10, 0.5)
    inc = IncrementalMetrics(s, checks=CHECKS)
    assert not inc.stale()
    with pytest.raises(KeyError):
        inc.update(Fact(id="nope", text="x", sentence=0, span=(0, 0)))
    s.facts.append(Fact(id="new", text="x", sentence=0, span=(0, 0)))
    assert inc.stale()
    s.text = s.text + " more"
    assert inc.stale()
