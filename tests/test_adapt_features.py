"""The features model of the adaptation (core/adapt/detfit.py): verdicts corrected by what the
detector read of the fact (`Verdict.features`), adopted per language only when held-out labels say
it beats both the verifier and the calibration; applied by the Adapter to verdicts with features."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mfact.core.adapt import adaptation as A
from mfact.core.adapt import detfit as D
from mfact.core.adapt import learn as L
from mfact.core.adapt.features import Row, feature_row
from mfact.core.session import Verdict

SIZE = 6


def hidden_signal_rows(lang: str, n: int, signal: float, seed: int = 0, phi: bool = True) -> list[Row]:
    """Verdicts whose p(supported) sits near the threshold and says little (as es, it, ko on silver),
    while feature 0 of their features carries the truth with strength `signal` (0: pure noise)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        p = float(rng.uniform(0.35, 0.65))
        truth = rng.random() < 0.5
        f = rng.normal(size=SIZE)
        f[0] += signal * (1.0 if truth else -1.0)
        rows.append(Row((lang, f"f{i}"), lang, "S" if truth else "NS", "S" if p >= 0.5 else "NS", p,
                        feature_row(p, "", False), f if phi else None))
    return rows


def test_features_that_carry_the_truth_are_adopted_and_judged_on_held_out_labels():
    res = L.learn(hidden_signal_rows("es", 200, 1.5))
    es = res.languages["es"]
    assert es.adopted and es.model == "features" and es.features is not None
    assert es.features.size == SIZE
    assert es.gain_points > 15                                   # p said ~nothing; feature 0 says much
    assert abs(es.features.w[0]) > 3 * max(abs(es.features.w[1:SIZE]))


def test_noise_features_are_rarely_adopted(monkeypatch):
    """Features that say nothing about the labels: held-out chance alone adopted them in 7 of 10
    languages; the margin (`L.clearly_better`) in at most 2."""
    def adopted() -> int:
        return sum(L.learn(hidden_signal_rows("es", 200, 0.0, seed=seed)).languages["es"].model == "features"
                   for seed in range(10))
    assert adopted() <= 2
    monkeypatch.setattr(L, "MARGIN", 0.0)
    assert adopted() >= 5


def test_clearly_better_is_a_sign_test_over_the_labels_where_two_verdicts_differ():
    y = np.array([1.0] * 20)
    old = np.zeros(20)
    new = np.zeros(20)
    new[:3] = 1.0                                  # 3 wins, 0 losses: 3 >= 0.5 sqrt(3)
    assert L.clearly_better(new, old, y)
    new[3:5] = 1.0
    old[5:9] = 1.0                                 # 5 wins, 4 losses: 1 < 0.5 sqrt(9)
    assert not L.clearly_better(new, old, y)
    old[5:7] = 0.0                                 # 5 wins, 2 losses: 3 >= 0.5 sqrt(7)
    assert L.clearly_better(new, old, y)


def test_without_features_the_calibration_decides_as_before():
    rows = hidden_signal_rows("es", 200, 1.5, phi=False)
    es = L.learn(rows).languages["es"]
    assert es.model != "features" and es.features is None


def test_the_features_models_folds_never_score_labels_they_saw(monkeypatch):
    rows = hidden_signal_rows("es", 120, 1.0)
    data = L.Data.of(rows)
    fold = L.assign_folds(data)
    seen: list[set] = []
    real = D.choose_and_fit

    def spy(x, phi, y, keys):
        seen.append(set(keys))
        return real(x, phi, y, keys)

    monkeypatch.setattr(L, "choose_and_fit", spy)
    sel = np.arange(len(rows))
    held = L.features_held_out(data, sel, fold)
    assert not np.isnan(held).any() and len(seen) == L.FOLDS
    for k, keys in enumerate(seen):
        scored = {data.keys[i] for i in sel[fold == k]}
        assert scored and not (scored & keys)


def test_the_correction_is_bounded():
    """Confident verdicts keep their side: the model moves a logit by at most CLIP."""
    m = D.FeatureModel(np.zeros(SIZE + 4), np.ones(SIZE + 4), np.full(SIZE + 4, 50.0), 0.0, 1.0)
    x = np.array([feature_row(0.9, "", False), feature_row(0.6, "", False)])
    q = m.prob(x, -np.ones((2, SIZE)))
    assert q[0] > 0.5 > q[1]


