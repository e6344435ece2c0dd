"""Batch runs: entity lists, job planning, resumable runner."""
from __future__ import annotations

import pytest

from mfact.core.batch import EntitySpec, parse_entity_lines, plan_jobs, read_entity_file
from mfact.core.config import Config
from mfact.core.errors import MfactError


def test_entity_lines_plain_qid_and_fields():
    specs = parse_entity_lines([
        "# people", "Marie Curie\tQ7186", "", "Albert Einstein", "Kang Ji-hwan\trarity=rare\tregion=Asia",
        "Marie Curie",  # duplicate, kept once
    ])
    assert specs == [
        EntitySpec("Marie Curie", "Q7186"),
        EntitySpec("Albert Einstein"),
        EntitySpec("Kang Ji-hwan", None, (("rarity", "rare"), ("region", "Asia"))),
    ]


def test_entity_line_with_garbage_names_file_and_line():
    with pytest.raises(MfactError, match=r"people.txt:2: cannot read 'not a qid'"):
        parse_entity_lines(["Marie Curie", "Albert Einstein\tnot a qid"], "people.txt")


def test_factscore_prompt_entities_file_reads(shared_dir):
    specs = read_entity_file(shared_dir / "data/factscore/prompt_entities.txt")
    assert len(specs) == 183
    assert specs[0].name == "Kang Ji-hwan"


def test_missing_entity_file_is_clear(tmp_path):
    with pytest.raises(MfactError, match="no such file"):
        read_entity_file(tmp_path / "nope.txt")


def test_job_ids_are_stable_and_depend_on_configuration():
    ents = [EntitySpec("Marie Curie"), EntitySpec("Albert Einstein")]
    a = plan_jobs(ents, ["en", "es"], 2, Config())
    b = plan_jobs(ents, ["en", "es"], 2, Config())
    assert [j.session_id for j in a] == [j.session_id for j in b]
    assert len({j.session_id for j in a}) == 8
    c = plan_jobs(ents, ["en", "es"], 2, Config(max_tokens=120))
    assert not {j.session_id for j in a} & {j.session_id for j in c}
    # only speed settings differ: same sessions
    d = plan_jobs(ents, ["en", "es"], 2, Config(workers=8))
    assert [j.session_id for j in a] == [j.session_id for j in d]


def test_unknown_language_and_empty_list_are_refused():
    from mfact.core.languages import UnknownLanguage
    with pytest.raises(UnknownLanguage):
        plan_jobs([EntitySpec("X")], ["xx"], 1, Config())
    with pytest.raises(MfactError, match="no entities"):
        plan_jobs([], ["en"], 1, Config())


# --------------------------------------------------------------------------- runner with real store


def _runner(store, cfg, **kw):
    from mfact.core.batch import BatchRunner
    from mfact.core.fake import fake_pipeline

    built = []

    def factory():
        p = fake_pipeline(workers=1)
        built.append(p)
        return p

    return BatchRunner(store, factory, cfg, **kw), built


def test_runner_saves_one_session_per_job_and_skips_them_next_time():
    from mfact.core.store import Store

    cfg = Config()
    jobs = plan_jobs([EntitySpec("Marie Curie", "Q7186"), EntitySpec("Albert Einstein")], ["en", "es"], 1, cfg)
    store = Store()
    runner, _ = _runner(store, cfg)
    summary = runner.run(jobs)
    assert len(summary.done) == 4 and not summary.failed and not summary.skipped
    s = store.get_session(jobs[0].session_id)
    assert s.status == "done" and s.facts and all(f.auto for f in s.facts)
    assert s.entity.name == "Marie Curie" and s.entity.qid == "Q7186"
    assert s.config["run"]["sample"] == 0
    again, built = _runner(store, cfg)
    summary2 = again.run(jobs)
    assert summary2.done == [] and len(summary2.skipped) == 4
    assert built == []  # nothing was even built: no model loaded for a finished run
    store.close()


def test_runner_samples_use_distinct_seeds():
    from mfact.core.store import Store

    cfg = Config(seed=5)
    jobs = plan_jobs([EntitySpec("Marie Curie")], ["en"], 3, cfg)
    store = Store()
    runner, _ = _runner(store, cfg)
    runner.run(jobs)
    seeds = [store.get_session(j.session_id).generator.seed for j in jobs]
    assert seeds == [5, 6, 7]


def test_a_failing_job_is_reported_and_others_finish():
    from mfact.core.batch import BatchRunner
    from mfact.core.fake import fake_pipeline
    from mfact.core.store import Store

    class Broken:
        def run(self, entity, lang, stop=None, generation=None):
            if entity.name == "Bad Person":
                raise MfactError("the server went away", "start it again")
            yield from fake_pipeline(workers=1).run(entity, lang, stop=stop, generation=generation)

    cfg = Config()
    jobs = plan_jobs([EntitySpec("Bad Person"), EntitySpec("Marie Curie")], ["en"], 1, cfg)
    store = Store()
    summary = BatchRunner(store, Broken, cfg).run(jobs)
    assert len(summary.done) == 1
    assert summary.failed == [("Bad Person [en] #0", "the server went away (start it again)")]
    # the failed one is tried again next time, the finished one is not
    summary2 = BatchRunner(store, lambda: fake_pipeline(workers=1), cfg).run(jobs)
    assert len(summary2.done) == 1 and len(summary2.skipped) == 1


def test_a_row_that_ends_early_is_checked_while_the_batch_goes_on():
    """A generator that hands rows over as they end (`on_row`, llama.cpp) has them checked
    meanwhile: the session of the row that ended first is saved before the batch is done, and
    every session is the one the batch's results give."""
    import threading

    from mfact.core.batch import BatchRunner, JobDone
    from mfact.core.fake import DEFAULT_TEXT, FakeGenerator, fake_pipeline
    from mfact.core.protocols import BatchResult
    from mfact.core.store import Store

    first_saved = threading.Event()
    seen: dict = {}

    class RowByRow(FakeGenerator):
        batching = True     # a declared capability (GeneratorBase.batching)

        def generate_batch(self, prompts, params, stop=None, row_stop=None, on_row=None):
            out = [BatchResult(f"{DEFAULT_TEXT} Row {i}.", 30 + i, "eos") for i in range(len(prompts))]
            on_row(1, out[1])                                 # row 1 ends first
            seen["checked_meanwhile"] = first_saved.wait(10)  # ... and is checked while 0, 2 go on
            return out

    def factory():
        p = fake_pipeline(workers=1)
        p.generator = RowByRow()
        return p

    cfg = Config()
    jobs = plan_jobs([EntitySpec(n) for n in ("Marie Curie", "Albert Einstein", "Isaac Newton")], ["en"], 1, cfg)
    order: list = []

    def on_event(ev):
        if isinstance(ev, JobDone):
            order.append(ev.job.entity.name)
            if ev.job.entity.name == "Albert Einstein":
                first_saved.set()

    store = Store()
    summary = BatchRunner(store, factory, cfg, batch_size=3, on_event=on_event).run(jobs)
    assert seen["checked_meanwhile"] and order[0] == "Albert Einstein"
    assert len(summary.done) == 3 and not summary.failed
    for i, job in enumerate(jobs):
        s = store.get_session(job.session_id)
        assert s.text.endswith(f"Row {i}.") and s.tokens == 30 + i and s.stop_reason == "eos"
        assert s.config["run"]["batch_size"] == 3 and s.facts and all(f.auto for f in s.facts)
    store.close()
