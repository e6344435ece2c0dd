"""Learning from the store and writing the adaptation: one step for `mfact learn` and for the TUI's
refit, which runs it in a process of its own (`RefitProcess`, `python -m mfact.core.adapt.refit`)
so that the fit never holds the interpreter lock of the app's UI thread.

The process reads one JSON line per refit on stdin, `{"store", "adaptation", "verifier"}`, and
answers one JSON line, `{"version", "seconds", "cpu"}` or `{"error"}`; it ends at the end of its stdin
(the app closing the pipe, or dying). Its stderr goes nowhere: the terminal belongs to the app. It
runs at a lower CPU priority than the app (nice 10).
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from .adaptation import Adaptation, from_result, next_number, read_or_note, update_adaptation
from .learn import LearnResult, learn_from_store


LOCAL_VERIFIERS = ("offline", "lite", "slots", "detector", "cross")   # built in a moment, without a model


def verifier_id(cfg, verifier: str | None = None) -> str:
    """What the verdicts of the verifier `verifier` (default: the configured one) record as their
    maker, "name/version": an adaptation is fitted on, and applies to, that version's verdicts only.
    A verifier that needs a model to be built (llm, nli) is named without a version (any version)."""
    import copy

    from ..checking import build_verifier
    from ..errors import MfactError
    from .features import is_made_by

    spec = (verifier or cfg.verifier or "offline").strip()
    if is_made_by(spec):
        return spec
    name = spec.partition(":")[0]
    if name not in LOCAL_VERIFIERS:
        return name
    c = copy.deepcopy(cfg)
    c.verifier = spec
    try:
        v = build_verifier(c)
    except (MfactError, OSError, ImportError):
        return name
    return f"{v.name}/{v.version}" if v.version else v.name


def learn_and_write(store_path: str | Path | None, verifier: str, langs: set[str] | None = None,
                    path: Path | None = None, write: bool = True) -> tuple[LearnResult, Adaptation | None]:
    """Learn from the store's labels; the adaptation (None when no label has a verdict of
    `verifier`), written beside the store unless `write` is False. The languages not learnt keep
    what the file had for them (`langs`): the fit runs unlocked, the merge with the file and the
    write under its lock (update_adaptation), so that learns at once lose nothing of each other.
    An unreadable file is replaced, and that is said (core/logs.notice)."""
    from ..logs import notice
    from ..store import Store

    with Store(store_path) as store:
        res = learn_from_store(store, verifier, langs)
    if not res.labels:
        return res, None
    write = write and (langs is None or bool(res.languages))     # --lang with no label there: nothing
    if write:
        a, _where, why = update_adaptation(lambda keep, n: from_result(res, n, keep), path)
    else:
        keep, why = read_or_note(path)
        a = from_result(res, next_number(path), keep)
    if why:
        kept = "replaced by this one" if write else "would be replaced"
        notice(f"{why}: {kept}" + (" (the other languages' adaptation in it is lost)" if langs else ""))
    return res, a


def refit_in_process(store_path: str, adaptation_path: str, verifier: str) -> tuple[str | None, float, float]:
    """The TUI's refit: (the version written or None, seconds taken, CPU seconds taken)."""
    t0, c0 = time.perf_counter(), time.process_time()
    _res, a = learn_and_write(store_path, verifier, path=Path(adaptation_path))
    return (a.version if a is not None else None), time.perf_counter() - t0, time.process_time() - c0


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def refit_env() -> dict[str, str]:
    """The refit process's environment: numpy's BLAS on one thread. Its matrices are small (labels x
    55), a second thread saved little wall time and took the core the app's keys need (on 2 cores,
    10,000 labels with features: 2 threads 0.87 s wall and 1.2 s CPU, 1 thread 0.9-1.0 s and 1.0)."""
    import os
    env = dict(os.environ)
    for k in BLAS_THREADS:
        env[k] = "1"
    return env


class RefitProcess:
    """The app's side of the refit process: started once, asked one refit at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc = subprocess.Popen([sys.executable, "-m", "mfact.core.adapt.refit"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                      encoding="utf-8", bufsize=1, env=refit_env())

    def refit(self, store_path: str, adaptation_path: str, verifier: str) -> tuple[str | None, float, float]:
        """Like `refit_in_process`, in the process (blocks the calling thread, not the interpreter).
        RuntimeError when the process is gone or says it failed."""
        with self._lock:
            proc = self._proc
            if proc.poll() is not None or proc.stdin is None or proc.stdout is None:
                raise RuntimeError("the refit process has ended")
            proc.stdin.write(json.dumps({"store": store_path, "adaptation": adaptation_path,
                                         "verifier": verifier}) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the refit process ended without an answer")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer.get("version"), float(answer.get("seconds", 0.0)), float(answer.get("cpu", 0.0))

    def close(self) -> None:
        try:
            if self._proc.stdin is not None:
                self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self._proc.kill()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def alive(self) -> bool:
        return self._proc.poll() is None


def serve() -> int:
    """The refit process's loop: one refit per line of stdin, one answer per line of stdout. At a
    lower CPU priority (nice 10): on a busy machine the app's keys come first."""
    import os
    try:
        if hasattr(os, "nice"):         # not on every platform
            os.nice(10)
    except OSError:
        pass
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            ask = json.loads(line)
            version, seconds, cpu = refit_in_process(ask["store"], ask["adaptation"], ask["verifier"])
            answer = {"version": version, "seconds": seconds, "cpu": cpu}
        except Exception as exc:  # noqa: BLE001 - said to the app, which goes on unadapted
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve())
