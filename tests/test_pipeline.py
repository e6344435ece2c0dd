"""The incremental checking pipeline, driven by the deterministic fake stages of core/fake.py."""
from __future__ import annotations

import threading
import time

import pytest

from mfact.core.events import (EvidenceEvent, FactEvent, MetricsEvent, NoticeEvent, ProgressEvent,
                               SentenceEvent, StopEvent, TokenEvent, VerdictEvent)
from mfact.core.fake import (DEFAULT_TEXT, FakeEmbedder, FakeExtractor, FakeGenerator, FakeRetriever, FakeStages,
                             FakeVerifier, Persona, fake_pipeline, sentence_texts)
from mfact.core.pipeline import CheckPipeline, Stages, VerdictCache, selfcheck_scores
from mfact.core.errors import MfactError
from mfact.core.session import Session

pytestmark = pytest.mark.timeout(60)

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
         "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"]


def numbered_text(n: int) -> str:
    return "".join(f"Ada Example founded the {WORDS[i]} society in Paris. " for i in range(n))


def run_all(pipeline, entity="Marie Curie", lang="en", **kw):
    return list(pipeline.run(entity, lang, **kw))


def final_session(events) -> Session:
    assert isinstance(events[-1], StopEvent)
    assert sum(isinstance(e, StopEvent) for e in events) == 1
    return events[-1].session


# --------------------------------------------------------------------------- the normal run


def test_run_emits_events_in_order_and_a_complete_session():
    events = run_all(fake_pipeline(workers=2))
    s = final_session(events)
    assert events[-1].reason == "eos" and s.stop_reason == "eos"
    kinds = [type(e) for e in events]
    assert kinds.index(TokenEvent) < kinds.index(SentenceEvent) < kinds.index(FactEvent) \
        < kinds.index(VerdictEvent)
    # the streamed text is the session's text
    assert "".join(e.text for e in events if isinstance(e, TokenEvent)) == s.text == DEFAULT_TEXT.strip()
    n_sent = len(sentence_texts(DEFAULT_TEXT))
    assert sum(isinstance(e, SentenceEvent) for e in events) == n_sent == len(s.facts)
    # every fact: span inside the text matching its words, a verdict, evidence that exists
    ev_ids = {e.id for e in s.evidence}
    for f in s.facts:
        a, b = f.span
        assert 0 <= a < b <= len(s.text)
        assert s.text[a:b] == f.text
        assert f.auto is not None and f.auto.label in ("S", "NS", "IR")
        assert f.auto.evidence and set(f.auto.evidence) <= ev_ids
        assert f.auto.verifier.startswith("fake/")
    # facts in text order
    assert [f.span for f in s.facts] == sorted(f.span for f in s.facts)
    # the made-up last sentence is the only one not supported by the passages
    assert [f.label for f in s.facts].count("NS") == 1
    assert s.facts[-1].label == "NS" and "Brazil" in s.facts[-1].text
    # metrics after every verdict, final metrics filled in
    n_verdicts = sum(isinstance(e, VerdictEvent) for e in events)
    assert n_verdicts == len(s.facts)
    assert sum(isinstance(e, MetricsEvent) for e in events) >= n_verdicts
    assert s.metrics["factscore"] == pytest.approx(7 / 8)
    assert s.metrics["calm"]["language_ok"] is True
    assert s.metrics["n_facts"] == 8
    # the session survives its JSON form
    again = Session.from_dict(s.to_dict())
    assert again.to_dict() == s.to_dict()


def test_session_records_generator_and_stage_versions():
    p = fake_pipeline(k=3, max_tokens=400, seed=7, temperature=0.3)
    s = final_session(run_all(p))
    g = s.generator
    assert g.backend == "fake" and g.model == "fake"
    assert g.prompt == "Tell me a bio of Marie Curie."
    assert g.seed == 7 and g.params["temperature"] == 0.3 and g.params["max_tokens"] == 400
    c = s.config
    assert c["k"] == 3
    assert c["verifier"]["name"] == "fake" and c["verifier"]["version"].startswith("1-")
    assert c["extractor"]["name"] == "fake-sentence"
    assert c["retriever"]["name"] == "fake" and "sources" in c["retriever"]
    assert c["evidence_langs"] == ["en"]
    assert c["pipeline"] and "mfact" in c
    # k passages retrieved per fact
    assert all(len(e.passages) == 3 for e in run_all(p) if isinstance(e, EvidenceEvent))


def test_given_text_is_checked_without_generating_and_last_sentence_kept():
    gen = FakeGenerator("never streamed")
    p = CheckPipeline(Stages(gen, FakeExtractor(), FakeRetriever(), FakeVerifier(), embedder=FakeEmbedder()))
    text = "Marie Curie was born in Warsaw in 1867. She died in 1934 in France"
    s = final_session(run_all(p, text=text))
    assert gen.calls == []
    assert s.text == text and s.generator.backend == "none" and s.tokens == 0
    assert [f.text for f in s.facts] == ["Marie Curie was born in Warsaw in 1867.", "She died in 1934 in France"]


def test_tokens_report_speed_and_counts():
    events = run_all(fake_pipeline(stages=FakeStages(chunk_size=2)))
    toks = [e for e in events if isinstance(e, TokenEvent)]
    totals = [t.total_tokens for t in toks]
    assert totals == sorted(totals) and totals[-1] == final_session(events).tokens > 0
    assert all(t.tokens_per_s >= 0 for t in toks) and toks[-1].tokens_per_s > 0


def test_events_carry_copies_not_the_live_session():
    events = run_all(fake_pipeline())
    s = final_session(events)
    first = next(e for e in events if isinstance(e, FactEvent))
    assert first.fact.auto is None          # pending when emitted, and stays so for the receiver
    first.fact.text = "changed by the receiver"
    assert s.facts[0].text != "changed by the receiver"


# --------------------------------------------------------------------------- overlap and timing


def test_verification_overlaps_generation():
    p = fake_pipeline(stages=FakeStages(delay=0.01), workers=2)
    events = run_all(p)
    kinds = [type(e) for e in events]
    last_token = max(i for i, k in enumerate(kinds) if k is TokenEvent)
    first_verdict = kinds.index(VerdictEvent)
    assert first_verdict < last_token, "verdicts should arrive while the model still writes"
    assert p.stats.verdict_lag is not None and p.stats.verdict_lag < 1.0


# --------------------------------------------------------------------------- drift


DRIFT_LABELS = "N S S S S S S S N N S N N N S N N".split()


def test_drift_example_of_science_md_from_verifier_labels():
    text = numbered_text(len(DRIFT_LABELS))
    s = final_session(run_all(fake_pipeline(text=text, labels=DRIFT_LABELS), entity="Ada Example"))
    assert [f.label for f in s.facts] == [{"N": "NS"}.get(x, x) for x in DRIFT_LABELS]
    assert s.metrics["drift_point"] == 8
    assert round(s.metrics["semantic_drift"], 3) == 0.826
    assert s.metrics["supported_before"] == pytest.approx(7 / 8)
    assert s.metrics["unsupported_after"] == pytest.approx(7 / 9)
    assert s.metrics["drift_p_value"] is not None


def test_drift_example_from_human_labels_set_during_the_run():
    text = numbered_text(len(DRIFT_LABELS))
    p = fake_pipeline(text=text, labels=["S"] * len(DRIFT_LABELS),  # the verifier: all S
                      stages=FakeStages(delay=0.002))
    order = iter(DRIFT_LABELS)
    metrics = []
    events = []
    for ev in p.run("Ada Example", "en"):
        events.append(ev)
        if isinstance(ev, FactEvent):
            lab = next(order)
            p.set_human_label(ev.fact.id, "NS" if lab == "N" else lab)
        if isinstance(ev, MetricsEvent):
            metrics.append(ev.metrics)
    s = final_session(events)
    assert all(f.auto.label == "S" for f in s.facts)
    assert [f.human.label for f in s.facts] == ["NS" if x == "N" else x for x in DRIFT_LABELS]
    assert s.metrics["drift_point"] == 8 and round(s.metrics["semantic_drift"], 3) == 0.826
    assert metrics[-1]["drift_point"] == 8


