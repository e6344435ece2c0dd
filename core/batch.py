"""Batch runs: check many people in many languages headless, resumably.

One session per (person, language, sample). A session's id is derived from the run's configuration
and the job, so re-running the same command finds the sessions it already finished in the store and
skips them; a session is written only when it is complete, so an interrupted run loses no finished
session and restarts the unfinished one. The jobs, their plan and their events are in core/jobs.py.
"""
from __future__ import annotations

import logging
import queue as queue_mod
import threading
from concurrent.futures import FIRST_COMPLETED, CancelledError, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable, Union

from .config import Config
from .errors import MfactError
from .jobs import BatchEvent as BatchEvent
from .jobs import EntitySpec as EntitySpec
from .jobs import Executor
from .jobs import Job as Job
from .jobs import JobDone as JobDone
from .jobs import JobFailed as JobFailed
from .jobs import JobInterrupted as JobInterrupted
from .jobs import JobProgress as JobProgress
from .jobs import JobSkipped as JobSkipped
from .jobs import JobStarted as JobStarted
from .jobs import RunSummary as RunSummary
from .jobs import name_problem as name_problem
from .jobs import parse_entity_lines as parse_entity_lines
from .jobs import plan_jobs as plan_jobs
from .jobs import read_entity_file as read_entity_file
from .jobs import run_fingerprint as run_fingerprint
from .protocols import BatchResult, DecodingParams, GeneratorBase
from .session import Entity, Session

log = logging.getLogger("mfact.batch")

PipelineFactory = Callable[[], Any]
RunJob = Callable[..., Union[Session, None]]
# what a batch's generation gives: the rows, the exception that ended it, or None (stopped first)
Generated = Union[list[BatchResult], BaseException, None]


def _repeat_stop(leads: list[str], lang: str) -> Callable[[int, str], str | None]:
    """For `generate_batch(row_stop=...)`: end a row at its first complete sentence that repeats
    an earlier one, as a streamed run stops there (the checker then cuts the text at it)."""
    from .pipeline.text import clean_text, complete_prefix, first_repeat, sentences_of

    def check(row: int, text: str) -> str | None:
        clean = clean_text(leads[row] + text)
        sentences = sentences_of(clean[:complete_prefix(clean, lang)], lang)
        return "repetition" if first_repeat(sentences) is not None else None
    return check


