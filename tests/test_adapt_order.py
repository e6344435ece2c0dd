"""The order in which facts are asked for labels ("next uncertain", core/adapt/order.py): the TUI's
key and bench/learning.py's simulated user pick through the same `LabelOrder.next`."""
from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from mfact.core.adapt.features import Row, feature_row
from mfact.core.adapt.order import SPREAD_EVERY, SPREAD_UNTIL, LabelOrder, next_uncertain, spread_quantile
from mfact.core.session import Fact, Verdict

_PATH = Path(__file__).resolve().parents[1] / "bench" / "learning.py"


def label_all(order: LabelOrder, p, labelled=None, k=None) -> list[int]:
    """The picks of a user who labels what the order asks, one fact at a time."""
    done = np.zeros(len(p), dtype=bool) if labelled is None else np.array(labelled, dtype=bool)
    out = []
    while k is None or len(out) < k:
        i = order.next(p, done)
        if i is None:
            return out
        assert not done[i]
        done[i] = True
        out.append(i)
    return out


def test_spread_quantiles_fill_the_widest_gap():
    assert [spread_quantile(j) for j in range(7)] == [0.5, 0.25, 0.75, 0.125, 0.625, 0.375, 0.875]


def test_most_picks_are_nearest_the_threshold_and_every_third_of_the_first_25_spreads_over_p():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.0, 1.0, 400)
    ids = [f"f{i}" for i in range(len(p))]
    picks = label_all(LabelOrder(ids), p, k=48)
    rank = np.argsort(np.argsort(p))                           # 0..399 by p
    assert (SPREAD_EVERY, SPREAD_UNTIL) == (3, 25)
    spread = picks[2:25:3]                                      # labels 3, 6, ... 24
    near = [i for j, i in enumerate(picks) if j not in range(2, 25, 3)]
    # the uncertainty picks are the facts nearest 0.5, nearest first (less those a spread pick took:
    # the median's quantile is near 0.5 here)
    nearest = [i for i in np.argsort(np.abs(p - 0.5)).tolist() if i not in spread]
    assert near == nearest[:len(near)]
    # each spread pick sits at its quantile of p over all the facts (the nearest free one)
    for j, i in enumerate(spread[:3]):
        assert abs(rank[i] - spread_quantile(j) * 399) <= 1
    # 8 spread picks cover every quarter of the range of p; the uncertainty picks only the middle
    assert {int(rank[i] * 4 // 400) for i in spread} == {0, 1, 2, 3}
    assert {int(rank[i] * 4 // 400) for i in near} <= {1, 2}


def test_the_order_is_the_state_s_not_the_list_s_and_ties_go_by_the_salted_ids():
    p = [0.5] * 6 + [0.9, 0.1, 0.45]
    ids = [f"fact-{i}" for i in range(len(p))]
    first = [ids[i] for i in label_all(LabelOrder(ids, "s1"), p)]
    perm = list(range(len(p)))
    random.Random(1).shuffle(perm)
    again = [[ids[perm[i]] for i in label_all(LabelOrder([ids[j] for j in perm], "s1"), [p[j] for j in perm])]]
    assert again == [first]
    assert label_all(LabelOrder(ids, "s1"), p) == label_all(LabelOrder(ids, "s1"), p)
    # another salt takes the facts of equal p in another order (and nothing else changes)
    salted = {tuple(ids[i] for i in label_all(LabelOrder(ids, s), p, k=2)) for s in ("s1", "s2", "s3", "s4")}
    assert len(salted) > 1 and all(set(t) <= set(ids[:6]) for t in salted)


def test_labelled_facts_and_facts_without_a_p_are_never_asked():
    p = [0.5, np.nan, 0.4, 0.7, np.nan]
    picks = label_all(LabelOrder(list("abcde")), p, labelled=[False, False, True, False, False])
    assert sorted(picks) == [0, 3]
    assert LabelOrder(list("ab")).next([np.nan, 0.3], [False, True]) is None


def fact(i: int, p: float | None, human: str | None = None, sid: str = "s") -> Fact:
    auto = None if p is None else Verdict("S" if p >= 0.5 else "NS", p if p >= 0.5 else 1 - p, "offline/x", [], "")
    return Fact(id=f"f{i}", text=f"fact {i}", sentence=0, span=(0, 1), auto=auto, human=human)


def test_the_key_s_choice_is_label_order_over_the_session_s_facts():
    rng = np.random.default_rng(5)
    ps = [float(v) for v in rng.uniform(0.02, 0.98, 40)]
    facts = [fact(i, p) for i, p in enumerate(ps)] + [fact(40, None), fact(41, 0.5, human="S")]
    ids = [f.id for f in facts]
    expected = label_all(LabelOrder(ids, "sess"), ps + [np.nan, 0.5], labelled=[False] * 41 + [True])
    got = []
    while (f := next_uncertain(facts, "sess")) is not None:
        got.append(ids.index(f.id))
        f.human = "NS"
    assert got == expected and len(got) == 40
    # IR verdicts carry no p(supported): never asked
    assert (
        next_uncertain([Fact(id="x", text="x", sentence=0, span=(0, 1), auto=Verdict("IR", 0.9, "o", [], ""))]) is None
    )


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(_PATH.parent))
    spec = importlib.util.spec_from_file_location("learning_bench", _PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_bench_s_simulated_user_picks_with_the_key_s_order(bench, monkeypatch):
    rng = np.random.default_rng(7)
    rows = []
    for i in range(150):
        p = float(rng.uniform(0.02, 0.98))
        rows.append(Row(("s", f"f{i}"), "fr", "S" if rng.random() < 0.7 else "NS", "S" if p >= 0.5 else "NS", p,
                        feature_row(p, "", False)))
    asked = []
    real = LabelOrder.next

    def spy(self, p, labelled):
        i = real(self, p, labelled)
        asked.append(i)
        return i

    monkeypatch.setattr(LabelOrder, "next", spy)
    bench.simulate(rows, "uncertain", seed=2, steps=(0, 25))
    # before any fit the order reads the verifier's own p: the first 25 facts the bench labels are
    # the ones a user pressing the key would be shown, one at a time
    monkeypatch.setattr(LabelOrder, "next", real)
    ids = ["\x1f".join(r.key) for r in rows]
    assert asked == label_all(LabelOrder(ids, "2"), [r.p for r in rows], k=25)