def test_stop_at_drift_ends_generation_early():
    text = numbered_text(len(DRIFT_LABELS))
    p = fake_pipeline(text=text, labels=DRIFT_LABELS, stages=FakeStages(delay=0.02), stop_at_drift=True,
                      drift_threshold=0.75, workers=2)
    events = run_all(p, entity="Ada Example")
    s = final_session(events)
    assert events[-1].reason == "drift" == s.stop_reason
    assert len(s.facts) < len(DRIFT_LABELS)
    assert len(s.text) < len(text) and text.startswith(s.text)
    assert all(f.span[1] <= len(s.text) for f in s.facts)
    assert s.checks["drift_stop"]["score"] >= 0.75
    assert any(isinstance(e, NoticeEvent) and "drift" in e.message for e in events)
    Session.from_dict(s.to_dict())


def test_no_drift_stop_for_a_consistent_text():
    text = numbered_text(10)
    p = fake_pipeline(text=text, labels=["S"] * 10, stop_at_drift=True, stages=FakeStages(delay=0.005))
    s = final_session(run_all(p, entity="Ada Example"))
    assert s.stop_reason == "eos" and len(s.facts) == 10


# --------------------------------------------------------------------------- repetition and cut text


def test_repeated_sentence_stops_generation():
    text = ("Marie Curie was born in Warsaw in 1867. She died in 1934 in France. "
            "Marie Curie was born in Warsaw in 1867. She won a prize. She won a prize. ")
    events = run_all(fake_pipeline(text=text))
    s = final_session(events)
    assert s.stop_reason == "repetition"
    assert len(s.facts) == 2
    assert s.text.rstrip() == "Marie Curie was born in Warsaw in 1867. She died in 1934 in France."
    assert s.raw_text is not None and s.raw_text.startswith(s.text)
    assert s.checks["repeated_sentence"]["start"] == len("Marie Curie was born in Warsaw in 1867. "
                                                         "She died in 1934 in France. ")


def test_repetition_check_can_be_turned_off():
    text = "She won a prize. She won a prize. She won a prize. "
    s = final_session(run_all(fake_pipeline(text=text, stop_on_repeat=False)))
    assert s.stop_reason == "eos" and len(s.facts) == 3


def test_unfinished_last_sentence_is_not_checked_at_max_tokens():
    text = "Marie Curie was born in Warsaw in 1867. She died in 1934 in France and was buried in the Pantheon."
    p = fake_pipeline(text=text, max_tokens=12)
    s = final_session(run_all(p))
    assert s.stop_reason == "max_tokens" and s.tokens == 12
    assert [f.text for f in s.facts] == ["Marie Curie was born in Warsaw in 1867."]
    assert "She died" in s.text      # the text is kept, only checking skips the unfinished part


# --------------------------------------------------------------------------- stopping and errors


def test_stop_from_another_thread_ends_promptly():
    text = numbered_text(20) * 3
    p = fake_pipeline(text=text, stages=FakeStages(delay=0.02, verify_delay=0.05), stop_on_repeat=False)
    stop = threading.Event()
    events = []
    t_set = None
    for ev in p.run("Ada Example", "en", stop=stop):
        events.append(ev)
        if t_set is None and isinstance(ev, VerdictEvent):
            threading.Timer(0.05, stop.set).start()
            t_set = time.monotonic() + 0.05
    elapsed = time.monotonic() - t_set
    s = final_session(events)
    assert events[-1].reason == "user" and s.stop_reason == "user" and s.status == "stopped"
    assert elapsed < 2.0
    gen = p.generator
    assert s.tokens < len(text.split())
    # pending facts stay pending, every given verdict is kept, the session is valid
    assert any(f.auto is not None for f in s.facts)
    Session.from_dict(s.to_dict())
    assert gen.calls


