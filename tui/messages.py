"""The vocabulary of the app: the messages its widgets, screens and workers exchange."""
from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from mfact.core.figures import Metrics
from mfact.core.knowledge.entities import EntityMatch


@dataclass
class PipelineWake(Message):
    """Events are waiting in the check screen's queue (posted at most once per drain)."""


@dataclass
class FactClicked(Message):
    """A fact span was clicked in the text pane."""
    fact_id: str


@dataclass
class MetricsReady(Message):
    """Metrics recomputed off the UI thread after a relabel."""
    session_id: str
    generation: int
    metrics: Metrics = field(default_factory=Metrics.empty)


@dataclass
class SuggestionsReady(Message):
    """Entity suggestions for `prefix` arrived from the knowledge source."""
    prefix: str
    lang: str
    items: list[str] = field(default_factory=list)
    error: str = ""


@dataclass
class EntityResolved(Message):
    """The knowledge source answered which entity a typed name means (match None: no answer)."""
    name: str
    lang: str
    match: EntityMatch | None = None
