"""`mfact run --executor ray`: the jobs of a run on Ray actors (the optional extra `mfact[ray]`).

    driver (this process)                         Ray actors (--workers of them)
    plan jobs, skip finished ones
    cut them into units ------------------------> MfactWorker.run(unit): a BatchRunner over the
    (a generation batch, or one job)              actor's pipeline, built once per actor (models
                                                  loaded once), returns each job's outcome
    save each finished session <----------------- each job's JobDone / JobFailed / JobInterrupted
    one progress bar

- **The driver alone writes the store.** Actors return finished sessions; the driver saves each as
  its unit comes back, so a session is in the store as soon as it is finished and no two processes
  write the SQLite file.
- **Failures.** Actors are created with `max_restarts` and their calls with `max_task_retries`
  (Ray's own fault tolerance): when a worker process dies, Ray starts it again (its constructor
  loads the models again) and re-runs the unit it held. When Ray gives up on a unit, the driver puts
  its jobs back in the queue (up to `max_attempts` tries each) and replaces an actor that is dead for
  good. A retried unit may come back twice: the driver keeps the first outcome of each session id,
  so every session is saved once.
- **Where.** `address=None` starts a small local Ray (`ray.init`, no dashboard, a small object
  store); `address="auto"` joins the cluster started on this node with `ray start --head`;
  `ray://host:10001` connects a Ray client. The mfact package (and its models) must be installed on
  every node; the driver's `MFACT_*` environment variables are passed to the actors.
"""
from __future__ import annotations

import collections
import os
import threading
from dataclasses import replace
from typing import Any, Callable

from ..batch import (BatchEvent, BatchRunner, Job, JobDone, JobFailed, JobInterrupted, JobStarted,
                     RunSummary)
from ..errors import MfactError
from ..jobs import Executor
from .options import ExecutorOptions

