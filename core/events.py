"""The typed events the checking pipeline emits; the TUI and the CLI consume the same stream."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from .errors import format_error
from .figures import Checks, Metrics
from .protocols import Progress, Sentence
from .session import Evidence, Fact, Session, Verdict


@dataclass
class TokenEvent:
    text: str
    tokens: int = 1                  # tokens in this piece
    total_tokens: int = 0            # tokens generated so far
    tokens_per_s: float = 0.0
    logprob: float | None = None
    entropy: float | None = None


@dataclass
class SentenceEvent:
    sentence: Sentence


@dataclass
class FactEvent:
    fact: Fact                       # verdict still pending


@dataclass
class EvidenceEvent:
    fact_id: str
    passages: list[Evidence]


@dataclass
class VerdictEvent:
    fact_id: str
    verdict: Verdict


@dataclass
class MetricsEvent:
    metrics: Metrics
    checks: Checks = field(default_factory=Checks.empty)


@dataclass
class ProgressEvent:
    progress: Progress


@dataclass
class NoticeEvent:
    level: str                       # info | warning | error
    message: str
    hint: str = ""

    def line(self) -> str:
        """`message (hint)`, the one-line form every error takes."""
        return format_error(self.message, self.hint)


@dataclass
class StopEvent:
    reason: str                      # eos | max_tokens | drift | repetition | user | error
    session: Session


Event = Union[TokenEvent, SentenceEvent, FactEvent, EvidenceEvent, VerdictEvent, MetricsEvent,
              ProgressEvent, NoticeEvent, StopEvent]
