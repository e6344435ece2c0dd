"""The one thread → queue event pump: iterate a source in a daemon thread and hand every item to a
callback (a queue's `put`, a screen's wake-up). The run's generation thread, the CLI's check and
the TUI's check screen all use it."""
from __future__ import annotations

import threading
from collections.abc import Generator
from typing import Any, Callable, Iterable


def pump(source: Callable[[], Iterable[Any]], put: Callable[[Any], None], *, name: str,
         on_error: Callable[[BaseException], None], on_end: Callable[[], None] | None = None) -> threading.Thread:
    """Start a daemon thread that puts each item of `source()` with `put`. An exception of the
    source goes to `on_error` (the items before it were put); `on_end` runs last in every case.
    A generator source is closed when the thread stops reading it."""
    def run() -> None:
        items = None
        try:
            items = source()
            for item in items:
                put(item)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer
            on_error(exc)
        finally:
            if isinstance(items, Generator):
                items.close()
            if on_end is not None:
                on_end()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread
