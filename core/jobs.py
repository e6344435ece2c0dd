"""The jobs of a batch run and how they are reported: entity lists, the plan (one job per person,
language and sample, its session id derived from the run's configuration), the typed events, and
`Executor`, the base of every executor (in-process threads, core/batch.py; Ray actors,
core/executors/ray_executor.py): finished jobs skipped, progress reported, one summary.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Sequence, Union

from .config import Config
from .languages import get_language
from .errors import MfactError
from .session import Session


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


# --------------------------------------------------------------------------- executors


class Executor:
    """Where the jobs of a run are computed. Every executor has the same contract: the driver (this
    process) alone writes the store; a job whose session is already finished there is skipped
    (JobSkipped); progress goes to `on_event` as typed events; one failing job does not end the
    run. A subclass computes the jobs left in `_execute`."""

    name = ""

    def __init__(self, store: Any, pipeline_factory: Callable[[], Any], cfg: Config, workers: int = 1,
                 on_event: Callable[[BatchEvent], None] | None = None, batch_size: int = 1):
        self.store = store
        self.pipeline_factory = pipeline_factory
        self.cfg = cfg
        self.workers = max(1, int(workers))
        self.on_event = on_event or (lambda ev: None)
        self.batch_size = max(1, int(batch_size))
        self.stop = threading.Event()

    def _is_done(self, job: Job) -> bool:
        try:
            s = self.store.get_session(job.session_id)
        except (MfactError, KeyError):
            return False
        return bool(s.status == "done")

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
        try:
            if todo:
                self._execute(todo, summary)
        except KeyboardInterrupt:
            summary.interrupted = True
            self.stop.set()
            raise
        finally:
            summary.seconds = time.monotonic() - t0
        return summary

    def _execute(self, todo: list[Job], summary: RunSummary) -> None:
        raise NotImplementedError
