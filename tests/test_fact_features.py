"""The fact features (core/checking/verify/fact_features.py): made in the detector's one pass over a fact's
sentence, pooled per fact on the shipped basis (linear: pooling the projected tokens equals
projecting the pooled states), given to the verdicts of facts read in their sentence and to no
other; the basis script runs end to end. Real detector, real embedder, real files."""
from __future__ import annotations

import json
import math
import pickle
import random
import re

import numpy as np
import pytest

from mfact.core.protocols import FactContext
from mfact.core.session import Evidence

torch = pytest.importorskip("torch")

SENT = "Marie Curie est née le 22 mars 1867 à Paris et elle a étudié la physique à la Sorbonne."
LEAD = ("Marie Skłodowska-Curie, née le 7 novembre 1867 à Varsovie et morte le 4 juillet 1934, est une "
        "physicienne et chimiste. Elle étudie la physique à la Sorbonne à Paris.")


@pytest.fixture(scope="module")
def det():
    from mfact.core.checking.neural.detector import load_detector
    d = load_detector()
    if d is None:
        pytest.skip("no detector weights")
    return d


def random_basis(seed: int = 0):
    from mfact.core.checking.verify.fact_features import COMPONENTS, HIDDEN, Basis
    rng = np.random.default_rng(seed)
    return Basis(rng.normal(size=3 * HIDDEN).astype(np.float32),
                 rng.normal(size=(COMPONENTS, 3 * HIDDEN)).astype(np.float32), "test")


def test_pooling_projected_tokens_equals_projecting_the_pooled_states(det):
    from mfact.core.checking.neural.detector import Projection
    from mfact.core.checking.verify.fact_features import HIDDEN, SCALARS, FactScores, fact_features
    from mfact.core.training.feature_basis import fact_vectors
    basis = random_basis()
    span = (0, SENT.index(" et elle"))
    eye = np.eye(HIDDEN, dtype=np.float32)
    (_w, raw), = det.score_tokens([(SENT, [LEAD])], project=Projection(eye, eye, eye))
    (words, tokens), = det.score_tokens([(SENT, [LEAD])], project=basis.projection())
    assert words == det.score([(SENT, [LEAD])])[0]                 # the words as before, same pass
    v = fact_vectors(raw, [span])[0]
    phi = fact_features(tokens, span, len(SENT), FactScores(0.5, 0.88, 0.5, 0.6, 0.7), SENT[:span[1]], basis)
    direct = basis.project(v[None, :])[0]
    scale = np.abs(direct).max()
    assert np.allclose(np.array(phi[len(SCALARS):]), direct, atol=1e-3 * scale)
    assert len(phi) == 50 and all(math.isfinite(x) for x in phi)
    outside = fact_features(tokens, (len(SENT) + 5, len(SENT) + 9), len(SENT),
                            FactScores(0.5, 0.88, 0.5, 0.6, 0.7), "x", basis)
    assert outside is None                                          # no token of the sentence in it


def test_facts_read_in_their_sentence_carry_features_and_claims_alone_do_not(det):
    from mfact.core.checking.verify.fact_features import FEATURE_NAMES, load_basis
    from mfact.core.checking.verify.offline import OfflineVerifier
    if load_basis() is None:
        pytest.skip("no fact basis installed")
    ev = [Evidence(id="e1", source="given", lang="fr", title="Marie Curie", text=LEAD)]
    cut = SENT.index(" et elle")
    facts = [(SENT[:cut], FactContext(SENT, 0, cut)),
             ("Elle a étudié la physique à la Sorbonne.", FactContext(SENT, cut + 4, len(SENT)))]
    items = [(f, "Marie Curie", "fr", ev) for f, _c in facts]
    v = OfflineVerifier()
    assert f"b{load_basis().digest}" in v.version
    out = v.verify_batch(items, contexts=[c for _f, c in facts])
    for verdict in out:
        assert verdict.features is not None and len(verdict.features) == len(FEATURE_NAMES)
        assert all(math.isfinite(x) for x in verdict.features)
    assert out[0].features != out[1].features
    again = OfflineVerifier().verify_batch(items, contexts=[c for _f, c in facts])
    assert [x.features for x in again] == [x.features for x in out]          # deterministic
    alone = v.verify_batch(items[:1])                                         # verify-pairs: a claim alone
    assert alone[0].features is not None and v.combiner is not None          # read as its own sentence
    assert alone[0].features != out[0].features                               # ... not as a clause of SENT
    v.combiner = None                                                         # no combiner: no read
    assert v.verify_batch(items[:1])[0].features is None
    none = v.verify_batch([(facts[0][0], "Marie Curie", "fr", [])], contexts=[facts[0][1]])
    assert none[0].features is None                                           # no evidence: a rule decided


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_basis_script_runs_end_to_end_on_a_small_sample(tmp_path, capsys):
    """From sentence-split articles (the bundled leads here) to a basis file the verifier can load
    (slow: the whole leads are the evidence, ~1 s a sentence on a busy host)."""
    from mfact.core.checking.verify.fact_features import COMPONENTS, Basis
    from mfact.core.training import detector_data as dd
    from mfact.core.training.feature_basis import main
    from mfact.core.training.train_cross import bundled_leads
    arts = []
    for lang, leads in bundled_leads().items():
        for title, text in leads.items():
            sents = [s for s in re.split(r"(?<=[.!?])\s+", text) if len(s.split()) >= 4]
            if len(sents) >= 2:
                arts.append(dd.Article(lang, title, sents))
    random.Random(0).shuffle(arts)
    assert sum(dd.is_dev_article(a.lang, a.title) for a in arts) >= 3
    src = tmp_path / "articles.pkl"
    src.write_bytes(pickle.dumps((arts, {"test": len(arts)})))
    out = tmp_path / "basis.npz"
    assert main(["--articles", str(src), "--out", str(out), "--n", "40", "--seed", "3"]) == 0
    b = Basis.load(out)
    assert b.k == COMPONENTS and np.all(np.isfinite(b.comps))
    assert np.allclose(b.comps @ b.comps.T, np.eye(COMPONENTS), atol=1e-3)     # orthonormal components
    meta = json.loads(b.meta)
    assert meta["seed"] == 3 and meta["sentences"] <= 40 and len(meta["articles_sha256"]) == 64