@dataclass
class _Batch:
    """One batch of jobs (same language and sample) on its way: what it is generated with, the rows
    that have ended so far, and which jobs are prepared."""
    jobs: list[Job]
    prompts: list[str]
    params: DecodingParams
    seed: int
    rows: queue_mod.SimpleQueue = field(default_factory=queue_mod.SimpleQueue)
    prepared: list[threading.Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.prepared = [threading.Event() for _ in self.jobs]


@dataclass(frozen=True)
class _Pools:
    """The thread pools of a batched run: the workers' (checking), the generation's, the preparing's."""
    work: ThreadPoolExecutor
    generate: ThreadPoolExecutor
    prepare: ThreadPoolExecutor


class BatchedGeneration:
    """Batched generation for a BatchRunner: batches of jobs (same language and sample) generated in
    one model call by a generation thread, prepared beside it by another (`CheckPipeline.prepare`),
    each row checked by a worker (`run_job`) as soon as it has ended. Only a generator that declares
    the capability (`GeneratorBase.batching`) is batched."""

    def __init__(self, cfg: Config, stop: threading.Event, batch_size: int, pipeline: Callable[[], Any],
                 run_job: RunJob):
        self.cfg, self.stop, self.batch_size = cfg, stop, batch_size
        self._pipeline = pipeline
        self._run_job = run_job
        self._batch_pipeline: Any = None

    def generator(self, pool: ThreadPoolExecutor) -> GeneratorBase | None:
        """The generator to batch with, asked in a worker thread (whose pipeline checks), or None."""
        if self.batch_size < 2:
            return None
        try:
            return pool.submit(self._batching).result()
        except Exception:  # noqa: BLE001 - building the pipeline failed: the jobs will report it
            return None

    def _batching(self) -> GeneratorBase | None:
        pipeline = self._pipeline()
        gen = pipeline.generator
        if gen is None or not gen.batching:
            return None
        self._batch_pipeline = pipeline
        return gen

    def batches(self, todo: list[Job]) -> list[list[Job]]:
        groups: dict[tuple[str, int], list[Job]] = {}
        for job in todo:
            groups.setdefault((job.lang, job.sample), []).append(job)
        out: list[list[Job]] = []
        for group in groups.values():
            for i in range(0, len(group), self.batch_size):
                out.append(group[i:i + self.batch_size])
        return out

    def start(self, item: list[Job], gen: GeneratorBase, pools: _Pools, outcomes: queue_mod.SimpleQueue) -> Future:
        """Start a batch: its generation, its preparing and its checking. Returns the checking's
        future; raises when no prompt could be made."""
        batch = self._plan_batch(item, gen)
        generated = pools.generate.submit(self._generate, batch, gen)
        prepared = pools.prepare.submit(self._prepare, batch)
        return pools.work.submit(self._run_batch, batch, outcomes, generated, prepared)

    def _prepare(self, batch: _Batch) -> None:
        """Warm the checking of a batch while its texts are generated: the entities' pages and
        passage vectors (`CheckPipeline.prepare`), on the core that generation leaves free, job by
        job (`batch.prepared[i]` is set when job i is ready). A failure here is left to the check,
        which meets it again and reports it."""
        prepare = self._batch_pipeline.prepare
        try:
            for job, ready in zip(batch.jobs, batch.prepared):
                if self.stop.is_set():
                    return
                if job.text is None:
                    try:
                        prepare(Entity(name=job.entity.name, qid=job.entity.qid,
                                       attributes=dict(job.entity.attributes)), job.lang)
                    except Exception as exc:  # noqa: BLE001
                        log.debug("preparing %s failed: %s", job.label, exc)
                ready.set()
        finally:
            for ready in batch.prepared:
                ready.set()

    def _generate(self, batch: _Batch, gen: GeneratorBase) -> Generated:
        """The batch's results or the exception that ended its generation; None when the run was
        stopped before it started. Each row's result is also put in `batch.rows` as soon as the row
        ends, where the generator can say so (llama.cpp), so it is checked meanwhile."""
        if self.stop.is_set():
            return None
        row_stop = None
        if self.cfg.stop_on_repeat and batch.params.stop_on_repeat:
            row_stop = _repeat_stop([self._lead(j, p) for j, p in zip(batch.jobs, batch.prompts)],
                                    batch.jobs[0].lang)
        try:
            return gen.generate_batch(batch.prompts, batch.params, self.stop, row_stop=row_stop,
                                      on_row=lambda row, result: batch.rows.put((row, result)))
        except Exception as exc:  # noqa: BLE001 - the whole batch failed: each job reports it
            return exc

    def _plan_batch(self, jobs: list[Job], gen: GeneratorBase) -> _Batch:
        from .pipeline import decoding_params

        seed = self.cfg.seed + jobs[0].sample
        return _Batch(jobs, [gen.default_prompt(j.entity.name, j.lang) for j in jobs],
                      decoding_params(self.cfg, seed), seed)

    @staticmethod
    def _lead(job: Job, prompt: str) -> str:
        from .pipeline.text import lead_name   # as the pipeline: the text starts with the name

        return lead_name(prompt, job.entity.name)

    def _run_batch(self, batch: _Batch, outcomes: queue_mod.SimpleQueue, generated: Future,
                   prepared: Future | None = None) -> None:
        """Check the texts of a batch (same language and sample), generated in one call by
        `generated`, a future of `_generate` running in the generation thread: each row as soon as
        it has ended and its job is prepared (`prepared`: the future of `_prepare`), the others
        when the batch is done. Each (job, Session | None | exception) is put in `outcomes` as soon
        as it is known, so progress advances job by job."""
        from .pipeline.context import Generation

        checked: set[int] = set()

        def check(i: int, res: Any) -> None:
            job = batch.jobs[i]
            checked.add(i)
            # the preparation is this job's: wait for it rather than do the work twice
            while prepared is not None and not batch.prepared[i].wait(0.1) and not prepared.done():
                pass
            if self.stop.is_set() or res.stop_reason == "user":
                outcomes.put((job, None))   # interrupted: not finished, will be redone
                return
            try:
                generation = Generation(batch.seed, batch.prompts[i], batch.params, (res.tokens, res.stop_reason))
                outcomes.put((job, self._run_job(job, text=res.text, generation=generation,
                                                 _batch_size=len(batch.jobs))))
            except Exception as exc:  # noqa: BLE001
                outcomes.put((job, exc))

        while not generated.done():       # rows that ended while the others are generated
            try:
                i, res = batch.rows.get(timeout=0.05)
            except queue_mod.Empty:
                continue
            check(i, res)
        try:
            results = generated.result()
        except CancelledError:        # the run ended before this batch was generated
            results = None
        if results is None or isinstance(results, BaseException):
            for i, j in enumerate(batch.jobs):
                if i not in checked:
                    outcomes.put((j, results))      # None: interrupted, redone next time
            return
        for i, res in enumerate(results):
            if i not in checked:
                check(i, res)


@dataclass
class _Loop:
    """The state of BatchRunner's scheduling loop."""
    summary: RunSummary
    pool: ThreadPoolExecutor
    gen: GeneratorBase | None
    pools: _Pools | None
    pending: dict[Future, Any] = field(default_factory=dict)      # a future -> its job or batch of jobs
    early: queue_mod.SimpleQueue = field(default_factory=queue_mod.SimpleQueue)  # batched outcomes, as they come
    reported: set[str] = field(default_factory=set)


class BatchRunner(Executor):
    """Runs jobs through checking pipelines and saves each finished session in the store.

    `pipeline_factory()` builds one pipeline per worker. Generation from a server is issued
    concurrently up to `workers`; a local model is shared, so local runs use one worker (each
    pipeline still verifies in its own pool while it generates).

    `batch_size` > 1 batches generation when the pipeline's generator declares it can
    (`GeneratorBase.batching`; local models: llama.cpp, the embedded default included, and
    transformers): pending jobs of the same language and sample (so the same decoding parameters
    and seed) are generated `batch_size` at a time in one model call (`BatchedGeneration`), then
    each text is checked by the pipeline as if it had been streamed. Otherwise (a server,
    batch_size 1) jobs run one by one, streamed.
    """

    def __init__(self, store: Any, pipeline_factory: PipelineFactory, cfg: Config, workers: int = 1,
                 on_event: Callable[[BatchEvent], None] | None = None, batch_size: int = 1):
        super().__init__(store, pipeline_factory, cfg, workers, on_event, batch_size)
        self._local = threading.local()
        self._store_lock = threading.Lock()
        self.batched = BatchedGeneration(cfg, self.stop, self.batch_size, self._pipeline, self._run_job)

    def _pipeline(self) -> Any:
        """This worker thread's pipeline (built on first use)."""
        p = getattr(self._local, "pipeline", None)
        if p is None:
            p = self.pipeline_factory()
            self._local.pipeline = p
        return p

    def _checked(self, job: Job, pipeline: Any, **run_kw: Any) -> tuple[Session | None, list[str]]:
        """(the final session, the error lines) of one pipeline run; progress as facts are checked."""
        from .events import FactEvent, NoticeEvent, StopEvent, VerdictEvent

        ent = Entity(name=job.entity.name, qid=job.entity.qid, attributes=dict(job.entity.attributes))
        final: Session | None = None
        errors: list[str] = []
        facts = checked = 0
        for ev in pipeline.run(ent, job.lang, stop=self.stop, **run_kw):
            if isinstance(ev, NoticeEvent) and ev.level == "error":
                errors.append(ev.line())
            elif isinstance(ev, FactEvent):
                facts += 1
            elif isinstance(ev, VerdictEvent):
                checked += 1
                self.on_event(JobProgress(job, f"{checked} of {facts} facts checked"))
            elif isinstance(ev, StopEvent):
                final = ev.session
        return final, errors

    def _run_job(self, job: Job, **run_kw: Any) -> Session | None:
        from .pipeline.context import Generation

        pipeline = self._pipeline()
        batch_size = run_kw.pop("_batch_size", None)
        self.on_event(JobStarted(job))
        run_kw.setdefault("generation", Generation(seed=self.cfg.seed + job.sample))
        spec = job.text
        if spec is not None:
            run_kw["text"] = spec.text
            if spec.question:
                run_kw["question"] = spec.question
        given = spec is not None and spec.evidence is not None
        if given:
            from .knowledge.given import GivenRetriever, size_words    # the line's passages are its only evidence
            big = size_words(spec.evidence)
            if big:
                self.on_event(JobProgress(job, f"indexing {big}", start=True))
            retriever = pipeline.retriever
            pipeline.retriever = GivenRetriever(spec.evidence, pipeline.embedder)
        try:
            final, errors = self._checked(job, pipeline, **run_kw)
        finally:
            if given:
                pipeline.retriever = retriever
        if final is None:
            raise MfactError("the pipeline ended without a session")
        if final.stop_reason == "error":
            raise MfactError(errors[0] if errors else "checking failed")
        if self.stop.is_set() and final.stop_reason == "user":
            return None  # interrupted: not finished, will be redone
        final.id = job.session_id
        final.status = "interrupted" if final.stop_reason == "connection_lost" else "done"
        final.config.setdefault("run", {})
        final.config["run"].update({"sample": job.sample, "fingerprint": run_fingerprint(self.cfg)})
        if spec is not None:
            final.name = spec.id
            final.config["run"]["line"] = spec.line
            if spec.evidence is not None:
                final.config["evidence"] = {"given": len(spec.evidence)}
        if batch_size is not None:
            final.config["run"]["batch_size"] = batch_size
        with self._store_lock:
            self.store.save_session(final)
        return final

    # ------------------------------------------------------------------ the scheduling loop

    def _record(self, summary: RunSummary, job: Job, outcome: Any) -> None:
        if isinstance(outcome, MfactError):
            summary.failed.append((job.label, outcome.line()))
            self.on_event(JobFailed(job, outcome.message))
        elif isinstance(outcome, BaseException):   # one bad job must not end the run
            summary.failed.append((job.label, f"{type(outcome).__name__}: {outcome}"))
            self.on_event(JobFailed(job, str(outcome)))
        elif outcome is None:
            self.on_event(JobInterrupted(job))
        else:
            summary.done.append(outcome.id)
            self.on_event(JobDone(job, outcome))

    def _execute(self, todo: list[Job], summary: RunSummary) -> None:
        from .pipeline.workers import lower_priority

        # batched, these threads check while the generation thread generates: they yield it the CPU
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="mfact-run",
                                  initializer=lower_priority if self.batch_size > 1 else None)
        gen = self.batched.generator(pool)
        pools = None
        if gen is not None:
            # one thread generates the next batch while the worker checks the last one, and another
            # prepares the checking of each batch while it is generated
            pools = _Pools(pool, ThreadPoolExecutor(max_workers=1, thread_name_prefix="mfact-generate-batch"),
                           ThreadPoolExecutor(max_workers=1, thread_name_prefix="mfact-prepare",
                                              initializer=lower_priority))
        loop = _Loop(summary, pool, gen, pools)
        try:
            self._schedule(todo, loop)
        except KeyboardInterrupt:
            self.stop.set()
            for fut in loop.pending:
                fut.cancel()
            raise
        finally:
            if pools is not None:
                pools.generate.shutdown(wait=True, cancel_futures=True)
                pools.prepare.shutdown(wait=True, cancel_futures=True)
            pool.shutdown(wait=True, cancel_futures=True)

    def _schedule(self, todo: list[Job], loop: _Loop) -> None:
        batched = loop.pools is not None
        ahead = 1 if batched else 0
        queue: list[Any] = self.batched.batches(todo) if batched else list(todo)
        while queue or loop.pending:
            while queue and len(loop.pending) < self.workers + ahead and not self.stop.is_set():
                self._submit(queue.pop(0), loop)
            if not loop.pending:
                break
            finished, _ = wait(list(loop.pending), timeout=0.2, return_when=FIRST_COMPLETED)
            self._drain(loop)
            for fut in finished:
                for job, outcome in self._outcomes(fut, loop.pending.pop(fut), loop):
                    self._record(loop.summary, job, outcome)

    def _submit(self, item: Any, loop: _Loop) -> None:
        if loop.pools is None or loop.gen is None:
            loop.pending[loop.pool.submit(self._run_job, item)] = item
            return
        try:
            loop.pending[self.batched.start(item, loop.gen, loop.pools, loop.early)] = item
        except Exception as exc:  # noqa: BLE001 - no prompt: each job reports it
            for job in item:
                self._record(loop.summary, job, exc)

    def _drain(self, loop: _Loop) -> None:
        """Record the batched jobs' outcomes that came in meanwhile."""
        while True:
            try:
                job, outcome = loop.early.get_nowait()
            except queue_mod.Empty:
                return
            loop.reported.add(job.session_id)
            self._record(loop.summary, job, outcome)

    def _outcomes(self, fut: Future, item: Any, loop: _Loop) -> list[tuple[Job, Any]]:
        """The outcomes of a finished future not recorded yet: a job's session or exception, or
        (batched) the exception that ended a batch, for its jobs not reported meanwhile."""
        if loop.pools is None:
            try:
                return [(item, fut.result())]
            except Exception as exc:  # noqa: BLE001
                return [(item, exc)]
        try:
            fut.result()
            outcomes = []
        except Exception as exc:  # noqa: BLE001
            outcomes = [(j, exc) for j in item]
        self._drain(loop)
        return [(j, o) for j, o in outcomes if j.session_id not in loop.reported]
