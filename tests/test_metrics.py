"""Metrics: FActScore variants, gamma, semantic drift (paper's worked example), permutation p-value,
agreement, hallucination-rate estimate, session_metrics."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mfact.core import metrics as M
from mfact.core.session import Entity, Fact, HumanLabel, Session, Verdict

WORKED = "N S S S S S S S N N S N N N S N N".split()
WORKED_LABELS = ["S" if x == "S" else "NS" for x in WORKED]

labels_st = st.lists(st.sampled_from(["S", "NS", "IR"]), max_size=40)


# --------------------------------------------------------------------------- FActScore


def test_factscore_counts_ir_as_not_supported():
    assert M.factscore(["S", "S", "NS", "IR"]) == 0.5
    assert M.factscore_relevant_only(["S", "S", "NS", "IR"]) == pytest.approx(2 / 3)


def test_factscore_ignores_pending_facts():
    assert M.factscore(["S", None, "NS", None]) == 0.5
    assert M.factscore([None, None]) is None
    assert M.factscore([]) is None


def test_relevant_only_none_when_all_irrelevant():
    assert M.factscore_relevant_only(["IR", "IR"]) is None
    assert M.factscore(["IR", "IR"]) == 0.0


def test_unknown_label_rejected():
    with pytest.raises(ValueError):
        M.factscore(["S", "X"])


def test_gamma_penalty_values():
    assert M.gamma_penalty(10) == 1.0
    assert M.gamma_penalty(25) == 1.0
    assert M.gamma_penalty(5) == pytest.approx(math.exp(1 - 10 / 5))
    assert M.gamma_penalty(1) == pytest.approx(math.exp(-9))
    assert M.gamma_penalty(0) == 0.0
    assert M.factscore_gamma(["S"] * 5) == pytest.approx(math.exp(-1))
    assert M.factscore_gamma(["S"] * 10 + ["NS"] * 10) == 0.5
    assert M.factscore_gamma([]) is None


@settings(deadline=None)
@given(labels_st)
def test_factscore_bounds(labels):
    for f in (M.factscore, M.factscore_relevant_only, M.factscore_gamma):
        v = f(labels)
        assert v is None or 0.0 <= v <= 1.0
    fs, fg = M.factscore(labels), M.factscore_gamma(labels)
    if fs is not None:
        assert fg <= fs + 1e-12
        rel = M.factscore_relevant_only(labels)
        assert rel is None or rel >= fs - 1e-12


# --------------------------------------------------------------------------- drift


def test_worked_example_from_the_paper():
    d = M.semantic_drift(WORKED_LABELS, m=3)
    assert d.point == 8
    assert d.supported_before == pytest.approx(7 / 8)
    assert d.unsupported_after == pytest.approx(7 / 9)
    assert round(d.score, 3) == 0.826


def test_drift_accepts_ints_and_counts_ir_as_unsupported():
    ints = [1 if x == "S" else 0 for x in WORKED]
    assert M.semantic_drift(ints).score == M.semantic_drift(WORKED_LABELS).score
    with_ir = ["IR" if x == "NS" else x for x in WORKED_LABELS]
    assert M.semantic_drift(with_ir) == M.semantic_drift(WORKED_LABELS)


def test_drift_extremes():
    assert M.semantic_drift(["S"] * 6 + ["NS"] * 6).score == 1.0
    assert M.semantic_drift(["S"] * 6 + ["NS"] * 6).point == 6
    assert M.semantic_drift(["NS"] * 6 + ["S"] * 6).score == pytest.approx(1 / 6)
    assert M.semantic_drift(["S"] * 12).score == 0.5


def test_drift_needs_enough_facts():
    assert M.semantic_drift(["S"] * 5, m=3).score is None
    assert M.semantic_drift(["S"] * 6, m=3).point == 3
    assert M.semantic_drift(["S"], m=0).score is None
    assert M.semantic_drift(["S", "NS"], m=0) == (1.0, 1, 1.0, 1.0)
    with pytest.raises(ValueError):
        M.semantic_drift(["S"] * 4, m=-1)


def test_drift_margin_changes_the_split():
    labels = ["NS"] + ["S"] * 3 + ["NS"] * 3
    assert M.semantic_drift(labels, m=0).point == 4
    assert M.semantic_drift(labels, m=1).point == 4


def test_pending_facts_skipped_in_drift():
    assert M.semantic_drift([None] + WORKED_LABELS + [None]) == M.semantic_drift(WORKED_LABELS)


def _brute_force(labels, m):
    s = [1 if x == "S" else 0 for x in labels]
    n = len(s)
    best = None
    for k in range(max(m, 1), n - max(m, 1) + 1):
        v = 0.5 * (sum(s[:k]) / k + sum(1 - x for x in s[k:]) / (n - k))
        if best is None or v > best[0] + 1e-12:
            best = (v, k)
    return best


@settings(max_examples=200, deadline=None)
@given(labels_st, st.integers(min_value=0, max_value=5))
def test_drift_point_validity(labels, m):
    d = M.semantic_drift(labels, m)
    n = len(labels)
    lo = max(m, 1)
    if n < 2 * lo:
        assert d.score is None and d.point is None
        return
    assert 0.0 <= d.score <= 1.0
    assert lo <= d.point <= n - lo          # at least max(m,1) facts on each side
    assert d.score == pytest.approx(0.5 * (d.supported_before + d.unsupported_after))
    ref = _brute_force(labels, m)
    assert d.score == pytest.approx(ref[0])
    assert d.point == ref[1]


def test_p_value_is_seeded_and_small_for_clear_drift():
    clear = ["S"] * 10 + ["NS"] * 10
    p1 = M.drift_p_value(clear)
    assert p1 == M.drift_p_value(clear)
    assert p1 < 0.02
    assert M.drift_p_value(["S"] * 12) == 1.0          # every shuffle is the same
    assert M.drift_p_value(["S"] * 3) is None


def test_p_value_matches_a_plain_loop():
    import numpy as np

    labels = WORKED_LABELS
    obs = M.semantic_drift(labels).score
    rng = np.random.default_rng(0)
    base = np.asarray([1 if x == "S" else 0 for x in labels])
    shuffled = rng.permuted(np.broadcast_to(base, (200, base.size)).copy(), axis=1)
    expected = sum(M.semantic_drift([int(v) for v in row]).score >= obs - 1e-9 for row in shuffled) / 200
    assert M.drift_p_value(labels, n_permutations=200, seed=0) == pytest.approx(expected)


@settings(max_examples=50, deadline=None)
@given(labels_st)
def test_p_value_bounds(labels):
    p = M.drift_p_value(labels, n_permutations=50)
    assert p is None or 0.0 <= p <= 1.0   # the share of shuffles (0 possible: none reached it)


# --------------------------------------------------------------------------- agreement


def test_agreement_accuracy_and_kappa():
    pairs = [("S", "S")] * 20 + [("NS", "NS")] * 15 + [("S", "NS")] * 5 + [("NS", "S")] * 10
    a = M.agreement(pairs)
    assert a.n == 50
    assert a.accuracy == pytest.approx(0.7)
    # pe = 0.5*0.6 + 0.5*0.4 = 0.5 -> kappa = (0.7 - 0.5) / 0.5
    assert a.kappa == pytest.approx(0.4)


def test_agreement_edge_cases():
    assert M.agreement([]).accuracy is None and M.agreement([]).reason
    single = M.agreement([("S", "S")] * 4)
    assert single.accuracy == 1.0 and single.kappa is None and single.reason
    assert M.agreement([("S", "NS"), ("NS", "S")]).kappa == pytest.approx(-1.0)


@settings(deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["S", "NS", "IR"]), st.sampled_from(["S", "NS", "IR"])),
                min_size=1, max_size=40))
def test_agreement_bounds(pairs):
    a = M.agreement(pairs)
    assert 0.0 <= a.accuracy <= 1.0
    assert a.kappa is None or -1.0 - 1e-9 <= a.kappa <= 1.0 + 1e-9


# --------------------------------------------------------------------------- hallucination rate


def test_hallucinated_tokens_count_the_tokens_of_the_ns_spans():
    text = "one two three four. five six seven eight."
    first, second = (0, 19), (20, 41)
    h, n = M.hallucinated_tokens(text, [(first, "S"), (first, "NS"), (second, "NS")])
    assert n == 10                                   # 8 words + 2 full stops
    assert h == 8.0                                  # the union of the NS spans, without the stops
    h2, _ = M.hallucinated_tokens(text, [(first, "S"), (first, None)])
    assert h2 == 0.0
    # tight spans: only the words an NS fact carries ("three four"), not its whole sentence
    h3, _ = M.hallucinated_tokens(text, [((0, 7), "S"), ((8, 18), "NS"), ((20, 40), "S")])
    assert h3 == 2.0


def test_ns_spans_are_the_sorted_disjoint_union_of_the_ns_facts():
    text = "Marie Curie was born in Warsaw in 1867, and she won two Nobel Prizes."
    facts = [((40, 68), "NS"), ((0, 30), "S"), ((24, 30), "NS"), ((28, 38), "NS"), ((12, 20), "IR"),
             ((0, 500), None)]
    spans = M.ns_spans(text, facts)
    assert spans == [(24, 38, "NS"), (40, 68, "NS")]
    assert [text[a:b] for a, b, _ in spans] == ["Warsaw in 1867", "and she won two Nobel Prizes"]
    assert M.ns_spans(text, [((0, 5), "S")]) == []
    # out-of-range spans are clipped, punctuation-only spans dropped
    assert M.ns_spans("abc.", [((3, 9), "NS"), ((-2, 2), "NS")]) == [(0, 2, "NS")]


def test_calibration_is_token_weighted():
    # the verifier finds the long NS facts and misses the short ones: token recall is higher
    pairs = [("NS", "NS", 9)] * 15 + [("NS", "S", 1)] * 15 + [("S", "S", 3)] * 10
    c = M.ns_calibration(pairs)
    assert c.precision == pytest.approx(1.0)
    assert c.recall == pytest.approx(135 / 150)
    assert M.ns_calibration([(h, a) for h, a, _w in pairs]).recall == pytest.approx(0.5)


def test_hallucinated_tokens_cjk_counts_characters():
    assert len(M.text_tokens("居里夫人是物理学家。")) == 10


def test_calibration_needs_enough_relabels():
    c = M.ns_calibration([("NS", "NS")] * 29)
    assert c.precision is None and "not enough relabels" in c.reason
    assert M.hallucination_rate(5.0, 100, c) is None


def test_calibrated_rate():
    pairs = [("NS", "NS")] * 8 + [("S", "NS")] * 2 + [("NS", "S")] * 8 + [("S", "S")] * 20
    c = M.ns_calibration(pairs)
    assert c.precision == pytest.approx(0.8) and c.recall == pytest.approx(0.5)
    # HR = P * H / (R * N) = 0.8 * 10 / (0.5 * 100)
    assert M.hallucination_rate(10.0, 100, c) == pytest.approx(0.16)
    assert M.hallucination_rate(10.0, 100, None) == pytest.approx(0.1)
    assert M.hallucination_rate(10.0, 0, None) is None


def test_calibration_without_ns():
    c = M.ns_calibration([("S", "S")] * 40)
    assert not c.usable and c.reason


# --------------------------------------------------------------------------- session_metrics


def _session(labels, human=False, text=None):
    text = text or ("Marie Curie was a physicist and chemist who won two Nobel Prizes. " * 3).strip()
    facts = []
    for i, lab in enumerate(labels):
        v = Verdict(label=lab, confidence=0.9, verifier="test") if not human else None
        h = HumanLabel(label=lab) if human else None
        a, b = i * len(text) // len(labels), (i + 1) * len(text) // len(labels)
        facts.append(Fact(id=f"f{i}", text=f"fact {i}", sentence=0, span=(a, b), auto=v, human=h))
    return Session(language="en", entity=Entity("Marie Curie"), text=text, facts=facts)


def test_session_metrics_keys_and_values():
    s = _session(WORKED_LABELS)
    out = M.session_metrics(s)
    for key in ("factscore", "factscore_relevant_only", "factscore_gamma", "semantic_drift",
                "drift_point", "drift_p_value", "calm", "hallucination_rate"):
        assert key in out
    assert set(out["calm"]) == {"language_ok", "detected_language", "repetitive", "non_empty"}
    assert out["factscore"] == pytest.approx(9 / 17)
    assert out["drift_point"] == 8
    assert round(out["semantic_drift"], 3) == 0.826
    assert 0 < out["drift_p_value"] <= 1
    assert out["calm"]["language_ok"] is True and out["calm"]["non_empty"] is True
    # automatic labels, no relabels: the estimate needs calibration
    assert out["hallucination_rate"] is None
    assert "not enough relabels" in out["hallucination_rate_reason"]
    # the tokens of the NS facts' spans (8 of 17 facts, each a 17th of the text)
    assert out["hallucination_rate_raw"] == pytest.approx(
        M.tokens_in(s.text, M.session_ns_spans(s)) / len(M.text_tokens(s.text)))
    assert out["hallucination_rate_raw"] == pytest.approx(8 / 17, abs=0.12)


def test_session_metrics_human_labels_and_no_p_value():
    s = _session(["S", "NS"], human=True)
    out = M.session_metrics(s, p_value=False)
    # human labels need no correction: the share of tokens in the NS half of the text
    assert out["hallucination_rate"] == pytest.approx(out["hallucination_rate_raw"])
    assert out["hallucination_rate"] == pytest.approx(0.5, abs=0.05)
    assert out["drift_p_value"] is None and out["semantic_drift"] is None


def test_session_metrics_effective_labels():
    s = _session(["NS", "NS"])
    s.facts[0].human = HumanLabel(label="S")
    out = M.session_metrics(s, p_value=False)
    assert out["factscore"] == 0.5
    assert out["agreement"]["n"] == 1 and out["agreement"]["accuracy"] == 0.0


def test_session_metrics_abstention():
    s = _session([], text="I don't know who that is.")
    out = M.session_metrics(s)
    assert out["abstained"] is True and out["factscore"] is None and out["factscore_gamma"] is None


def test_session_metrics_uses_stored_checks():
    s = _session(["S"])
    s.checks = {"language_ok": False, "detected_language": "fr", "repetitive": True, "non_empty": True}
    out = M.session_metrics(s, p_value=False)
    assert out["calm"] == {"language_ok": False, "detected_language": "fr", "repetitive": True,
                           "non_empty": True}