def test_stop_before_first_token():
    stop = threading.Event()
    stop.set()
    s = final_session(run_all(fake_pipeline(stages=FakeStages(delay=0.01)), stop=stop))
    assert s.stop_reason == "user" and s.facts == []


def test_closing_the_iterator_stops_generation():
    p = fake_pipeline(text=numbered_text(20), stages=FakeStages(delay=0.01))
    it = p.run("Ada Example", "en")
    for ev in it:
        if isinstance(ev, SentenceEvent):
            break
    it.close()
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and any(t.name == "mfact-generate" for t in threading.enumerate()):
        time.sleep(0.01)
    assert not any(t.name == "mfact-generate" for t in threading.enumerate())
    assert len(p.generator.calls) == 1


@pytest.mark.parametrize("where", ["generator", "retriever", "verifier"])
def test_a_failing_stage_ends_with_an_error_and_the_partial_session(where):
    text = numbered_text(6)
    gen = FakeGenerator(text, fail_after=30 if where == "generator" else None)
    retr = FakeRetriever(fail=where == "retriever")
    ver = FakeVerifier(fail_on="echo" if where == "verifier" else None)
    p = CheckPipeline(Stages(gen, FakeExtractor(), retr, ver, embedder=FakeEmbedder()))
    t0 = time.monotonic()
    events = run_all(p, entity="Ada Example")
    assert time.monotonic() - t0 < 5
    s = final_session(events)
    assert events[-1].reason == "error" and s.stop_reason == "error"
    errors = [e for e in events if isinstance(e, NoticeEvent) and e.level == "error"]
    assert len(errors) == 1 and "on purpose" in errors[0].message
    assert s.checks["error"]["message"]
    Session.from_dict(s.to_dict())
    if where == "generator":
        assert 0 < s.tokens <= 30 and s.text


def test_unexpected_exception_in_a_stage_is_reported_not_raised():
    class Broken(FakeExtractor):
        def extract(self, *a, **kw):
            raise ZeroDivisionError("boom")

    p = CheckPipeline(Stages(FakeGenerator(), Broken(), FakeRetriever(), FakeVerifier()))
    events = run_all(p)
    assert events[-1].reason == "error"
    err = [e for e in events if isinstance(e, NoticeEvent) and e.level == "error"][0]
    assert "ZeroDivisionError" in err.message and "boom" in err.message


def test_bad_inputs_raise_one_clear_error():
    p = fake_pipeline()
    with pytest.raises(MfactError, match="unknown language"):
        run_all(p, lang="xx")
    with pytest.raises(MfactError, match="no entity"):
        run_all(p, entity="  ")


# --------------------------------------------------------------------------- cache and SelfCheck


def test_verdicts_are_cached_on_disk_by_verifier_fact_and_evidence(mfact_home):
    p = fake_pipeline()
    s1 = final_session(run_all(p))
    calls = p.verifier.calls
    assert calls == len(s1.facts) and p.stats.cache_hits == 0
    # a fresh pipeline (new process, same cache dir) reuses them
    p2 = fake_pipeline()
    s2 = final_session(run_all(p2))
    assert p2.verifier.calls == 0 and p2.stats.cache_hits == len(s2.facts)
    assert [f.auto.to_dict() for f in s2.facts] == [f.auto.to_dict() for f in s1.facts]
    assert (mfact_home / "cache" / "verdicts.sqlite3").exists()
    # another verifier (other rules: other version) does not see them
    p3 = fake_pipeline(labels=["NS"] * len(s1.facts))
    s3 = final_session(run_all(p3))
    assert p3.verifier.calls == len(s3.facts) and {f.label for f in s3.facts} == {"NS"}
    # other evidence: another key
    k1 = VerdictCache.key("v", "1", "E", "en", "fact", ["a", "b"])
    assert k1 != VerdictCache.key("v", "1", "E", "en", "fact", ["a"])
    assert k1 != VerdictCache.key("v", "2", "E", "en", "fact", ["a", "b"])


