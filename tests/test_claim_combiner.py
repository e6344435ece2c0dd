"""The claim combiner: p(supported) of a claim read alone (verify-pairs) from its fact features."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mfact.core.checking.verify.claim_combiner import ClaimCombiner, CombinerOrigin, load_combiner

ROOT = Path(__file__).resolve().parents[1]
XNLI = ROOT.parent / "shared" / "data" / "xnli-dev"


def test_the_fit_finds_the_informative_feature_and_predicts_held_out_rows():
    pytest.importorskip("torch")
    from mfact.core.training.train_combiner import fit_standardised as fit_logistic
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 5))
    y = (x[:, 2] + 0.3 * rng.normal(size=600) > 0).astype(float)
    mu, sd, w, b = fit_logistic(x[:400], y[:400], 0.01)
    assert int(np.argmax(np.abs(w))) == 2 and w[2] > 0
    c = ClaimCombiner(mu, sd, w, b)
    acc = np.mean([(c.prob(r) >= 0.5) == bool(t) for r, t in zip(x[400:], y[400:])])
    assert acc > 0.85
    # a stronger penalty shrinks the weights
    assert np.abs(fit_logistic(x[:400], y[:400], 1.0)[2]).sum() < np.abs(w).sum()


def test_the_penalty_is_chosen_by_folds_that_keep_a_group_together():
    pytest.importorskip("torch")
    from mfact.core.training.train_combiner import choose_lambda
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 3))
    y = (x[:, 0] > 0).astype(float)
    lam, acc = choose_lambda(x, y, [i // 3 for i in range(300)], lambdas=(0.001, 100.0))
    assert lam == 0.001 and acc[0.001] > acc[100.0]


def test_a_combiner_file_round_trips_and_bad_files_are_refused(tmp_path):
    c = ClaimCombiner([0.0, 1.0], [1.0, 2.0], [0.5, -1.0], 0.25,
                      CombinerOrigin("abcdef12" * 8, "basis123", meta={"lambda": 0.1}))
    d = json.loads(json.dumps(c.to_json()))
    back = ClaimCombiner.from_json(d)
    assert back.digest == c.digest and back.prob([1.0, 3.0]) == pytest.approx(c.prob([1.0, 3.0]))
    z = 0.5 * 1.0 + -1.0 * (3.0 - 1.0) / 2.0 + 0.25
    assert c.prob([1.0, 3.0]) == pytest.approx(1 / (1 + math.exp(-z)))
    assert c.fits("abcdef12", "basis123") and not c.fits("00000000", "basis123") and not c.fits("abcdef12", "other")
    with pytest.raises(ValueError):
        c.prob([1.0])
    for bad in ({**d, "format": "x"}, {**d, "w": [1.0]}, {**d, "sd": [0.0, 1.0]}, {**d, "b": float("nan")}):
        with pytest.raises(ValueError):
            ClaimCombiner.from_json(bad)
    f = tmp_path / "c.json"
    f.write_text("{not json", encoding="utf-8")
    assert load_combiner(f) is None
    f.write_text(json.dumps(d), encoding="utf-8")
    assert load_combiner(f).digest == c.digest
    assert load_combiner(tmp_path / "missing.json") is None


def test_the_shipped_combiner_fits_the_shipped_detector_and_basis():
    """New detector weights or a new basis need the combiner fitted again (train_combiner): else
    the default falls back to the feature model for standalone claims."""
    pytest.importorskip("torch")
    from mfact.core.checking.verify.offline import OfflineVerifier
    v = OfflineVerifier()
    assert v.combiner is not None, "refit: python -m mfact.core.training.train_combiner --heldout"
    assert v.version.endswith(f"k{v.combiner.digest}")
    assert len(v.combiner.w) == 51 and v.combiner.reader      # the 50 fact features and the pair reader's logit


def test_a_claim_alone_takes_the_combiners_p_and_carries_its_features():
    pytest.importorskip("torch")
    from mfact.core.checking.verify.offline import OfflineVerifier
    from mfact.core.session import Evidence
    ev = [Evidence(id="e", source="input", lang="en", title="",
                   text="The river flows north through three towns before it reaches the lake.")]
    items = [("The river flows north through three towns.", "", "en", ev),
             ("The river was painted by a famous artist in the winter.", "", "en", ev)]
    v = OfflineVerifier()
    got = v.verify_batch(items)
    zs = v.pair_reader().logits([(claim, [ev[0].text]) for claim, *_ in items])
    for vd, z in zip(got, zs):
        assert vd.features is not None and len(vd.features) == 50
        p = v.combiner.prob(vd.features + [z])
        assert vd.confidence == pytest.approx(round(p if vd.label == "S" else 1 - p, 4), abs=1e-4)
        assert "slot" not in vd.reason
    assert [vd.label for vd in got] == ["S", "NS"]
    off = OfflineVerifier()
    off.combiner = None
    assert all(vd.features is None for vd in off.verify_batch(items))


@pytest.mark.skipif(not (XNLI / "dev-en.tsv").is_file(), reason="needs ../shared/data/xnli-dev")
def test_the_training_script_runs_end_to_end_on_a_small_sample(tmp_path):
    """As the shipped combiner is fitted: on the training premises of the languages that neither the
    detector nor the pair reader saw, with the reader's logit (refused where the reader trained); and without the
    reader on the nine training languages, a temperature fitted on the six."""
    pytest.importorskip("torch")
    from mfact.core.checking.verify.offline import OfflineVerifier
    from mfact.core.training.train_combiner import reader_seen
    seen = reader_seen(OfflineVerifier().pair_reader())
    assert "en" in seen
    unseen = [lg for lg in ("bg", "el", "sw", "th", "tr", "ur") if lg not in seen]
    out = tmp_path / "comb.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mfact.core.training.train_combiner",
            "--per-lang",
            "12",
            "--fit-langs",
            ",".join(unseen),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    c = load_combiner(out)
    assert c is not None and len(c.w) == 51
    meta = c.meta
    assert meta["pairs"] == 12 * len(unseen) and meta["with_features"] > 10 * len(unseen) and "temperature" not in meta
    assert set(meta["data"]) >= {"xnli-dev/dev-en.tsv", "xnli-dev/dev-zh.tsv"}
    v = OfflineVerifier()
    assert c.fits(v.detector().digest[:8], v.basis.digest, v.pair_reader().digest[:8])
    proc = subprocess.run([sys.executable, "-m", "mfact.core.training.train_combiner", "--per-lang", "12",
                           "--fit-langs", f"{unseen[0]},en", "--out", str(tmp_path / "no.json")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and "trained on XNLI dev's training premises in en" in proc.stderr
    assert not (tmp_path / "no.json").exists()
    assert not c.fits(v.detector().digest[:8], v.basis.digest)
    plain = tmp_path / "plain.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mfact.core.training.train_combiner",
            "--per-lang",
            "12",
            "--calibrate",
            "10",
            "--no-reader",
            "--out",
            str(plain),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    c = load_combiner(plain)
    assert len(c.w) == 50 and not c.reader and c.meta["pairs"] == 12 * 9
    assert c.meta["calibration_pairs"] > 10 and c.meta["temperature"] > 0     # 10 a never-trained language
    assert c.fits(v.detector().digest[:8], v.basis.digest)


def test_the_temperature_softens_overconfident_logits():
    pytest.importorskip("torch")
    from mfact.core.training.train_combiner import fit_temperature
    rng = np.random.default_rng(2)
    true = rng.normal(scale=2.0, size=4000)
    y = (rng.random(4000) < 1 / (1 + np.exp(-true))).astype(float)
    assert fit_temperature(2.0 * true, y) == pytest.approx(2.0, abs=0.15)     # twice too sure
    c = ClaimCombiner([0.0], [1.0], [3.0], 0.0, temperature=2.0)
    assert c.prob([1.0]) == pytest.approx(1 / (1 + math.exp(-1.5)))
    assert c.logit([1.0]) == pytest.approx(3.0)
    with pytest.raises(ValueError):
        ClaimCombiner([0.0], [1.0], [3.0], 0.0, temperature=0.0)