def test_the_scalars_are_the_fact_tokens_statistics(det):
    """The 18 scalars against numpy over the same tokens (quantiles interpolated as numpy does)."""
    from mfact.core.checking.verify.fact_features import SCALARS, FactScores, fact_features
    basis = random_basis(1)
    (_w, tokens), = det.score_tokens([(SENT, [LEAD])], project=basis.projection())
    a, b = SENT.index("22"), SENT.index(" et elle")
    phi = dict(zip(SCALARS, fact_features(tokens, (a, b), len(SENT), FactScores(0.91, 0.88, 0.5, 0.8, 0.7), SENT[a:b],
                                               basis)))
    inside = [t for t, (x, y) in enumerate(tokens.spans) if x < b and a < y]
    lg = np.asarray(tokens.logits, np.float64)[inside]
    p = 1 / (1 + np.exp(-lg))
    want = {"has_tokens": 1.0, "p_max": p.max(), "p_mean": p.mean(), "logit_max": lg.max(), "logit_mean": lg.mean(),
            "logit_q25": np.quantile(lg, 0.25), "logit_q50": np.median(lg), "logit_q75": np.quantile(lg, 0.75),
            "share_flagged": np.mean(p >= 0.5), "log_tokens": math.log1p(len(inside)), "gate_cos": 0.91,
            "gate_on": 1.0, "log_sentence_chars": math.log1p(len(SENT)), "fact_share": (b - a) / len(SENT),
            "logit_p_lite": math.log(0.8 / 0.2), "window_sim": 0.7, "log_words": math.log1p(len(SENT[a:b].split()))}
    assert len(inside) >= 4 and lg.max() > lg.min()
    for name, value in want.items():
        assert phi[name] == pytest.approx(value, abs=1e-4), name


def test_no_features_from_a_basis_of_other_weights_or_a_damaged_file(tmp_path, monkeypatch):
    """A basis names the detector it was computed on: with other weights (`detector_path`), or
    without a readable basis file, the verdicts carry no features and the version names no basis."""
    import json as _json

    from mfact.core.checking.verify import fact_features as ff
    from mfact.core.checking.verify import offline as vd
    from mfact.core.checking.verify.detector import DetectorVerifier
    shipped = ff.load_basis()
    if shipped is None:
        pytest.skip("no fact basis installed")
    assert shipped.fits(vd._detector_digest()) and not shipped.fits("0123abcd") and not shipped.fits("")
    bad = tmp_path / "basis.npz"
    bad.write_bytes(b"PK\x03\x04 not a zip")
    assert ff.load_basis(str(bad)) is None and ff.load_basis(str(tmp_path / "none.npz")) is None
    other = tmp_path / "other.pt"
    other.write_bytes(b"other weights")
    v = DetectorVerifier(detector_path=other)
    assert v.basis is None and re.search(r"-d[0-9a-f]{8}f32g\d+c\d+-\d+a\d+w\d+s2$", v.version)
    meta = _json.loads(shipped.meta)
    assert ff.Basis(shipped.mean, shipped.comps, "x", _json.dumps({**meta, "detector_sha256": None})).fits("0123abcd")
    monkeypatch.setattr(vd, "load_basis", lambda: None)
    assert vd.OfflineVerifier().version.endswith("s2")                 # no basis file: no features