def test_corrupt_cache_file_does_not_stop_checking(mfact_home):
    (mfact_home / "cache").mkdir(exist_ok=True)
    (mfact_home / "cache" / "verdicts.sqlite3").write_bytes(b"this is not a database" * 100)
    s = final_session(run_all(fake_pipeline()))
    assert s.stop_reason == "eos" and all(f.auto for f in s.facts)


def test_selfcheck_scores_inconsistent_sentences_higher():
    text = "Marie Curie was born in Warsaw. She was the first president of Brazil. "
    samples = ["Marie Curie was born in Warsaw in Poland. She studied physics in Paris. ",
               "Marie Curie was born in Warsaw. She won two Nobel prizes. "]
    p = fake_pipeline(text=text, stages=FakeStages(samples=samples), selfcheck_samples=2)
    events = run_all(p)
    s = final_session(events)
    sc = s.checks["selfcheck"]
    assert sc["samples"] == 2 and len(sc["sentences"]) == 2
    born, brazil = (x["score"] for x in sc["sentences"])
    assert born < brazil
    assert born == pytest.approx(0.0, abs=0.15)
    assert set(sc["facts"]) == {f.id for f in s.facts}
    assert s.metrics["selfcheck"] == sc["mean"]
    assert len(p.generator.calls) == 3
    assert [c[1].seed for c in p.generator.calls] == [0, 1, 2]
    assert any(isinstance(e, ProgressEvent) and e.progress.stage == "selfcheck" for e in events)


def test_selfcheck_scores_function():
    emb = FakeEmbedder()
    scores = selfcheck_scores(["a b c", "x y z"], [["a b c"], ["a b c", "q"]], emb)
    assert scores[0] == pytest.approx(0.0, abs=1e-5) and scores[1] > 0.5
    assert selfcheck_scores(["a"], [], emb) == [None]
    assert selfcheck_scores([], [["a"]], emb) == []


def test_streamed_tokens_never_show_markup_that_cleaning_removes():
    raw = ("<start_of_turn>model\nMarie Curie was a **Polish and naturalised-French physicist** and chemist. "
           "She was born in <b>Warsaw</b> in 1867.\n- She died in 1934 in France.<end_of_turn>")
    events = run_all(fake_pipeline(text=raw))
    s = final_session(events)
    toks = [e.text for e in events if isinstance(e, TokenEvent)]
    assert "".join(toks) == s.text
    assert s.raw_text == raw
    for bad in ("*", "<", ">", "- She"):
        assert not any(bad in t for t in toks), bad
    assert s.text.startswith("Marie Curie was a Polish and naturalised-French physicist and chemist.")
    assert [s.text[a:b] for a, b in (f.span for f in s.facts)] == [f.text for f in s.facts]
    assert len(s.facts) == 3


def test_completion_prompt_name_starts_the_text():
    gen = FakeGenerator(" was born in Warsaw in 1867. She died in 1934 in France.",
                        persona=Persona(prompt_template="This is a Wikipedia article about {entity}. {entity}"))
    p = CheckPipeline(Stages(gen, FakeExtractor(), FakeRetriever(), FakeVerifier(), embedder=FakeEmbedder()))
    events = run_all(p)
    s = final_session(events)
    assert s.text.startswith("Marie Curie was born in Warsaw in 1867.")
    assert "".join(e.text for e in events if isinstance(e, TokenEvent)) == s.text
    assert s.facts[0].text == "Marie Curie was born in Warsaw in 1867."
    assert s.generator.prompt == "This is a Wikipedia article about Marie Curie. Marie Curie"


def test_complete_last_sentence_is_checked_when_tokens_run_out():
    text = "Marie Curie was born in Warsaw in 1867. She died in 1934 in France. She won"
    s = final_session(run_all(fake_pipeline(text=text, max_tokens=14)))
    assert s.stop_reason == "max_tokens"
    assert [f.text for f in s.facts] == ["Marie Curie was born in Warsaw in 1867.", "She died in 1934 in France."]