def test_the_adapter_applies_the_features_model_to_verdicts_that_carry_features(tmp_path):
    a = A.from_result(L.learn(hidden_signal_rows("es", 200, 1.5)), 1)
    path = A.save_adaptation(a, tmp_path / "adaptation.json")
    assert json.loads(path.read_text())["schema"] == "mfact.adaptation/2"
    e = A.load_adaptation(path).entry("es")
    assert e is not None and e.features is not None and e.features.size == SIZE
    ad = A.Adapter(path)
    f = [0.0] * SIZE
    wrong_side = ad.apply(Verdict("S", 0.55, "offline/3-x", ["e1"], "p", features=[-3.0] + f[1:]), "es")
    assert wrong_side.label == "NS" and wrong_side.adaptation is not None
    assert wrong_side.unadapted.label == "S" and wrong_side.features == [-3.0] + f[1:]
    kept = ad.apply(Verdict("S", 0.55, "offline/3-x", ["e1"], "p", features=[3.0] + f[1:]), "es")
    assert kept.label == "S"
    if e.calibration is None:                      # no features, no calibration: the verdict as it is
        bare = Verdict("S", 0.55, "offline/3-x", ["e1"], "p")
        assert ad.apply(bare, "es") is bare
        other = Verdict("S", 0.55, "offline/3-x", ["e1"], "p", features=[1.0, 2.0])
        assert ad.apply(other, "es") is other      # features of another size (another verifier version)


def test_a_version_1_file_still_reads(tmp_path):
    from test_adapt import shifted_rows
    a = A.from_result(L.learn(shifted_rows("en", 300, 2.5)), 1)
    d = a.to_dict()
    d["schema"] = "mfact.adaptation/1"
    p = tmp_path / "old.json"
    p.write_text(json.dumps(d))
    old = A.load_adaptation(p)
    assert old.adopted("en") is not None and old.entry("en").features is None


@pytest.mark.parametrize("bad", [{"mu": [0.0] * 3, "sd": [1.0] * 3, "w": [0.0] * 3, "b": 0.0},
                                 {"mu": [0.0] * 6, "sd": [1.0] * 5, "w": [0.0] * 6, "b": 0.0},
                                 {"mu": [0.0] * 6, "sd": [1.0] * 6, "w": [float("nan")] * 6, "b": 0.0}])
def test_a_damaged_features_model_is_refused(bad):
    with pytest.raises(ValueError):
        D.FeatureModel.from_dict(bad)


def test_features_read_from_the_store_json_keep_their_rows_when_one_is_damaged():
    """The store's features are decoded in one pass; a damaged value (one that would shift the
    others if joined) leaves only its own row without features."""
    rows = [Row(("s", f"f{i}"), "es", "S", "S", 0.6, feature_row(0.6, "", False)) for i in range(5)]
    L._attach_phi(rows, ["[1,2]", "3,4", None, "[5,6]", "[7,NaN]"])
    assert rows[0].phi.tolist() == [1.0, 2.0] and rows[3].phi.tolist() == [5.0, 6.0]
    assert rows[1].phi is None and rows[2].phi is None and rows[4].phi is None
    clean = [Row(("s", f"f{i}"), "es", "S", "S", 0.6, feature_row(0.6, "", False)) for i in range(2)]
    L._attach_phi(clean, ["[1,2]", "[3,4.5]"])
    assert [r.phi.tolist() for r in clean] == [[1.0, 2.0], [3.0, 4.5]]


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/environ"), reason="reads /proc")
def test_the_refit_process_runs_numpys_blas_on_one_thread():
    """The TUI's refit process must not take the second core the app's keys need."""
    from pathlib import Path

    from mfact.core.adapt.refit import BLAS_THREADS, RefitProcess
    import time
    p = RefitProcess()
    try:
        # Between fork and exec /proc shows the parent's environment: wait for the exec first.
        deadline = time.monotonic() + 20
        while b"mfact.core.adapt.refit" not in Path(f"/proc/{p._proc.pid}/cmdline").read_bytes():
            assert time.monotonic() < deadline and p.alive()
            time.sleep(0.01)
        env = dict(kv.split("=", 1) for kv in Path(f"/proc/{p._proc.pid}/environ").read_text().split("\0") if "=" in kv)
        assert all(env.get(k) == "1" for k in BLAS_THREADS)
    finally:
        p.close()


def test_features_of_the_wrong_kind_in_the_store_are_dropped_row_by_row():
    rows = [Row(("s", f"f{i}"), "es", "S", "S", 0.6, feature_row(0.6, "", False)) for i in range(4)]
    L._attach_phi(rows, ['[1,2]', '["1",2]', '[true,false]', '[[1],[2]]'])
    assert rows[0].phi.tolist() == [1.0, 2.0]
    assert rows[1].phi is None and rows[2].phi is None and rows[3].phi is None
