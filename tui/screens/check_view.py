"""`CheckView`: the check screen's view state in one place, handed typed to the helpers that draw
it (check_panes.py), keep it (tui/session_keeper.py) and compute its metrics (tui/live_metrics.py).
The screen owns it; its helpers read and change it, never the screen's own attributes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mfact.core.figures import Checks, Metrics
from mfact.core.pipeline.session_builder import SessionBuilder

if TYPE_CHECKING:  # pragma: no cover
    from mfact.core.session import Session


@dataclass
class CheckView:
    """What the check screen shows: the session (kept by its `builder`), the selected fact, the
    drift marker, and the run's state (running, its status line, tokens per second); with the
    configured `max_tokens` for the header."""
    builder: SessionBuilder
    selected: str | None = None
    show_drift: bool = True
    running: bool = False
    run_status: str = ""
    tokens_per_s: float = 0.0
    max_tokens: int | None = None

    @property
    def session(self) -> Session:
        return self.builder.session

    @property
    def metrics(self) -> Metrics:
        return self.builder.metrics

    @property
    def checks(self) -> Checks:
        return self.builder.checks


class ViewField:
    """A name of the screen for a field of its `view` (`screen.selected` is `screen.view.selected`)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return getattr(obj.view, self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.view, self.name, value)
