"""Batch runs: check many people in many languages headless, resumably.

One session per (person, language, sample). A session's id is derived from the run's configuration
and the job, so re-running the same command finds the sessions it already finished in the store and
skips them; a session is written only when it is complete, so an interrupted run loses no finished
session and restarts the unfinished one.
"""
from __future__ import annotations

import hashlib
import json
import logging
import queue as queue_mod
import threading
import time
from concurrent.futures import FIRST_COMPLETED, CancelledError, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Sequence, Union

from .config import Config
from .languages import get_language
from .errors import MfactError
from .session import Entity, Session

log = logging.getLogger("mfact.batch")

# --------------------------------------------------------------------------- entity lists


@dataclass(frozen=True)
class EntitySpec:
    name: str
    qid: str | None = None
    attributes: tuple[tuple[str, str], ...] = ()


MAX_ENTITY_LINE = 500
# control characters (C0 but tab, DEL, C1), bidi controls and line separators: never part of a name
from .inputs import CONTROL as _CONTROL  # noqa: E402 - the one list, in the one validator


def _control_in(text: str) -> str | None:
    bad = _CONTROL.search(text)
    if bad is None:
        return None
    return "a NUL byte" if bad.group() == "\0" else f"a control character (U+{ord(bad.group()):04X})"


def name_problem(name: str) -> str | None:
    """Why `name` (one person's name, as typed) cannot be checked, in a few words; None when it can.
    The limits of entity lists: at most MAX_ENTITY_LINE characters, no control characters."""
    if len(name) > MAX_ENTITY_LINE:
        return f"a name of {len(name):,} characters is too long (at most {MAX_ENTITY_LINE})"
    bad = _control_in(name)
    return f"the name holds {bad}" if bad else None


def parse_entity_lines(lines: Iterable[str], origin: str = "<input>", duplicates: bool = True) -> list[EntitySpec]:
    """One name per line, optionally `name<TAB>QID` and further `key=value` fields
    (e.g. `rarity=rare`). Blank lines and lines starting with `#` are skipped. This also reads
    FActScore's `prompt_entities.txt` (one name per line). With `duplicates` False a name given
    twice is refused (naming both lines) rather than dropped."""
    out: list[EntitySpec] = []
    seen: dict[str, int] = {}
    for lineno, raw in enumerate(lines, 1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if len(line) > MAX_ENTITY_LINE:
            raise MfactError(f"{origin}:{lineno}: a line of {len(line):,} characters is too long for a name"
                             f" (at most {MAX_ENTITY_LINE})", "one name per line, optionally a tab and a QID")
        bad = _control_in(line)
        if bad:
            raise MfactError(f"{origin}:{lineno}: the name holds {bad}; line refused",
                             "an entity list is plain text, one name per line")
        parts = [p.strip() for p in line.split("\t")]
        name = parts[0]
        if not name:
            raise MfactError(f"{origin}:{lineno}: empty entity name", "one name per line, optionally a tab and a QID")
        qid = None
        attrs: list[tuple[str, str]] = []
        for extra in parts[1:]:
            if not extra:
                continue
            if "=" in extra:
                k, v = extra.split("=", 1)
                attrs.append((k.strip(), v.strip()))
            elif extra[:1] in ("Q", "q") and extra[1:].isdigit():
                qid = extra.upper()
            else:
                raise MfactError(f"{origin}:{lineno}: cannot read {extra!r}",
                                 "expected a Wikidata QID such as Q7186 or key=value")
        if name in seen:
            if not duplicates:
                raise MfactError(f"{origin}:{lineno}: {name!r} is already on line {seen[name]}",
                                 "give each name once (--samples checks a name several times)")
            continue
        seen[name] = lineno
        out.append(EntitySpec(name, qid, tuple(attrs)))
    return out


def read_entity_file(path: str | Path) -> list[EntitySpec]:
    """An entity list: a regular file (or `-`) of plain UTF-8 text, through core/inputs.py."""
    from .inputs import MAX_LIST_BYTES, not_empty, read_text

    text, name = read_text(str(path), "entity list (one name per line)", MAX_LIST_BYTES)
    not_empty(text, name, "names")
    head = text.lstrip()[:1]
    if head in ("{", "[") or str(path).lower().endswith((".json", ".jsonl")):
        try:
            json.loads(text if head else "x")
            is_json = True
        except (ValueError, RecursionError):
            is_json = head == "{" or str(path).lower().endswith((".json", ".jsonl"))
        if is_json:
            raise MfactError(f"entity list {name} is JSON, not a list of names",
                             "give a text file with one name per line (optionally a tab and a QID)")
    # lines end at \n only (a \r before it is dropped): U+2028, \x1c, \r alone and the like are
    # characters of a name, refused there by line number, not silent line breaks
    specs = parse_entity_lines(text.split("\n"), name, duplicates=False)
    if not specs:
        raise MfactError(f"{name}: no names (only blank lines and comments)",
                         "one name per line, optionally a tab and a QID")
    return specs


# --------------------------------------------------------------------------- jobs


RUN_CONFIG_KEYS = ("model", "base_url", "device", "quantize", "prompt_style", "max_tokens", "temperature",
                   "top_p", "seed", "greedy", "repetition_penalty", "offline", "sources", "evidence_langs",
                   "zim_files", "factscore_db", "searxng_url", "k", "extractor", "verifier", "embedder",
                   "stop_at_drift", "drift_threshold", "drift_margin", "stop_on_repeat", "selfcheck_samples")


def run_fingerprint(cfg: Config) -> dict[str, Any]:
    """The part of the configuration that defines what a run computes (not how fast)."""
    d = cfg.to_dict()
    out = {k: d[k] for k in RUN_CONFIG_KEYS}
    if "," in (out["base_url"] or ""):       # several servers of one model: their order does not matter
        out["base_url"] = ",".join(sorted(dict.fromkeys(u.strip() for u in out["base_url"].split(",") if u.strip())))
    return out


@dataclass(frozen=True)
class Job:
    entity: EntitySpec
    lang: str
    sample: int
    session_id: str
    text: Any = None          # a core.texts.TextSpec: check this text (no generation)

    @property
    def label(self) -> str:
        if self.text is not None:
            return f"line {self.text.line} ({self.text.id}) [{self.lang}]"
        return f"{self.entity.name} [{self.lang}] #{self.sample}"


def plan_jobs(entities: Sequence[EntitySpec], langs: Sequence[str], samples: int, cfg: Config) -> list[Job]:
    if samples < 1:
        raise MfactError("--samples must be at least 1")
    if not entities:
        raise MfactError("no entities to check", "give --entities FILE or --entity NAME")
    fp = json.dumps(run_fingerprint(cfg), sort_keys=True)
    jobs: list[Job] = []
    for lang in langs:
        code = get_language(lang).code
        for ent in entities:
            for i in range(samples):
                key = json.dumps([fp, ent.name, ent.qid, code, i], ensure_ascii=False)
                sid = "run-" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]
                jobs.append(Job(ent, code, i, sid))
    return jobs


