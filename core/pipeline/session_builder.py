"""`SessionBuilder`: the one reducer from pipeline events to a Session.

The run (core/pipeline/run.py) records facts, evidence, verdicts and human labels through it as
it emits them; the TUI's check screen rebuilds the session it shows from the same events with it,
adopts the run's final session through it, keeping the labels the user set meanwhile, and takes in
through it the labels other windows set in the store.
`apply(event)` answers what changed, so a view redraws only that.
"""
from __future__ import annotations

import bisect
import copy
from collections.abc import Mapping

from ..events import (Event, EvidenceEvent, FactEvent, MetricsEvent, StopEvent, TokenEvent,
                      VerdictEvent)
from ..figures import Checks, Metrics
from ..session import Entity, Evidence, Fact, GeneratorInfo, HumanLabel, Session

# what `apply` reports as changed
TEXT, HEADER, EVIDENCE, ALL = "text", "header", "evidence", "all"
STALE = "metrics-stale"     # the metrics must be recomputed with the human labels


def fact_changed(fact_id: str) -> str:
    return "fact:" + fact_id


class SessionBuilder:
    """A session being built from events. `passages` holds each fact's retrieved passages (best
    first, as retrieved); `metrics` / `checks` the latest figures the run sent."""

    def __init__(self, session: Session):
        self.session = session
        self.passages: dict[str, list[Evidence]] = {}
        self.metrics: Metrics = session.metrics.copy()
        self.checks: Checks = session.checks.copy()
        self._facts = {f.id: f for f in session.facts}
        self._evidence = {e.id for e in session.evidence}

    @classmethod
    def for_run(cls, entity: Entity, lang: str, model: str = "", seed: int | None = None,
                question: str = "") -> "SessionBuilder":
        """The session of a run about to start: running, no text yet, the model and seed it asks for,
        the question its text answers (the run's final session brings the rest)."""
        return cls(Session(language=lang, entity=entity, status="running", question=question,
                           generator=GeneratorInfo(backend="", model=model, seed=seed)))

    @classmethod
    def saved(cls, session: Session) -> "SessionBuilder":
        """A finished session reopened: each fact's passages are those its verdict used, best first."""
        b = cls(session)
        by_id = session.evidence_by_id()
        for f in session.facts:
            if f.auto is not None and f.auto.evidence:
                evs = [by_id[e] for e in f.auto.evidence if e in by_id]
                b.passages[f.id] = sorted(evs, key=lambda e: -e.score)
        return b

    # ------------------------------------------------------------------ reading

    def fact(self, fact_id: str | None) -> Fact | None:
        return self._facts.get(fact_id) if fact_id is not None else None

    @property
    def has_human_labels(self) -> bool:
        return any(f.human is not None for f in self.session.facts)

    # ------------------------------------------------------------------ events

    def apply(self, ev: Event) -> set[str]:
        """Fold one event into the session; the parts of a view it changed."""
        s = self.session
        match ev:
            case TokenEvent():
                s.text += ev.text
                s.tokens = ev.total_tokens or (s.tokens + ev.tokens)
                return {TEXT, HEADER}
            case FactEvent():
                self.add_fact(copy.copy(ev.fact))
                return {TEXT, HEADER, fact_changed(ev.fact.id)}
            case EvidenceEvent():
                self.add_evidence(ev.fact_id, list(ev.passages))
                return {EVIDENCE + ":" + ev.fact_id}
            case VerdictEvent():
                f = self._facts.get(ev.fact_id)
                if f is None:
                    return set()
                f.auto = ev.verdict
                return {TEXT, HEADER, fact_changed(f.id), EVIDENCE + ":" + f.id}
            case MetricsEvent():
                self.checks = ev.checks.copy()
                if self.has_human_labels:      # the run's figures lack labels set here
                    return {HEADER, TEXT, STALE}
                self.metrics = ev.metrics.copy()
                return {HEADER, TEXT}
            case StopEvent():
                self.adopt(ev.session, ev.reason)
                return {ALL}
        return set()

    def add_fact(self, fact: Fact) -> Fact:
        """A new fact (pending), or new text and span for a known one."""
        old = self._facts.get(fact.id)
        if old is not None:
            moved = (old.span, old.sentence) != (fact.span, fact.sentence)
            old.text, old.span, old.sentence = fact.text, fact.span, fact.sentence
            if moved:
                self.session.facts.sort(key=lambda f: f.text_order)
            return old
        # in text order (Fact.text_order), as the finished session keeps them: facts of later
        # sentences may arrive first when sentences are checked side by side
        bisect.insort(self.session.facts, fact, key=lambda f: f.text_order)
        self._facts[fact.id] = fact
        return fact

    def add_evidence(self, fact_id: str, passages: list[Evidence]) -> None:
        """A fact's passages; the session keeps every passage once, first come first kept."""
        self.passages[fact_id] = passages
        for e in passages:
            if e.id not in self._evidence:
                self._evidence.add(e.id)
                self.session.evidence.append(e)

    def set_human(self, fact_id: str, label: HumanLabel | str | None) -> Fact | None:
        """Set (or with None clear) a fact's human label; the fact, or None when unknown."""
        f = self._facts.get(fact_id)
        if f is not None:
            f.human = HumanLabel(label) if isinstance(label, str) else label
        return f

    def take_labels(self, labels: Mapping[str, HumanLabel | None]) -> list[Fact] | None:
        """Take in the human labels the store holds (set in another window or process): the facts
        whose label changed, now changed here. None, changing nothing, when the store's facts are
        not this session's (the session was re-imported elsewhere with other facts)."""
        if labels.keys() != self._facts.keys():
            return None
        moved = []
        for f in self.session.facts:
            new = labels.get(f.id)
            if (new.label if new else None) != (f.human.label if f.human else None):
                f.human = new
                moved.append(f)
        return moved

    # ------------------------------------------------------------------ endings

    def adopt(self, final: Session, reason: str) -> Session:
        """Take the run's complete session as this one: same id, creation time and name, and
        the human labels set here meanwhile (the run may not have heard of the last ones)."""
        mine = self.session
        humans = {f.id: f.human for f in mine.facts if f.human is not None}
        final.id = mine.id
        final.created_at = mine.created_at
        final.name = mine.name or final.name
        for f in final.facts:
            if f.id in humans and f.human is None:
                f.human = humans[f.id]
        final.stop_reason = final.stop_reason or reason
        final.status = "interrupted" if final.stop_reason == "connection_lost" else "done"
        self.session = final
        self._facts = {f.id: f for f in final.facts}
        self._evidence = {e.id for e in final.evidence}
        if final.metrics:
            self.metrics = final.metrics.copy()
        if final.checks:
            self.checks = final.checks.copy()
        return final

    def end(self, reason: str) -> None:
        """The run ended without a final session (`error`, or `user`: the user left): keep this
        one. An error is always the reason; otherwise a reason already known stays."""
        self.session.status = "done"
        self.session.stop_reason = reason if reason == "error" else (self.session.stop_reason or reason)
