"""A check screen's run: the pipeline iterated in a daemon thread (the core's one event pump,
core/pipeline/pump.py), its events queued for the UI thread, which drains them all at once on one
wake-up message, so streamed tokens are batched per frame.

A daemon thread, not a Textual thread worker: those run in asyncio's default executor, which the
interpreter waits for at exit; a model still loading would hold `q` for seconds. The screen saves
what the run produced before the app exits.
"""
from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from mfact.core.errors import MfactError
from mfact.core.events import Event, NoticeEvent, ProgressEvent, StopEvent
from mfact.core.pipeline.pump import pump
from mfact.core.session import Entity

log = logging.getLogger("mfact.tui")


@dataclass(frozen=True)
class Finished:
    """The feed's last item: `run()` is over (normally, or with an `error`)."""
    error: bool = False


class RunFeed:
    """One run at a time. `wake()` is called from the run's thread when the queue was empty (the
    screen posts itself a message); the UI thread then calls `drain()`.

    `get_pipeline(on_progress=...)` gives the pipeline (built on first use: model loading happens
    in the run's thread). The feed keeps the pipeline of its run, to pass it the labels the user
    sets while the run goes on."""

    def __init__(self, get_pipeline: Callable[..., Any], wake: Callable[[], object]):
        self._get_pipeline = get_pipeline
        self._wake = wake
        self._queue: collections.deque = collections.deque()
        self._wake_pending = False
        self._stop = threading.Event()
        self._leaving = False
        self._error = False
        self.pipeline: Any = None

    def start(self, entity: Entity, lang: str, text: str | None, question: str = "") -> None:
        self._stop = stop = threading.Event()
        self._error = False
        pump(lambda: self._events(entity, lang, text, stop, question), self._push, name="mfact-tui-pipeline",
             on_error=self._failed, on_end=lambda: self._push(Finished(self._error)))

    def _events(self, entity: Entity, lang: str, text: str | None,
                stop: threading.Event, question: str = "") -> Iterator[Event]:
        pipe = self._get_pipeline(on_progress=lambda p: self._push(ProgressEvent(p)))
        self.pipeline = pipe
        events = pipe.run(entity, lang, stop=stop, text=text, **({"question": question} if question else {}))
        try:
            for ev in events:
                yield ev
                if isinstance(ev, StopEvent) or (stop.is_set() and self._leaving):
                    return
        finally:
            if isinstance(events, Generator):
                events.close()

    def _failed(self, exc: BaseException) -> None:
        self._error = True
        if isinstance(exc, MfactError):
            self._push(NoticeEvent("error", exc.message, exc.hint))
        else:   # shown as a toast, details in the log
            log.error("pipeline failed", exc_info=exc)
            self._push(NoticeEvent("error", f"{type(exc).__name__}: {exc}",
                                   "details in the log (mfact.log)"))

    def _push(self, item: Any) -> None:
        """Called from the run's thread: queue the item, wake the UI once per drain."""
        self._queue.append(item)
        if not self._wake_pending:
            self._wake_pending = True
            self._wake()

    def drain(self) -> list[Any]:
        """Everything queued, in order (UI thread)."""
        self._wake_pending = False
        q = self._queue
        out = []
        while q:
            out.append(q.popleft())
        return out

    def stop(self, leaving: bool = False) -> None:
        """Ask the run to stop (it still ends with its StopEvent); `leaving`: the screen goes away,
        so the thread stops reading at once."""
        self._leaving = self._leaving or leaving
        self._stop.set()

    def set_human_label(self, fact_id: str, label: str | None) -> None:
        """Tell the run in progress, so that its metrics and final session carry the label."""
        if self.pipeline is not None:
            self.pipeline.set_human_label(fact_id, label)
