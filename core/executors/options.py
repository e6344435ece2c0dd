"""`ExecutorOptions`: how an executor computes a run's jobs (core/executors/__init__.py `make_executor`)."""
from __future__ import annotations

from dataclasses import dataclass

MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class ExecutorOptions:
    """How an executor computes a run's jobs: its `workers` (threads, local; Ray actors, ray) and the
    generation batch size. The rest is the Ray executor's own (the local one has none): the cluster
    (`address`, None: a local Ray of its own), each actor's concurrent server requests, CPUs and
    GPUs, how often a job is tried and a dead actor restarted, how many units an actor holds at
    once, and Ray's own log lines (`verbose`)."""
    workers: int = 1
    batch_size: int = 1
    address: str | None = None
    worker_threads: int = 1
    worker_cpus: float = 1.0
    worker_gpus: float = 0.0
    max_attempts: int = MAX_ATTEMPTS
    max_restarts: int = 2
    in_flight: int = 2
    verbose: bool = False


DEFAULTS = ExecutorOptions()
