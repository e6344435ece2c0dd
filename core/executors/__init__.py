"""Executors: where the jobs of `mfact run` are computed.

    executor = make_executor("local" | "ray", store, pipeline_factory, cfg, options=ExecutorOptions(...))
    summary = executor.run(jobs)          # -> batch.RunSummary

Every executor has the same contract, whichever machine the work runs on:

- the driver (this process) alone writes the SQLite store, one finished session at a time;
- a job whose session is already finished in the store is skipped (ids come from `plan_jobs`);
- progress is reported through `on_event(event)` with the typed batch events of core/batch.py
  (JobStarted, JobDone with the Session, JobSkipped, JobFailed with the reason, JobInterrupted);
- one job that fails does not end the run.

`local` is `batch.BatchRunner` (threads in this process). `ray` (core/executors/ray_executor.py,
the optional extra `mfact[ray]`) runs the jobs on Ray actors that load the models once each.
"""
from __future__ import annotations

from typing import Any, Callable

from ..batch import BatchEvent, BatchRunner
from ..errors import MfactError
from ..jobs import Executor
from .options import DEFAULTS, ExecutorOptions

EXECUTORS = ("local", "ray")

OnEvent = Callable[[BatchEvent], None]


class LocalExecutor(BatchRunner):
    """The in-process executor: threads in this process (the default)."""

    name = "local"


def make_executor(name: str, store, pipeline_factory: Callable[[], Any], cfg, *, on_event: OnEvent | None = None,
                  options: ExecutorOptions = DEFAULTS) -> Executor:
    """The executor called `name`. The options' `workers`: threads (local) or Ray actors (ray);
    `worker_threads` and the rest: with ray, concurrent server requests per actor and so on."""
    if name == "local":
        return LocalExecutor(store, pipeline_factory, cfg, workers=options.workers, on_event=on_event,
                             batch_size=options.batch_size)
    if name == "ray":
        from .ray_executor import RayExecutor

        return RayExecutor(store, pipeline_factory, cfg, on_event=on_event, options=options)
    raise MfactError(f"unknown executor {name!r}", "choose local or ray")
