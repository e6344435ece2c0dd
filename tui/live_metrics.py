"""A check screen's metrics recomputed after a relabel: off the UI thread (a thread worker that
posts `MetricsReady`), the newest request winning. On a big session the recompute runs once the
keys stop (each takes a while and holds the interpreter; several at once made every key wait),
the drift p-value (1000 permutations) only up to P_VALUE_MAX_FACTS facts (`mfact score` gives it
above), and the CaLMScore checks, which depend on the text only, once per text."""
from __future__ import annotations

import copy
import logging
from functools import partial
from typing import Any

from mfact.core.figures import Checks, Metrics
from mfact.core.session import Session

from .messages import MetricsReady

log = logging.getLogger("mfact.tui")
P_VALUE_MAX_FACTS = 2_000
BIG_TEXT = 40_000           # characters: above, a recompute waits for the keys to stop too
DEBOUNCE_S = 0.4


class LiveMetrics:
    """`screen` gives the session (`screen.session`) and runs the worker; its builder takes the
    figures (`adopt`)."""

    def __init__(self, screen: Any):
        self.screen = screen
        self.generation = 0
        self._timer = None
        self._calm_key: tuple | None = None
        self._calm: Checks | None = None

    def recompute(self) -> None:
        """Ask for the session's metrics with the labels as they are now (MetricsReady follows)."""
        s = self.screen.session
        if len(s.facts) > P_VALUE_MAX_FACTS or len(s.text) > BIG_TEXT:
            if self._timer is not None:
                self._timer.stop()
            self._timer = self.screen.set_timer(DEBOUNCE_S, self._recompute_now)
            return
        self._recompute_now()

    def _recompute_now(self) -> None:
        self._timer = None
        self.generation += 1
        snap = copy.copy(self.screen.session)
        snap.facts = list(snap.facts)      # the facts are copied in the worker, off the UI thread
        # named: without a description Textual writes repr(work) into one, the whole session's repr
        self.screen.run_worker(partial(self._work, snap, self.generation), name="metrics",
                               description="metrics after a relabel", thread=True,
                               exclusive=True, group="metrics", exit_on_error=False)

    def _work(self, snap: Session, gen: int) -> None:
        # a label set meanwhile replaces a fact's `human` reference: the copy sees the old or the
        # new one, and the newer generation's metrics win anyway
        snap.facts = [copy.copy(f) for f in snap.facts]
        try:
            from mfact.core import metrics
            from mfact.core.checks import calm_checks

            key = (snap.id, len(snap.text), hash(snap.text))
            if self._calm_key != key:
                self._calm = snap.checks if snap.checks.has_calm else calm_checks(snap.text, snap.language)
                self._calm_key = key
            result = metrics.session_metrics(snap, checks=self._calm,
                                             p_value=len(snap.facts) <= P_VALUE_MAX_FACTS)
        except Exception:  # noqa: BLE001 - metrics module missing or failed: keep the old ones
            log.exception("metrics failed")
            return
        self.screen.post_message(MetricsReady(snap.id, gen, result))

    def adopt(self, message: MetricsReady) -> bool:
        """Take recomputed metrics if they are the newest asked for, for this session."""
        builder = self.screen.builder
        if message.generation != self.generation or message.session_id != builder.session.id:
            return False
        builder.metrics = Metrics.from_dict(message.metrics, "metrics")
        builder.session.metrics = builder.metrics.copy()
        calm = builder.metrics.calm
        if calm and not builder.checks:     # the checks computed for the metrics, when the run had none
            builder.checks = Checks.from_dict(calm.to_dict(), "checks")
        return True
