"""`mfact run`: check many people in many languages headless, resumably; or, with `--texts
FILE.jsonl`, many texts the user already has (one `{"id", "lang", "entity"?, "question"?, "text",
"evidence"?}` per line, one session each, named by the line's id; bad lines are reported with their
numbers and the good ones still run). A language without word tables of its own is said once."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from ._common import plain

if TYPE_CHECKING:  # pragma: no cover
    from ..config import Config


DEFAULT_BATCH_SIZE = 8
PROGRESS_EVERY_S = 5.0     # without the bar: a running job's progress line at most this often


def register(sub) -> None:
    from ..options import add_checking_options, add_knowledge_options, add_model_options

    p = sub.add_parser(
        "run", help="check many people in many languages, or many given texts (resumable batch run)",
        description="One session per (person, language, sample) in the store, or with --texts one per "
                    "line of a JSONL file of texts. Re-running the same command skips finished sessions; "
                    "an interrupted run loses no finished session.")
    p.add_argument("--lang", help="comma-separated language codes, e.g. es,ar,bn (not with --texts)")
    p.add_argument("--texts", metavar="FILE.jsonl",
                   help='check these texts: one {"id", "lang", "entity"?, "question"?, "text", "evidence"?} '
                        "object per line (evidence: a list of strings or {\"text\", \"title\"?, \"url\"?} "
                        "passages, then the only evidence; question: what the text answers); the entity may "
                        "be any topic, and is read from the question or the evidence when left out")
    p.add_argument("--entities", action="append", default=[],
                   help="entity list: one name per line, optional tab and QID (repeatable); "
                        "FActScore's prompt_entities.txt works as is")
    p.add_argument("--entity", action="append", default=[], help="one person (repeatable)")
    p.add_argument("--samples", type=int, default=1, help="samples per person and language (seed + i)")
    p.add_argument("--out", help="also write each finished session as JSON into this folder, and summary.json")
    p.add_argument("--json", action="store_true", help="print the run summary as JSON at the end")
    p.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE, metavar="B",
                   help=f"local models (llama.cpp and transformers, the embedded default included): generate B "
                        f"biographies per model call (default {DEFAULT_BATCH_SIZE}; 1 streams them one by "
                        f"one); ignored with --base-url, which issues --workers requests concurrently")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (one line per session instead)")
    g = p.add_argument_group("executor")
    g.add_argument("--executor", choices=["local", "ray"], default=None,
                   help="local: threads in this process (default); ray: Ray actors that load the models "
                        "once each, --workers of them (pip install 'mfact[ray]'; docs/scale.md)")
    g.add_argument("--ray-address", metavar="ADDR",
                   help="join a Ray cluster: 'auto' (started on this node with `ray start --head`) or "
                        "ray://HOST:10001; implies --executor ray (default: start a local Ray)")
    g.add_argument("--worker-gpus", type=float, default=0.0, metavar="N",
                   help="with --executor ray: GPUs each worker reserves (e.g. 1 for a local model on GPU)")
    add_model_options(p)
    add_knowledge_options(p)
    add_checking_options(p)
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..options import config_from_args
    from ..store import Store

    cfg = config_from_args(args)
    jobs, bad_lines = _plan(args, cfg)
    executor_name, workers, batch_size = _execution(args, cfg)
    out_dir = Path(args.out) if args.out else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)

    store = Store()
    if args.texts:
        from ..embedders import embed_alone
        embed_alone()               # given texts: no generator beside the checks, every core embeds

    import functools

    # picklable: Ray actors call it too; given texts need no model
    factory = functools.partial(_build_pipeline, cfg, not args.texts)

    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    on_event = _RunProgress(console, not args.no_progress and console.is_terminal, len(jobs), out_dir)
    progress = on_event.progress

    from ..executors import ExecutorOptions, make_executor

    ray = ({"worker_gpus": args.worker_gpus, "verbose": bool(getattr(args, "verbose", False))}
           if executor_name == "ray" else {})
    options = ExecutorOptions(workers=workers, batch_size=batch_size, address=args.ray_address, **ray)
    runner = make_executor(executor_name, store, factory, cfg, on_event=on_event, options=options)
    interrupted = False
    with progress:
        try:
            summary = runner.run(jobs)
        except KeyboardInterrupt:
            interrupted = True
            summary = None
    store.close()
    if interrupted or summary is None:
        print("mfact run: interrupted; finished sessions are saved, run the same command again to "
              "finish the rest", file=sys.stderr)
        return 130
    _print_summary(summary, console)
    _write_result(args, summary, bad_lines, out_dir, console)
    return 1 if summary.failed and not summary.done and not summary.skipped else 0


def _execution(args: argparse.Namespace, cfg: Config) -> tuple[str, int, int]:
    """(the executor, its workers, the batch size) the flags ask for, checked."""
    from ..errors import MfactError

    executor_name = args.executor or ("ray" if args.ray_address else "local")
    if args.ray_address and executor_name != "ray":
        raise MfactError("--ray-address needs --executor ray")
    if args.worker_gpus < 0:
        raise MfactError(f"--worker-gpus must be at least 0, got {args.worker_gpus:g}")
    if executor_name == "ray" and cfg.workers < 1:
        raise MfactError(f"--workers must be at least 1, got {cfg.workers}")
    # local: server requests run --workers at a time, a local model is shared by one worker;
    # ray: --workers actors, each with its own copy of the models
    workers = max(1, cfg.workers) if (cfg.base_url or executor_name == "ray") else 1
    if args.batch_size < 1:
        raise MfactError(f"--batch-size must be at least 1, got {args.batch_size}")
    return executor_name, workers, 1 if cfg.base_url else args.batch_size


def _write_result(args: argparse.Namespace, summary: Any, bad_lines: list[tuple[int, str]], out_dir: Any,
                  console: Any) -> None:
    """The run's summary as JSON: in --out's summary.json, and on stdout with --json."""
    from ..formats import atomic_write

    result = summary.to_dict()
    if args.texts:
        result["bad_lines"] = [{"line": n, "reason": r} for n, r in bad_lines]
        if bad_lines:
            console.print(f"bad lines (not checked): {', '.join(str(n) for n, _ in bad_lines)}",
                          markup=False, highlight=False)
    if out_dir is not None:
        atomic_write(out_dir / "summary.json", json.dumps(result, ensure_ascii=False, indent=2))
    if args.json:
        from ..textsafe import json_dumps_safe

        print(json_dumps_safe(result, indent=2))


def _plan(args: argparse.Namespace, cfg) -> tuple[list, list[tuple[int, str]]]:
    """The jobs: one per line of --texts, or per person, language and sample; and the bad lines
    of --texts (reported, skipped)."""
    from ..batch import plan_jobs
    from ..languages import parse_language_list
    from ..errors import MfactError

    bad_lines: list[tuple[int, str]] = []
    if args.texts:
        from ..texts import plan_text_jobs, read_text_lines

        if args.lang or args.entities or args.entity or args.samples != 1:
            raise MfactError("--texts takes the language and entity from each line",
                             "drop --lang, --entities, --entity and --samples")
        specs, bad_lines = read_text_lines(args.texts)
        if not specs and len(bad_lines) == 1:       # one line says it all
            lineno, reason = bad_lines[0]
            raise MfactError(f"{args.texts}:{lineno}: {reason}", "no line of the file can be checked")
        for lineno, reason in bad_lines:
            print(plain(f"mfact run: {args.texts}:{lineno}: skipped: {reason}"), file=sys.stderr, flush=True)
        if not specs:
            raise MfactError(f"no line of {args.texts} can be checked"
                             + (f" ({len(bad_lines)} bad)" if bad_lines else " (it is empty)"),
                             'one {"id", "lang", "entity", "text"} object per line')
        _say_generic(spec.lang for spec in specs)
        return plan_text_jobs(specs, cfg), bad_lines
    if not args.lang:
        raise MfactError("--lang is required", "e.g. --lang en,es (or --texts FILE.jsonl)")
    langs = [lang.code for lang in parse_language_list(args.lang)]
    _say_generic(langs)
    return plan_jobs(_entities(args), langs, args.samples, cfg), bad_lines


def _say_generic(langs) -> None:
    """One line for each language of the run that has no word tables of its own."""
    from ..languages import generic_notice

    for code in dict.fromkeys(langs):
        if generic_notice(code):
            print(f"mfact run: {generic_notice(code)}", file=sys.stderr, flush=True)


def _entities(args: argparse.Namespace) -> list:
    """The people of --entities files and --entity options, each once, in order."""
    from ..batch import parse_entity_lines, read_entity_file
    from ..errors import MfactError

    entities = []
    if any(not e.strip() for e in args.entity):
        raise MfactError("--entity is empty", "name the person, e.g. --entity 'Marie Curie'")
    for f in args.entities:
        entities.extend(read_entity_file(f))
    entities.extend(parse_entity_lines(args.entity, "--entity"))
    seen: set[str] = set()
    unique = []
    for e in entities:
        if e.name not in seen:
            seen.add(e.name)
            unique.append(e)
    return unique


def _build_pipeline(cfg, need_generator: bool = True):
    from ..pipeline import build_pipeline
    return build_pipeline(cfg, need_generator=need_generator)


class _RunProgress:
    """Shows the batch's typed events: a progress bar on a terminal, else one line per job; writes
    each finished session to `out_dir` when given."""

    def __init__(self, console, show_bar: bool, total: int, out_dir):
        import time

        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self.show_bar = show_bar
        self.out_dir = out_dir
        self.progress = Progress(TextColumn("[bold]mfact run"), BarColumn(), MofNCompleteColumn(),
                                 TaskProgressColumn(), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                                 TextColumn("ETA"), TimeRemainingColumn(),
                                 TextColumn("{task.fields[current]}", markup=False),
                                 console=console, disable=not show_bar, transient=False)
        self.task = self.progress.add_task("run", total=total, rate="", current="")
        self.counts = {"done": 0, "skipped": 0, "failed": 0}
        self.t0 = time.monotonic()
        self.started: dict[str, float] = {}      # job -> when it started
        self.said: dict[str, float] = {}         # job -> when its last progress line was printed

    def _progress(self, ev) -> None:
        """A running job's progress: in the bar, else a line when a long step starts and then at
        most every PROGRESS_EVERY_S (the first after that long), so short jobs print none."""
        import time

        now = time.monotonic()
        sid = ev.job.session_id
        started = self.started.setdefault(sid, now)
        if self.show_bar:
            self.progress.update(self.task, current=plain(f"{ev.job.label}: {ev.message}"))
        elif ev.start or now - self.said.get(sid, started) >= PROGRESS_EVERY_S:
            self.said[sid] = now
            print(plain(f"progress: {ev.job.label}: {ev.message} ({now - started:.0f} s)"), file=sys.stderr,
                  flush=True)

    def __call__(self, ev) -> None:
        import time

        from ..batch import JobDone, JobFailed, JobInterrupted, JobProgress, JobStarted
        from ..formats import atomic_write

        kind = ev.kind
        match ev:
            case JobStarted(job):
                self.started[job.session_id] = time.monotonic()
                self.progress.update(self.task, current=plain(job.label))
                return
            case JobProgress():
                self._progress(ev)
                return
            case JobDone(session=session) if self.out_dir is not None:
                atomic_write(self.out_dir / f"{session.id}.json",
                             json.dumps(session.to_dict(), ensure_ascii=False, indent=2))
        if not isinstance(ev, JobInterrupted):
            self.counts[kind] += 1
            self.progress.advance(self.task)
            elapsed = max(time.monotonic() - self.t0, 1e-6)
            self.progress.update(self.task, rate=f"{self.counts['done'] / elapsed * 3600:.0f}/h")
        if not self.show_bar:
            msg = f"{kind}: {ev.job.label}" + (f": {ev.reason}" if isinstance(ev, JobFailed) else "")
            print(plain(msg), file=sys.stderr, flush=True)


def _print_summary(summary, console) -> None:
    from rich.text import Text

    from ..textsafe import clean_terminal

    line = Text(f"done {len(summary.done)}, skipped {len(summary.skipped)} (already finished), "
                f"failed {len(summary.failed)} of {summary.planned} in {summary.seconds:.1f} s")
    console.print(line)
    for label, reason in summary.failed:
        t = Text("  failed: ")
        t.append(clean_terminal(label, one_line=True))
        t.append(": ")
        t.append(clean_terminal(reason, one_line=True))
        console.print(t)