INSTALL_HINT = "install the extra: pip install 'mfact[ray]'"
LOCAL_OBJECT_STORE = 256 * 1024 * 1024     # finished sessions are small; Ray's default is 30% of memory
RAY_DEFAULTS = ExecutorOptions(workers=2)     # a RayExecutor made without options: two actors
FORWARD_ENV = ("MFACT_", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


def import_ray():
    try:
        import ray
    except ImportError:
        raise MfactError("--executor ray needs Ray, which is not installed", INSTALL_HINT) from None
    return ray


def connect(address: str | None = None, *, num_cpus: int | None = None, verbose: bool = False,
            object_store_memory: int = LOCAL_OBJECT_STORE) -> bool:
    """Join (address) or start (None) a Ray cluster; True when this call started it (and should
    shut it down). An already initialised Ray in this process is used as it is."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")     # no usage reports from an offline tool
    kw: dict[str, Any] = {"log_to_driver": verbose, "configure_logging": verbose,
                          "ignore_reinit_error": True}
    if address:
        _probe(address)
    try:
        if address:
            ray.init(address=address, **kw)
        else:
            # "local": always a Ray of our own, never one found on the machine (ray.init() without
            # an address joins another program's local Ray when there is one)
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False,
                     object_store_memory=object_store_memory, **kw)
    except ConnectionError as exc:
        raise MfactError(f"cannot reach the Ray cluster at {address}: {str(exc).splitlines()[0][:160]}",
                         "start it with `ray start --head`, or leave out --ray-address for a local Ray") \
            from None
    except (RuntimeError, ValueError) as exc:
        raise MfactError(f"Ray did not start: {str(exc).splitlines()[0][:200]}",
                         "see `ray status`; leave out --ray-address for a local Ray") from None
    return True


def _probe(address: str, timeout: float = 3.0) -> None:
    """A HOST:PORT (or ray://HOST:PORT) address that does not answer a TCP connect fails at once:
    Ray itself retries for minutes. 'auto' and other forms are left to Ray."""
    import socket

    hostport = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not host:
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise MfactError(f"cannot reach the Ray cluster at {address}: {exc.strerror or type(exc).__name__}",
                         "start it with `ray start --head`, or leave out --ray-address for a local Ray") \
            from None


class _NoStore:
    """The actors' BatchRunner never reads nor writes the store: the driver does."""

    def get_session(self, session_id: str):
        raise KeyError(session_id)

    def save_session(self, session) -> None:
        pass


class MfactWorker:
    """One Ray actor: builds its checking pipeline(s) once and runs units of jobs through a
    BatchRunner (so batching, generation overlapped with checking, repetition stops and failure
    reports are those of the local executor)."""

    def __init__(self, pipeline_factory: Callable[[], Any], cfg, batch_size: int = 1, threads: int = 1,
                 env: dict[str, str] | None = None):
        os.environ.update(env or {})
        self.factory = pipeline_factory
        self.cfg = cfg
        self.batch_size = max(1, batch_size)
        self.threads = max(1, threads)
        self._pipelines: list[Any] = []
        self._lock = threading.Lock()
        self._error: str | None = None

    def ready(self) -> dict[str, Any]:
        """Load the models now (once per actor); where this worker runs, or the error."""
        import socket
        try:
            self._take(0)
        except MfactError as exc:
            self._error = exc.line()
        except Exception as exc:  # noqa: BLE001 - reported to the driver, the jobs will say it too
            self._error = f"{type(exc).__name__}: {exc}"
        import resource
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024      # Linux: KiB
        return {"pid": os.getpid(), "host": socket.gethostname(), "error": self._error,
                "peak_rss_mb": round(rss_mb)}

    def _take(self, i: int) -> Any:
        with self._lock:
            while len(self._pipelines) <= i:
                self._pipelines.append(self.factory())
            return self._pipelines[i]

    def run(self, jobs: list[Job]) -> list[BatchEvent]:
        """Run `jobs`; each job's outcome, a JobDone, JobFailed or JobInterrupted."""
        out: list[BatchEvent] = []
        counter = iter(range(1 << 30))

        def factory() -> Any:            # one pipeline per runner thread, kept across calls
            return self._take(next(counter))

        def on_event(ev: BatchEvent) -> None:
            if isinstance(ev, (JobDone, JobFailed, JobInterrupted)):
                out.append(ev)

        runner = BatchRunner(_NoStore(), factory, self.cfg, workers=self.threads, on_event=on_event,
                             batch_size=self.batch_size)
        runner.run(jobs)
        return out

    def pid(self) -> int:
        return os.getpid()


class RayExecutor(Executor):
    """Runs jobs on `workers` Ray actors; see the module's docstring."""

    name = "ray"

    def __init__(self, store, pipeline_factory: Callable[[], Any], cfg,
                 on_event: Callable[[BatchEvent], None] | None = None, options: ExecutorOptions = RAY_DEFAULTS):
        super().__init__(store, pipeline_factory, cfg, options.workers, on_event, options.batch_size)
        self.address = options.address or None
        self.worker_threads = max(1, int(options.worker_threads))
        self.worker_cpus = float(options.worker_cpus)
        self.worker_gpus = float(options.worker_gpus)
        self.max_attempts = max(1, int(options.max_attempts))
        self.max_restarts = max(0, int(options.max_restarts))
        self.in_flight = max(1, int(options.in_flight))
        self.verbose = options.verbose
        self.worker_info: list[dict[str, Any]] = []     # per actor slot: pid, host, error
        self.retried = 0                                 # units Ray could not finish, put back in the queue
        self.replaced = 0                                # actors dead for good, replaced
        self._actors: list[Any] | None = None
        self._readies: dict[Any, int] = {}
        self._started_ray = False

    # ------------------------------------------------------------------ helpers

    def _units(self, todo: list[Job]) -> list[list[Job]]:
        """Jobs of the same (language, sample) in units of the batch size (or the actor's threads)."""
        size = max(self.batch_size, self.worker_threads)
        groups: dict[tuple[str, int], list[Job]] = {}
        for job in todo:
            groups.setdefault((job.lang, job.sample), []).append(job)
        return [g[i:i + size] for g in groups.values() for i in range(0, len(g), size)]

    def _env(self) -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if k.startswith(FORWARD_ENV)}

    def _actor_class(self, ray):
        return ray.remote(MfactWorker).options(
            num_cpus=self.worker_cpus, num_gpus=self.worker_gpus or None,
            max_restarts=self.max_restarts, max_task_retries=self.max_restarts,
            max_concurrency=1)

    def _check_resources(self, ray) -> None:
        total = ray.cluster_resources()
        cpus, gpus = float(total.get("CPU", 0)), float(total.get("GPU", 0))
        if cpus < self.workers * self.worker_cpus:
            raise MfactError(f"the Ray cluster has {cpus:g} CPUs, too few for {self.workers} workers of "
                             f"{self.worker_cpus:g} CPU each", "lower --workers, or add nodes")
        if self.worker_gpus and gpus < self.workers * self.worker_gpus:
            raise MfactError(f"the Ray cluster has {gpus:g} GPUs, too few for {self.workers} workers of "
                             f"{self.worker_gpus:g} GPU each", "lower --workers or --worker-gpus")

    # ------------------------------------------------------------------ actors

    def start(self) -> None:
        """Join or start Ray and create the actors (they load their models at once). `run` does
        this itself; call it first to keep start-up out of a measurement (with `wait_ready`)."""
        if self._actors is not None:
            return
        ray = import_ray()
        self._started_ray = connect(self.address, verbose=self.verbose,
                                    num_cpus=None if self.address else max(
                                        os.cpu_count() or 1, int(self.workers * self.worker_cpus + 0.999)))
        try:
            self._check_resources(ray)
        except MfactError:
            self.close()
            raise
        self._actor_cls = self._actor_class(ray)
        self._actors = [self._new_actor() for _ in range(self.workers)]
        self.worker_info = [{} for _ in self._actors]
        self._readies = {a.ready.remote(): i for i, a in enumerate(self._actors)}

    def _new_actor(self):
        try:
            return self._actor_cls.remote(self.pipeline_factory, self.cfg, self.batch_size, self.worker_threads,
                                          self._env())
        except TypeError as exc:      # Ray could not serialize the factory (it holds a lock, a socket, ...)
            raise MfactError(
                f"the pipeline factory cannot be sent to the Ray workers: {str(exc).splitlines()[0][:200]}",
                "give a module-level function (or functools.partial of one) that builds the pipeline",
            ) from None

    def wait_ready(self, timeout: float | None = None) -> list[dict[str, Any]]:
        """Wait until every actor has loaded its models; their pid, host and error (if any)."""
        ray = import_ray()
        self.start()
        for ref, slot in list(self._readies.items()):
            self.worker_info[slot] = ray.get(ref, timeout=timeout)
            self._readies.pop(ref, None)
        return self.worker_info

    def close(self) -> None:
        """Stop the actors, and Ray when `start` started it."""
        ray = import_ray()
        for actor in self._actors or []:
            if actor is not None:
                try:
                    ray.kill(actor)
                except Exception:  # noqa: BLE001 - best effort while stopping
                    pass
        self._actors = None
        self._readies = {}
        if self._started_ray:
            self._started_ray = False
            ray.shutdown()

    # ------------------------------------------------------------------ run

    def _execute(self, todo: list[Job], summary: RunSummary) -> None:
        ray = import_ray()
        own = self._actors is None
        try:
            self.start()
            self._run(ray, todo, summary)
        finally:
            if own:
                self.close()

    def _run(self, ray: Any, todo: list[Job], summary: RunSummary) -> None:
        run = _RayRun(self, ray, summary, todo)
        try:
            while (run.queue or run.pending) and not self.stop.is_set():
                run.submit()
                if not run.pending:
                    run.fail_if_no_worker()
                    break
                ready, _ = ray.wait(list(run.pending) + list(self._readies), num_returns=1, timeout=0.2)
                for ref in ready:
                    run.collect(ref)
        finally:
            for ref in run.pending:
                try:
                    ray.cancel(ref)
                except Exception:  # noqa: BLE001 - best effort while stopping
                    pass


class _RayRun:
    """The driver's side of one RayExecutor run: the units waiting and in flight, each actor's
    load, the jobs reported (a unit Ray retried may come back twice), the attempts of each job and
    how many actors may still be replaced."""

    def __init__(self, ex: RayExecutor, ray: Any, summary: RunSummary, todo: list[Job]):
        self.ex, self.ray, self.summary = ex, ray, summary
        self.actors: list[Any] = ex._actors or []
        self.queue: collections.deque[list[Job]] = collections.deque(ex._units(todo))
        self.attempts: dict[str, int] = collections.Counter()
        self.reported: set[str] = set()
        self.pending: dict[Any, tuple[int, list[Job]]] = {}      # ObjectRef -> (actor slot, unit)
        self.load: list[int] = [0] * len(self.actors)
        self.budget = ex.workers * 2                             # actors that may be replaced

    def record(self, ev: BatchEvent) -> None:
        job = ev.job
        if job.session_id in self.reported:
            return                      # a unit retried by Ray came back twice
        self.reported.add(job.session_id)
        match ev:
            case JobDone(session=session):
                self.ex.store.save_session(session)
                self.summary.done.append(session.id)
            case JobFailed(reason=reason):
                self.summary.failed.append((job.label, reason))
        self.ex.on_event(ev)

    def put_back(self, unit: list[Job], why: str) -> None:
        again = []
        for job in unit:
            if job.session_id in self.reported:
                continue
            self.attempts[job.session_id] += 1
            if self.attempts[job.session_id] >= self.ex.max_attempts:
                self.record(JobFailed(job, f"the Ray worker running it was lost {self.attempts[job.session_id]} "
                                           f"times ({why})"))
            else:
                again.append(job)
        if again:
            self.ex.retried += 1
            self.queue.appendleft(again)

    def submit(self) -> None:
        """Give each live actor units up to `in_flight` at a time."""
        for slot, actor in enumerate(self.actors):
            while self.queue and self.load[slot] < self.ex.in_flight and actor is not None:
                unit = self.queue.popleft()
                for job in unit:
                    self.ex.on_event(JobStarted(job))
                self.pending[actor.run.remote(unit)] = (slot, unit)
                self.load[slot] += 1

    def fail_if_no_worker(self) -> None:
        if self.queue and all(a is None for a in self.actors):
            for unit in list(self.queue):
                for job in unit:
                    self.record(JobFailed(job, "every Ray worker was lost"))
            self.queue.clear()

    def collect(self, ref: Any) -> None:
        """A finished reference: an actor ready (its info), or a unit's events."""
        from ray.exceptions import RayError, RayTaskError

        readies = self.ex._readies
        if ref in readies:
            slot = readies.pop(ref)
            try:
                self.ex.worker_info[slot] = self.ray.get(ref)
            except RayError as exc:
                self.ex.worker_info[slot] = {"error": f"{type(exc).__name__}"}
            return
        slot, unit = self.pending.pop(ref)
        self.load[slot] -= 1
        try:
            outcomes = self.ray.get(ref)
        except RayTaskError as exc:      # a bug in the worker code, not a lost worker
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            for job in unit:
                self.record(JobFailed(job, f"{type(cause).__name__}: {cause}"))
            return
        except RayError as exc:          # the worker died and Ray gave up on the unit
            self.lost(slot, unit, exc)
            return
        by_id = {job.session_id: job for job in unit}
        for ev in outcomes:         # with the driver's own Job of each
            if ev.job.session_id in by_id:
                self.record(replace(ev, job=by_id[ev.job.session_id]))
        for job in [job for job in unit if job.session_id not in self.reported]:
            self.record(JobInterrupted(job))

    def lost(self, slot: int, unit: list[Job], exc: BaseException) -> None:
        """The unit is put back; a dead actor is replaced while the budget lasts."""
        from ray.exceptions import ActorDiedError

        self.put_back(unit, type(exc).__name__)
        if isinstance(exc, ActorDiedError) and self.actors[slot] is not None:
            if self.budget > 0:
                self.budget -= 1
                self.ex.replaced += 1
                self.actors[slot] = self.ex._new_actor()
                self.ex._readies[self.actors[slot].ready.remote()] = slot
            else:
                self.actors[slot] = None
