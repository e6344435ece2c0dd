"""The fact features (core/checking/fact_features.py): made in the detector's one pass over a fact's
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
    from mfact.core.checking.detector import load_detector
    d = load_detector()
    if d is None:
        pytest.skip("no detector weights")
    return d


def random_basis(seed: int = 0):
    from mfact.core.checking.fact_features import COMPONENTS, HIDDEN, Basis
    rng = np.random.default_rng(seed)
    return Basis(rng.normal(size=3 * HIDDEN).astype(np.float32),
                 rng.normal(size=(COMPONENTS, 3 * HIDDEN)).astype(np.float32), "test")


def test_pooling_projected_tokens_equals_projecting_the_pooled_states(det):
    from mfact.core.checking.detector import Projection
    from mfact.core.checking.fact_features import HIDDEN, SCALARS, fact_features
    from mfact.core.training.feature_basis import fact_vectors
    basis = random_basis()
    span = (0, SENT.index(" et elle"))
    eye = np.eye(HIDDEN, dtype=np.float32)
    (_w, raw), = det.score_tokens([(SENT, [LEAD])], project=Projection(eye, eye, eye))
    (words, tokens), = det.score_tokens([(SENT, [LEAD])], project=basis.projection())
    assert words == det.score([(SENT, [LEAD])])[0]                 # the words as before, same pass
    v = fact_vectors(raw, [span])[0]
    phi = fact_features(tokens, *span, len(SENT), 0.5, 0.88, 0.5, 0.6, 0.7, SENT[:span[1]], basis)
    direct = basis.project(v[None, :])[0]
    scale = np.abs(direct).max()
    assert np.allclose(np.array(phi[len(SCALARS):]), direct, atol=1e-3 * scale)
    assert len(phi) == 50 and all(math.isfinite(x) for x in phi)
    outside = fact_features(tokens, len(SENT) + 5, len(SENT) + 9, len(SENT), 0.5, 0.88, 0.5, 0.6, 0.7, "x", basis)
    assert outside is None                                          # no token of the sentence in it


def test_facts_read_in_their_sentence_carry_features_and_claims_alone_do_not(det):
    from mfact.core.checking.fact_features import FEATURE_NAMES, load_basis
    from mfact.core.checking.verify_default import DefaultVerifier
    if load_basis() is None:
        pytest.skip("no fact basis installed")
    ev = [Evidence(id="e1", source="given", lang="fr", title="Marie Curie", text=LEAD)]
    cut = SENT.index(" et elle")
    facts = [(SENT[:cut], FactContext(SENT, 0, cut)),
             ("Elle a étudié la physique à la Sorbonne.", FactContext(SENT, cut + 4, len(SENT)))]
    items = [(f, "Marie Curie", "fr", ev) for f, _c in facts]
    v = DefaultVerifier()
    assert v.version.endswith(f"b{load_basis().digest}")
    out = v.verify_batch(items, contexts=[c for _f, c in facts])
    for verdict in out:
        assert verdict.features is not None and len(verdict.features) == len(FEATURE_NAMES)
        assert all(math.isfinite(x) for x in verdict.features)
    assert out[0].features != out[1].features
    again = DefaultVerifier().verify_batch(items, contexts=[c for _f, c in facts])
    assert [x.features for x in again] == [x.features for x in out]          # deterministic
    alone = v.verify_batch(items[:1])                                         # verify-pairs: a claim alone
    assert alone[0].features is None
    none = v.verify_batch([(facts[0][0], "Marie Curie", "fr", [])], contexts=[facts[0][1]])
    assert none[0].features is None                                           # no evidence: a rule decided


def test_the_basis_script_runs_end_to_end_on_a_small_sample(tmp_path, capsys):
    """From sentence-split articles (the bundled leads here) to a basis file the verifier can load."""
    from mfact.core.checking.fact_features import COMPONENTS, Basis
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
