"""A check screen's metrics recomputed after a relabel, the newest request winning.

- A session of up to P_VALUE_MAX_FACTS facts and BIG_TEXT characters: recomputed off the UI thread
  (a thread worker that posts `MetricsReady`), the drift p-value (1000 permutations) included.
- A longer text: the same, once the keys stop (each recompute walks every token of the text and
  holds the interpreter; several at once made every key wait).
- More facts than that: core `IncrementalMetrics`, built once off the UI thread, then updated
  label by label on the UI thread (well under a millisecond for 20,000 facts, where a recompute
  took 0.1 s and more); no p-value (`mfact score` gives it for any size).

The CaLMScore checks depend on the text only: computed once per text."""
from __future__ import annotations

import copy
import logging
from functools import partial
from typing import TYPE_CHECKING

from mfact.core.figures import Checks, Metrics
from mfact.core.session import Fact, Session

from .messages import MetricsReady

log = logging.getLogger("mfact.tui")
P_VALUE_MAX_FACTS = 2_000
BIG_TEXT = 40_000           # characters: above, a recompute waits for the keys to stop too
DEBOUNCE_S = 0.4

if TYPE_CHECKING:  # pragma: no cover
    from .base import MfactScreen
    from textual.timer import Timer

    from .screens.check_view import CheckView


def metrics_missing(s: Session) -> bool:
    """Whether a reopened session's stored figures are absent or do not match its labels (a file
    written by hand or by another tool): then they are computed when it opens."""
    m = s.metrics
    if not s.facts:
        return False
    labelled = sum(1 for f in s.facts if f.label is not None)
    return not m.has("factscore", "semantic_drift") or m.n_labelled != labelled


class LiveMetrics:
    """The metrics of the view's session after a relabel: computed in a worker of `screen`, taken
    into the view's builder (`adopt`)."""

    def __init__(self, screen: MfactScreen, view: CheckView):
        self.screen = screen
        self.view = view
        self.generation = 0
        self._timer: Timer | None = None
        self._calm_key: tuple | None = None
        self._calm: Checks | None = None
        self._inc = None                   # IncrementalMetrics of a session with many facts
        self._building = False
        self._built: tuple | None = None          # (generation, IncrementalMetrics) from the worker
        self._changed: set[str] | None = set()    # facts relabelled while it builds (None: all)

    def recompute(self, fact: Fact | None = None) -> None:
        """Ask for the session's metrics with the labels as they are now (MetricsReady follows);
        `fact`: the one fact whose label changed, when only one did."""
        s = self.view.session
        if len(s.facts) > P_VALUE_MAX_FACTS:
            self._incremental(s, fact)
            return
        if len(s.text) > BIG_TEXT:
            if self._timer is not None:
                self._timer.stop()
            self._timer = self.screen.set_timer(DEBOUNCE_S, self._recompute_now)
            return
        self._recompute_now()

    def counted(self) -> tuple[int, dict] | None:
        """(facts verified, facts per label) of the session when kept up to date here, else None."""
        inc = self._inc
        if inc is not None and inc.session is self.view.session and not inc.stale():
            return inc.label_counts()
        return None

    # ------------------------------------------------------------------ many facts

    def _incremental(self, s: Session, fact: Fact | None) -> None:
        inc = self._inc
        if inc is not None and inc.session is s and not inc.stale():
            if fact is not None:
                inc.update(fact)
            else:
                for f in s.facts:
                    inc.update(f)
            self._post(s.id, inc.metrics(p_value=False))
            return
        if self._building:
            if self._changed is not None:
                if fact is None:
                    self._changed = None
                else:
                    self._changed.add(fact.id)
            return
        self._building = True
        self._changed = set()
        self._inc = None
        self.generation += 1
        self.screen.run_worker(partial(self._build, s, self.generation), name="metrics",
                               description="incremental metrics of a big session", thread=True,
                               exclusive=True, group="metrics", exit_on_error=False)

    def _build(self, s: Session, gen: int) -> None:
        from mfact.core.incremental import IncrementalMetrics
        try:
            inc = IncrementalMetrics(s, checks=self._checks(s))
            result = inc.metrics(p_value=False)
        except Exception:  # noqa: BLE001 - keep the old figures
            log.exception("metrics failed")
            self._building = False
            return
        self._built = (gen, inc)
        self.screen.post_message(MetricsReady(s.id, gen, result))

    def _post(self, session_id: str, metrics: Metrics) -> None:
        self.generation += 1
        self.screen.post_message(MetricsReady(session_id, self.generation, metrics))

    # ------------------------------------------------------------------ a recompute in a worker

    def _checks(self, s: Session) -> Checks:
        key = (s.id, len(s.text), hash(s.text))
        if self._calm_key != key:
            from mfact.core.checks import calm_checks
            self._calm = s.checks if s.checks.has_calm else calm_checks(s.text, s.language)
            self._calm_key = key
        return self._calm

    def _recompute_now(self) -> None:
        self._timer = None
        self.generation += 1
        snap = copy.copy(self.view.session)
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

            result = metrics.session_metrics(snap, checks=self._checks(snap),
                                             p_value=len(snap.facts) <= P_VALUE_MAX_FACTS)
        except Exception:  # noqa: BLE001 - metrics module missing or failed: keep the old ones
            log.exception("metrics failed")
            return
        self.screen.post_message(MetricsReady(snap.id, gen, result))

    def adopt(self, message: MetricsReady) -> bool:
        """Take recomputed metrics if they are the newest asked for, for this session."""
        builder = self.view.builder
        built = None
        if self._built is not None and self._built[0] == message.generation:
            built = self._built[1]     # the incremental figures are ready (or wanted no more)
            self._built = None
            self._building = False
        if message.generation != self.generation or message.session_id != builder.session.id:
            return False
        metrics = message.metrics
        if built is not None:          # take in the labels set while it was built
            if built.session is builder.session and not built.stale():
                self._inc = built
                changed = self._changed
                for f in builder.session.facts if changed is None else filter(None, map(builder.fact, changed)):
                    built.update(f)
                if changed is None or changed:
                    metrics = built.metrics(p_value=False)
            self._changed = set()
        builder.metrics = Metrics.from_dict(metrics, "metrics")
        builder.session.metrics = builder.metrics.copy()
        calm = builder.metrics.calm
        if calm and not builder.checks:     # the checks computed for the metrics, when the run had none
            builder.checks = Checks.from_dict(calm.to_dict(), "checks")
        return True