@dataclass
class RunSummary:
    planned: int = 0
    done: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)   # (job label, reason)
    interrupted: bool = False
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"planned": self.planned, "done": len(self.done), "skipped": len(self.skipped),
                "failed": [{"job": j, "reason": r} for j, r in self.failed],
                "interrupted": self.interrupted, "seconds": round(self.seconds, 2),
                "sessions": self.done}


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class JobStarted:
    job: Job
    kind: ClassVar[str] = "start"


@dataclass(frozen=True)
class JobSkipped:          # finished by an earlier run: its session is in the store
    job: Job
    kind: ClassVar[str] = "skipped"


@dataclass(frozen=True)
class JobDone:
    job: Job
    session: Session
    kind: ClassVar[str] = "done"


@dataclass(frozen=True)
class JobFailed:
    job: Job
    reason: str
    kind: ClassVar[str] = "failed"


@dataclass(frozen=True)
class JobInterrupted:      # not finished: the next run redoes it
    job: Job
    kind: ClassVar[str] = "interrupted"


@dataclass(frozen=True)
class JobProgress:         # a running job: facts checked so far, or its given evidence being indexed
    job: Job
    message: str
    start: bool = False    # the start of a long step (always worth a line)
    kind: ClassVar[str] = "progress"


BatchEvent = Union[JobStarted, JobSkipped, JobDone, JobFailed, JobInterrupted, JobProgress]


# --------------------------------------------------------------------------- runner


def _repeat_stop(leads: list[str], lang: str) -> Callable[[int, str], str | None]:
    """For `generate_batch(row_stop=...)`: end a row at its first complete sentence that repeats
    an earlier one, as a streamed run stops there (the checker then cuts the text at it)."""
    from .pipeline.text import clean_text, complete_prefix, first_repeat, sentences_of

    def check(row: int, text: str) -> str | None:
        clean = clean_text(leads[row] + text)
        sentences = sentences_of(clean[:complete_prefix(clean, lang)], lang)
        return "repetition" if first_repeat(sentences) is not None else None
    return check



PipelineFactory = Callable[[], Any]


