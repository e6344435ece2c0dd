"""The threads of one run: a pool for extraction and fact checks, and one-off daemon threads
(generation, SelfCheck samples). Whatever they produce, or the exception that stopped them, goes
into the run's inbox as a message (core/pipeline/messages.py); only the run's loop reads it."""
from __future__ import annotations

import os
import queue
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Iterable

from .messages import ErrorMsg
from .pump import pump

CHECK_NICE = 5     # checking threads yield the CPU to generation (Linux: per-thread nice value)


def lower_priority() -> None:
    """Run this checking thread at a lower CPU priority than generation, so checking uses what the
    model leaves (overhead stays low on few cores); after the last token it has the CPU alone."""
    if not hasattr(os, "setpriority"):     # not on every platform
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + CHECK_NICE))
    except OSError:
        pass


class Workers:
    """The pool and the inbox of one run. `closed` stops new work and makes running work skip
    what is left of it."""

    def __init__(self, workers: int):
        self.inbox: queue.Queue = queue.Queue()
        self.pool = ThreadPoolExecutor(max_workers=max(1, int(workers)), thread_name_prefix="mfact-check",
                                       initializer=lower_priority)
        self.futures: set[Future] = set()
        self.closed = False

    def put(self, msg: Any) -> None:
        self.inbox.put(msg)

    def submit(self, fn: Callable[..., None], *args: Any) -> None:
        """Run `fn(*args)` in the pool; an exception becomes an ErrorMsg naming `fn`."""
        if self.closed:
            return
        try:
            fut = self.pool.submit(self._guard, fn, *args)
        except RuntimeError:   # pool shut down
            return
        self.futures.add(fut)
        fut.add_done_callback(self.futures.discard)

    def thread(self, fn: Callable[[], None], name: str) -> None:
        """Run `fn()` in a daemon thread of its own, guarded like pool work."""
        threading.Thread(target=self._guard, args=(fn,), daemon=True, name=name).start()

    def stream(self, source: Callable[[], Iterable[Any]], name: str, where: str) -> None:
        """Pump the messages of `source()` into the inbox from a daemon thread."""
        pump(source, self.inbox.put, name=name, on_error=lambda exc: self.inbox.put(ErrorMsg(exc, where)))

    def _guard(self, fn: Callable[..., None], *args: Any) -> None:
        if self.closed:
            return
        try:
            fn(*args)
        except BaseException as exc:  # noqa: BLE001 - every failure ends the run cleanly
            self.inbox.put(ErrorMsg(exc, fn.__name__))

    def get(self, timeout: float) -> Any | None:
        try:
            return self.inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def cancel(self) -> None:
        """Cancel pool work that has not started."""
        for fut in list(self.futures):
            fut.cancel()

    def busy(self) -> bool:
        return any(not f.done() for f in list(self.futures))

    def drain_for(self, seconds: float) -> Iterable[Any]:
        """Messages arriving within `seconds`, or until no pool work is running and the inbox is
        empty (what a stopped run still takes in)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            running = self.busy()
            msg = self.get(timeout=0.02)
            if msg is None:
                if not running:
                    return
                continue
            yield msg

    def shutdown(self) -> None:
        self.closed = True
        self.pool.shutdown(wait=False, cancel_futures=True)