def test_a_verifier_answer_outside_the_session_format_is_caught():
    class Sloppy(FakeVerifier):
        def verify(self, fact, entity, lang, passages):
            v = super().verify(fact, entity, lang, passages)
            v.confidence = 1.0000001
            v.evidence = v.evidence + ["not-a-retrieved-id"]
            return v

    s = final_session(run_all(CheckPipeline(Stages(FakeGenerator(), FakeExtractor(), FakeRetriever(), Sloppy()),
                                            cache=False)))
    assert all(f.auto.confidence == 1.0 and "not-a-retrieved-id" not in f.auto.evidence for f in s.facts)
    Session.from_dict(s.to_dict())

    class Wrong(FakeVerifier):
        def verify(self, fact, entity, lang, passages):
            v = super().verify(fact, entity, lang, passages)
            v.label = "TRUE"
            return v

    events = run_all(CheckPipeline(Stages(FakeGenerator(), FakeExtractor(), FakeRetriever(), Wrong()), cache=False))
    assert events[-1].reason == "error"
    assert any(isinstance(e, NoticeEvent) and "unknown label 'TRUE'" in e.message for e in events)
    with pytest.raises(ValueError):
        fake_pipeline().set_human_label("s1f1", "maybe")


def test_session_builder_keeps_facts_in_text_order_whatever_order_they_arrive_in():
    """Sentences are checked side by side: a later sentence's facts may arrive first. The builder's
    list (what the TUI shows while the run streams) was in arrival order, the finished session's in
    text order, so the list reordered itself at the end (the builder test below failed on a loaded
    machine)."""
    from mfact.core.events import FactEvent
    from mfact.core.pipeline.session_builder import SessionBuilder
    from mfact.core.session import Entity, Fact

    b = SessionBuilder.for_run(Entity("Marie Curie"), "en", model="m", seed=1)
    b.apply(FactEvent(Fact("s2f1", "She won a prize", 2, (40, 55))))
    b.apply(FactEvent(Fact("s1f2", "She studied in Paris", 1, (20, 38))))
    b.apply(FactEvent(Fact("s1f1", "She was a physicist", 1, (0, 19))))
    assert [f.id for f in b.session.facts] == ["s1f1", "s1f2", "s2f1"]
    b.apply(FactEvent(Fact("s2f1", "She won a prize", 0, (0, 3))))           # a known fact moved
    assert [f.id for f in b.session.facts] == ["s2f1", "s1f1", "s1f2"]


def test_session_builder_rebuilds_the_run_and_keeps_labels_set_meanwhile():
    """The TUI's reducer: the events of a run fold into the same session the run ends with; a label
    set while it ran survives the adoption; labels read back from the store are taken in."""
    from mfact.core.pipeline.session_builder import ALL, SessionBuilder
    from mfact.core.session import Entity, HumanLabel

    events = run_all(fake_pipeline())
    b = SessionBuilder.for_run(Entity("Marie Curie"), "en", model="m", seed=3)
    assert b.session.status == "running" and b.session.generator.seed == 3
    for ev in events[:-1]:
        b.apply(ev)
    final = events[-1].session
    assert b.session.text == final.text and [f.id for f in b.session.facts] == [f.id for f in final.facts]
    assert [f.auto.label for f in b.session.facts] == [f.auto.label for f in final.facts]
    first = b.session.facts[0].id
    b.set_human(first, "NS")
    mine = b.session.id
    assert b.apply(events[-1]) == {ALL}
    assert b.session is final and final.id == mine and final.status == "done"
    assert final.fact(first).human.label == "NS"
    # labels another window wrote: only the changed facts move; other facts: refused
    labels = {f.id: f.human for f in final.facts}
    assert b.take_labels(labels) == []
    labels[first], labels[final.facts[1].id] = None, HumanLabel("S")
    moved = b.take_labels(labels)
    assert [f.id for f in moved] == [first, final.facts[1].id]
    assert final.fact(first).human is None and final.facts[1].human.label == "S"
    assert b.take_labels({"other": None}) is None and final.facts[1].human.label == "S"
