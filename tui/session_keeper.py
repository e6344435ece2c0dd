"""The check screen's session in the store: saving it, and the human labels the user sets, with
their undo (through the store's label history once the session is saved and finished)."""
from __future__ import annotations

import copy
import logging
from dataclasses import replace
from typing import Any

from mfact.core.errors import MfactError
from mfact.core.session import Fact, HumanLabel

from .messages import MetricsReady

log = logging.getLogger("mfact.tui")


class SessionKeeper:
    """`screen` gives the session (`screen.session`), whether a run is going (`screen.running`)
    and the app (store, notifications)."""

    def __init__(self, screen: Any, saved: bool = False):
        self.screen = screen
        self.saved = saved
        self.undo_stack: list[tuple[str, HumanLabel | None, bool]] = []
        self._metrics_gen = 0

    def recompute_metrics(self) -> None:
        """Recompute the session's metrics off the UI thread (the screen hears MetricsReady)."""
        self._metrics_gen += 1
        snap = copy.copy(self.screen.session)
        snap.facts = [replace(f) for f in snap.facts]
        gen = self._metrics_gen

        def work() -> None:
            try:
                from mfact.core import metrics
                result = metrics.session_metrics(snap)
            except Exception:  # noqa: BLE001 - metrics failed: keep the old ones
                log.exception("metrics failed")
                return
            self.screen.post_message(MetricsReady(snap.id, gen, result))

        self.screen.run_worker(work, thread=True, exclusive=True, group="metrics", exit_on_error=False)

    def adopt_metrics(self, message: MetricsReady) -> bool:
        """Take recomputed metrics if they are the latest asked for, for this session."""
        if message.generation != self._metrics_gen or message.session_id != self.screen.session.id:
            return False
        builder = self.screen.builder
        builder.metrics = dict(message.metrics)
        builder.session.metrics = dict(message.metrics)
        calm = message.metrics.get("calm")
        if isinstance(calm, dict) and not builder.checks:
            builder.checks = dict(calm)
        return True

    @property
    def store(self):
        return self.screen.app.store

    def save(self) -> None:
        store = self.store
        if store is None:
            return
        try:
            store.save_session(self.screen.session)
            self.saved = True
        except Exception as exc:  # noqa: BLE001 - keep the app alive; say what happened
            log.exception("saving the session failed")
            self.screen.app.notify(f"Could not save the session: {exc}", severity="error", markup=False)

    def relabel(self, f: Fact, label: str) -> None:
        prev = f.human
        f.human = HumanLabel(label)
        self.undo_stack.append((f.id, prev, self.persist(f)))

    def pop_undo(self) -> tuple[str, HumanLabel | None, bool] | None:
        """The last label change (fact id, its label before, went through the label history)."""
        return self.undo_stack.pop() if self.undo_stack else None

    def restore(self, f: Fact, prev: HumanLabel | None, logged: bool) -> None:
        """Give `f` its label `prev` back, in the store too."""
        f.human = prev
        store, screen = self.store, self.screen
        done = False
        if logged and store is not None and self.saved and not screen.running:
            try:
                change = store.undo_label(screen.session.id)
                done = change is not None and change.fact_id == f.id
            except Exception:  # noqa: BLE001 - fall back to writing the previous label
                log.exception("undo in the store failed")
        if not done:
            self.persist(f)

    def persist(self, f: Fact) -> bool:
        """Write the fact's human label to the store at once. True when it went through
        `set_human_label` (so the store's label history can undo it)."""
        store, screen = self.store, self.screen
        if store is None:
            return False
        try:
            if self.saved and not screen.running:
                store.set_human_label(screen.session.id, f.id, f.human.label if f.human else None)
                return True
            self.save()
        except MfactError as exc:
            screen.app.notify(f"{exc.message}\n{exc.hint}", severity="error", markup=False)
            self.save()
        return False