@dataclass
class _Batch:
    """One batch of jobs (same language and sample) on its way: what it is generated with, the rows
    that have ended so far, and which jobs are prepared."""
    jobs: list[Job]
    prompts: list[str]
    params: Any
    seed: int
    rows: queue_mod.SimpleQueue = field(default_factory=queue_mod.SimpleQueue)
    prepared: list[threading.Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.prepared = [threading.Event() for _ in self.jobs]


def _takes(fn: Callable[..., Any], name: str) -> bool:
    """Whether `fn` has a parameter `name` (named: a bare **kwargs does not count)."""
    import inspect

    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


class _BatchedGeneration:
    """BatchRunner's batched generation: batches of jobs (same language and sample) generated in one
    model call by a generation thread, prepared beside it by another (`CheckPipeline.prepare`), each
    row checked by a worker as soon as it has ended. Uses the runner's cfg, stop, _pipeline and
    _run_job."""

    cfg: Config
    stop: threading.Event
    batch_size: int
    _batch_pipeline: Any
    _pipeline: Callable[[], Any]
    _run_job: Callable[..., Session | None]

    def _batching(self) -> Any:
        """The generator to batch with (this worker's pipeline's), or None."""
        if self.batch_size < 2:
            return None
        from .protocols import BatchGenerator

        pipeline = self._pipeline()
        gen = pipeline.generator
        if not isinstance(gen, BatchGenerator):
            return None
        self._batch_pipeline = pipeline
        return gen

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

    def _generate(self, batch: _Batch, gen: Any) -> Any:
        """The batch's results or the exception that ended its generation; None when the run was
        stopped before it started. Each row's result is also put in `batch.rows` as soon as the row
        ends, where the generator can say so (`on_row`: llama.cpp), so it is checked meanwhile."""
        if self.stop.is_set():
            return None
        kw: dict[str, Any] = {}
        if self.cfg.stop_on_repeat and getattr(batch.params, "stop_on_repeat", True):
            kw["row_stop"] = _repeat_stop([self._lead(j, p) for j, p in zip(batch.jobs, batch.prompts)],
                                          batch.jobs[0].lang)
        if _takes(gen.generate_batch, "on_row"):
            kw["on_row"] = lambda row, result: batch.rows.put((row, result))
        try:
            return gen.generate_batch(batch.prompts, batch.params, self.stop, **kw)
        except Exception as exc:  # noqa: BLE001 - the whole batch failed: each job reports it
            return exc

    def _plan_batch(self, jobs: list[Job], gen: Any) -> _Batch:
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
                outcomes.put((job, self._run_job(job, text=res.text, seed=batch.seed, prompt=batch.prompts[i],
                                                 params=batch.params, generated=(res.tokens, res.stop_reason),
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

    def _batching_in(self, pool: ThreadPoolExecutor) -> Any:
        """The generator to batch with, asked in a worker thread (whose pipeline checks), or None."""
        if self.batch_size < 2:
            return None
        try:
            return pool.submit(self._batching).result()
        except Exception:  # noqa: BLE001 - building the pipeline failed: the jobs will report it
            return None

    def _batches(self, todo: list[Job]) -> list[list[Job]]:
        groups: dict[tuple[str, int], list[Job]] = {}
        for job in todo:
            groups.setdefault((job.lang, job.sample), []).append(job)
        out: list[list[Job]] = []
        for group in groups.values():
            for i in range(0, len(group), self.batch_size):
                out.append(group[i:i + self.batch_size])
        return out

    def _start_batch(self, item: list[Job], gen: Any, pools: tuple[ThreadPoolExecutor, ...],
                     outcomes: queue_mod.SimpleQueue) -> Future:
        """Start a batch: its generation, its preparing and its checking (`pools`: the workers',
        the generation's and the preparing's). Returns the checking's future; raises when no
        prompt could be made."""
        pool, gen_pool, prep_pool = pools
        batch = self._plan_batch(item, gen)
        generated = gen_pool.submit(self._generate, batch, gen)
        prepared = prep_pool.submit(self._prepare, batch)
        return pool.submit(self._run_batch, batch, outcomes, generated, prepared)


class BatchRunner(_BatchedGeneration):
    """Runs jobs through checking pipelines and saves each finished session in the store.

    `pipeline_factory()` builds one pipeline per worker. Generation from a server is issued
    concurrently up to `workers`; a local model is shared, so local runs use one worker (each
    pipeline still verifies in its own pool while it generates).

    `batch_size` > 1 batches generation when the pipeline's generator has `generate_batch` (local
    models: llama.cpp, the embedded default included, and transformers): pending jobs of the same language and
    sample (so the same decoding parameters and seed) are generated `batch_size` at a time in one
    model call, then each text is checked by the pipeline as if it had been streamed. Otherwise
    (a server, batch_size 1) jobs run one by one, streamed.
    """

    def __init__(self, store, pipeline_factory: PipelineFactory, cfg: Config, workers: int = 1,
                 on_event: Callable[[BatchEvent], None] | None = None, batch_size: int = 1):
        self.store = store
        self.pipeline_factory = pipeline_factory
        self.cfg = cfg
        self.workers = max(1, workers)
        self.batch_size = max(1, int(batch_size))
        self.on_event = on_event or (lambda ev: None)
        self.stop = threading.Event()
        self._local = threading.local()
        self._store_lock = threading.Lock()
        self._batch_pipeline: Any = None

    def _is_done(self, job: Job) -> bool:
        try:
            s = self.store.get_session(job.session_id)
        except (MfactError, KeyError):
            return False
        return s.status == "done"

    def _pipeline(self):
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
        pipeline = self._pipeline()
        batch_size = run_kw.pop("_batch_size", None)
        self.on_event(JobStarted(job))
        run_kw.setdefault("seed", self.cfg.seed + job.sample)
        spec = job.text
        if spec is not None:
            run_kw["text"] = spec.text
        given = spec is not None and spec.evidence is not None
        if given:
            from .knowledge.given import GivenRetriever, size_words    # the line's passages are its only evidence
            big = size_words(spec.evidence)
            if big:
                self.on_event(JobProgress(job, f"indexing {big}", start=True))
            retriever = pipeline.retriever
            pipeline.retriever = GivenRetriever(spec.evidence, getattr(pipeline, "embedder", None))
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
        final.status = "done"
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

    # ------------------------------------------------------------------ batched generation

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

    def run(self, jobs: Sequence[Job]) -> RunSummary:
        summary = RunSummary(planned=len(jobs))
        t0 = time.monotonic()
        todo: list[Job] = []
        for job in jobs:
            if self._is_done(job):
                summary.skipped.append(job.session_id)
                self.on_event(JobSkipped(job))
            else:
                todo.append(job)
        from .pipeline.workers import lower_priority

        # batched, these threads check while the generation thread generates: they yield it the CPU
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="mfact-run",
                                  initializer=lower_priority if self.batch_size > 1 else None)
        pending: dict[Future, Job | list[Job]] = {}
        batch_gen = self._batching_in(pool) if todo else None
        batched = batch_gen is not None
        # batched: one thread generates the next batch while the worker checks the last one
        gen_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mfact-generate-batch") if batched else None
        # ... and another prepares the checking of each batch while it is generated
        prep_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mfact-prepare",
                                       initializer=lower_priority) if batched else None
        ahead = 1 if batched else 0
        queue: list[Any] = self._batches(todo) if batched else list(todo)
        early: queue_mod.SimpleQueue = queue_mod.SimpleQueue()   # batched jobs' outcomes, as they come
        reported: set[str] = set()

        def drain() -> None:
            while True:
                try:
                    job, outcome = early.get_nowait()
                except queue_mod.Empty:
                    return
                reported.add(job.session_id)
                self._record(summary, job, outcome)
        try:
            while queue or pending:
                while queue and len(pending) < self.workers + ahead and not self.stop.is_set():
                    item = queue.pop(0)
                    if gen_pool is not None and prep_pool is not None:
                        try:
                            pending[self._start_batch(item, batch_gen, (pool, gen_pool, prep_pool), early)] = item
                        except Exception as exc:  # noqa: BLE001 - no prompt: each job reports it
                            for job in item:
                                self._record(summary, job, exc)
                    else:
                        pending[pool.submit(self._run_job, item)] = item
                if not pending:
                    break
                finished, _ = wait(list(pending), timeout=0.2, return_when=FIRST_COMPLETED)
                drain()
                for fut in finished:
                    item = pending.pop(fut)
                    if batched:
                        try:
                            fut.result()
                            outcomes = []
                        except Exception as exc:  # noqa: BLE001
                            outcomes = [(j, exc) for j in item]
                        drain()
                        outcomes = [(j, o) for j, o in outcomes if j.session_id not in reported]
                    else:
                        try:
                            outcomes = [(item, fut.result())]
                        except Exception as exc:  # noqa: BLE001
                            outcomes = [(item, exc)]
                    for job, outcome in outcomes:
                        self._record(summary, job, outcome)
        except KeyboardInterrupt:
            summary.interrupted = True
            self.stop.set()
            for fut in pending:
                fut.cancel()
            raise
        finally:
            if gen_pool is not None:
                gen_pool.shutdown(wait=True, cancel_futures=True)
            if prep_pool is not None:
                prep_pool.shutdown(wait=True, cancel_futures=True)
            pool.shutdown(wait=True, cancel_futures=True)
            summary.seconds = time.monotonic() - t0
        return summary
