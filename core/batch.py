"""Batch runs: check many people in many languages headless, resumably.

One session per (person, language, sample). A session's id is derived from the run's configuration
and the job, so re-running the same command finds the sessions it already finished in the store and
skips them; a session is written only when it is complete, so an interrupted run loses no finished
session and restarts the unfinished one.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .config import Config
from .languages import get_language
from .protocols import MfactError
from .session import Entity, Session

# --------------------------------------------------------------------------- entity lists


@dataclass(frozen=True)
class EntitySpec:
    name: str
    qid: str | None = None
    attributes: tuple[tuple[str, str], ...] = ()


def parse_entity_lines(lines: Iterable[str], origin: str = "<input>") -> list[EntitySpec]:
    """One name per line, optionally `name<TAB>QID` and further `key=value` fields
    (e.g. `rarity=rare`). Blank lines and lines starting with `#` are skipped. This also reads
    FActScore's `prompt_entities.txt` (one name per line)."""
    out: list[EntitySpec] = []
    seen: set[str] = set()
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
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
            continue
        seen.add(name)
        out.append(EntitySpec(name, qid, tuple(attrs)))
    return out


def read_entity_file(path: str | Path) -> list[EntitySpec]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MfactError(f"entity list {p} not found") from None
    except UnicodeDecodeError:
        raise MfactError(f"entity list {p} is not UTF-8 text") from None
    return parse_entity_lines(text.splitlines(), str(p))


# --------------------------------------------------------------------------- jobs


RUN_CONFIG_KEYS = ("model", "base_url", "device", "quantize", "prompt_style", "max_tokens", "temperature",
                   "top_p", "seed", "greedy", "repetition_penalty", "offline", "sources", "evidence_langs",
                   "zim_files", "factscore_db", "searxng_url", "k", "extractor", "verifier", "embedder",
                   "stop_at_drift", "drift_threshold", "drift_margin", "stop_on_repeat", "selfcheck_samples")


def run_fingerprint(cfg: Config) -> dict[str, Any]:
    """The part of the configuration that defines what a run computes (not how fast)."""
    d = cfg.to_dict()
    return {k: d[k] for k in RUN_CONFIG_KEYS}


@dataclass(frozen=True)
class Job:
    entity: EntitySpec
    lang: str
    sample: int
    session_id: str

    @property
    def label(self) -> str:
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


# --------------------------------------------------------------------------- runner


PipelineFactory = Callable[[], Any]


class BatchRunner:
    """Runs jobs through checking pipelines and saves each finished session in the store.

    `pipeline_factory()` builds one pipeline per worker. Generation from a server is issued
    concurrently up to `workers`; a local model is shared, so local runs use one worker (each
    pipeline still verifies in its own pool while it generates).
    """

    def __init__(self, store, pipeline_factory: PipelineFactory, cfg: Config, workers: int = 1,
                 on_event: Callable[[str, Job, Any], None] | None = None):
        self.store = store
        self.pipeline_factory = pipeline_factory
        self.cfg = cfg
        self.workers = max(1, workers)
        self.on_event = on_event or (lambda kind, job, data: None)
        self.stop = threading.Event()
        self._local = threading.local()
        self._store_lock = threading.Lock()

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

    def _run_job(self, job: Job) -> Session | None:
        from .events import NoticeEvent, StopEvent

        ent = Entity(name=job.entity.name, qid=job.entity.qid, attributes=dict(job.entity.attributes))
        pipeline = self._pipeline()
        final: Session | None = None
        errors: list[str] = []
        self.on_event("start", job, None)
        for ev in pipeline.run(ent, job.lang, stop=self.stop, seed=self.cfg.seed + job.sample):
            if isinstance(ev, NoticeEvent) and ev.level == "error":
                errors.append(ev.message + (f" ({ev.hint})" if ev.hint else ""))
            elif isinstance(ev, StopEvent):
                final = ev.session
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
        with self._store_lock:
            self.store.save_session(final)
        return final

    def run(self, jobs: Sequence[Job]) -> RunSummary:
        summary = RunSummary(planned=len(jobs))
        t0 = time.monotonic()
        todo: list[Job] = []
        for job in jobs:
            if self._is_done(job):
                summary.skipped.append(job.session_id)
                self.on_event("skipped", job, None)
            else:
                todo.append(job)
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="mfact-run")
        pending: dict[Future, Job] = {}
        queue = list(todo)
        try:
            while queue or pending:
                while queue and len(pending) < self.workers and not self.stop.is_set():
                    job = queue.pop(0)
                    pending[pool.submit(self._run_job, job)] = job
                if not pending:
                    break
                finished, _ = wait(list(pending), timeout=0.2, return_when=FIRST_COMPLETED)
                for fut in finished:
                    job = pending.pop(fut)
                    try:
                        session = fut.result()
                    except MfactError as exc:
                        summary.failed.append((job.label, exc.message + (f" ({exc.hint})" if exc.hint else "")))
                        self.on_event("failed", job, exc.message)
                        continue
                    except Exception as exc:  # noqa: BLE001 - one bad job must not end the run
                        summary.failed.append((job.label, f"{type(exc).__name__}: {exc}"))
                        self.on_event("failed", job, str(exc))
                        continue
                    if session is None:
                        self.on_event("interrupted", job, None)
                    else:
                        summary.done.append(session.id)
                        self.on_event("done", job, session)
        except KeyboardInterrupt:
            summary.interrupted = True
            self.stop.set()
            for fut in pending:
                fut.cancel()
            raise
        finally:
            self.stop.set() if summary.interrupted else None
            pool.shutdown(wait=True, cancel_futures=True)
            summary.seconds = time.monotonic() - t0
        return summary
