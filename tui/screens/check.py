"""The check screen: the text streaming with its facts coloured, the fact list, the evidence.

It only routes events and keys. The run: tui/run_feed.py (the pipeline in a daemon thread on the
core's event pump; the UI thread drains the queue once per wake-up, so tokens are batched per
frame). Events fold into the session in the core's `SessionBuilder`; the panes redraw what changed
(check_panes.py); the store, labels, undo and other windows: tui/session_keeper.py; metrics after
a relabel: tui/live_metrics.py.
"""
from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Footer, ProgressBar

from mfact.core.events import FactEvent, NoticeEvent, ProgressEvent, SentenceEvent, StopEvent, TokenEvent
from mfact.core.pipeline.session_builder import ALL, STALE, SessionBuilder
from mfact.core.session import Entity, Session

from ..base import MfactScreen
from ..keys import bindings
from ..live_metrics import LiveMetrics, metrics_missing
from ..messages import FactClicked, MetricsReady, PipelineWake
from ..run_feed import Finished, RunFeed
from ..session_keeper import SessionKeeper
from ..widgets.evidence_view import EvidenceView
from ..widgets.fact_list import FactList
from ..widgets.metrics_bar import MetricsBar
from ..widgets.text_view import FactText
from .check_panes import CheckPanes, step_target
from .check_view import CheckView, ViewField

STORE_POLL_S = 1.0     # how often a window looks for changes made elsewhere (and on focus)


class CheckScreen(MfactScreen[None]):
    """Check one text: either run the pipeline (`entity`, `lang`) or reopen a saved `session`."""

    BINDINGS = bindings("check")
    SCOPE = "check"

    def __init__(self, *, entity: Entity | str | None = None, lang: str | None = None,
                 text: str | None = None, session: Session | None = None, question: str = ""):
        super().__init__()
        if session is None and (entity is None or lang is None):
            raise ValueError("CheckScreen needs a session or an entity and a language")
        self._run_args = (entity, lang, text)
        if session is not None:
            builder = SessionBuilder.saved(session)
        else:
            builder = self._for_run(entity if isinstance(entity, Entity) else Entity(name=str(entity)), str(lang),
                                    question)
        self.view = CheckView(builder)
        self.keeper = SessionKeeper(self, self.view, saved=session is not None)
        self.feed = RunFeed(lambda **kw: self.mfact.get_pipeline(**kw), lambda: self.post_message(PipelineWake()))
        self.live = LiveMetrics(self, self.view)
        self.panes = CheckPanes(self, self.view, self.live, self.select)
        self._pending_regen = False

    # the view state (check_view.py) by name
    session, metrics, checks, builder = ViewField(), ViewField(), ViewField(), ViewField()
    selected, running, tokens_per_s = ViewField(), ViewField(), ViewField()

    def _for_run(self, ent: Entity, lang: str, question: str = "") -> SessionBuilder:
        cfg = self.app_cfg()
        return SessionBuilder.for_run(ent, lang, cfg.model if cfg else "", cfg.seed if cfg else None, question)

    def app_cfg(self):
        try:
            return self.mfact.cfg
        except Exception:  # noqa: BLE001 - not mounted yet
            return None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield MetricsBar(id="metrics")
        yield ProgressBar(id="prep", show_eta=False)
        with Horizontal(id="panes"):
            yield FactText(id="text-pane")
            yield FactList(id="facts")
            yield EvidenceView(id="evidence")
        yield Footer()

    def on_mount(self) -> None:
        cfg = self.app_cfg()
        self.view.max_tokens = cfg.max_tokens if cfg else None
        self.panes.setup()
        if self.keeper.saved:
            self.view.selected = self.session.facts[0].id if self.session.facts else None
            self.panes.redraw()
            if metrics_missing(self.session):
                self.live.recompute()       # a file without its figures (or with stale ones): now, not at a relabel
        else:
            self._start()
        self.watch(self.app, "theme", lambda _: self.panes.redraw(), init=False)
        self.call_after_refresh(self.check_store)     # changed since it was read? (after the first frame)
        self.set_interval(STORE_POLL_S, self.check_store)

    def _render_all(self) -> None:
        self.panes.render_all()

    # ------------------------------------------------------------------ the run's events

    def _start(self) -> None:
        self.view.running = True
        self.view.run_status = "starting"
        self._render_all()
        self.feed.start(self.session.entity, self.session.language, self._run_args[2], self.session.question)

    def on_pipeline_wake(self, message: PipelineWake) -> None:
        dirty: set[str] = set()
        for ev in self.feed.drain():
            self._route(ev, dirty)
        self.panes.render_dirty(dirty)

    def drain_now(self) -> None:
        """Apply every queued event now (tests and the quit path)."""
        self.on_pipeline_wake(PipelineWake())

    def _route(self, ev, dirty: set[str]) -> None:
        """One event: the session's part to the builder, the rest to the view."""
        match ev:
            case Finished(error=error):
                return self._finished(error, dirty)
            case ProgressEvent(progress=p):
                return self.panes.show_progress(p)
            case NoticeEvent():
                return self.panes.toast(ev)
            case TokenEvent():
                self.view.run_status = "generating"
                self.view.tokens_per_s = ev.tokens_per_s or self.view.tokens_per_s
            case SentenceEvent():
                self.view.run_status = self.view.run_status or "checking"
        changed = self.view.builder.apply(ev)
        if STALE in changed:
            self.live.recompute()       # the run's figures lack the labels set here
        dirty |= changed - {ALL, STALE}
        if isinstance(ev, FactEvent) and self.view.selected is None:
            self.view.selected = ev.fact.id
            dirty.add("select")
        elif isinstance(ev, StopEvent):     # the builder adopted the run's final session
            self.view.running = False
            self.view.run_status = ev.reason
            self.keeper.save()
            if self.view.builder.has_human_labels:
                self.live.recompute()
            self.panes.rebuild_table()
            dirty.add(ALL)

    def _finished(self, error: bool, dirty: set[str]) -> None:
        if self.view.running:      # no StopEvent: an error ended the run
            self.view.builder.end("error" if error else "user")
            self.view.running = False
            self.keeper.save()
            dirty.add(ALL)
        self.query_one("#prep").display = False
        if self._pending_regen:
            self._pending_regen = False
            self.call_later(self._restart)

    # ------------------------------------------------------------------ other windows

    def check_store(self) -> bool:
        """Take in changes another window or process made to this session in the store (labels,
        or a re-import). True when something was taken in."""
        change = self.keeper.changes_elsewhere()
        if isinstance(change, Session):
            self.view.builder = SessionBuilder.saved(change)
            if self.view.builder.fact(self.view.selected) is None:
                self.view.selected = change.facts[0].id if change.facts else None
            self.panes.redraw()
            msg = "This session was replaced elsewhere; showing the new version."
        elif change:
            for f in change:
                self.panes.upsert_row(f.id)
            self.panes.render_selection()
            msg = f"{len(change)} label{'s' if len(change) != 1 else ''} changed in another window."
        else:
            return False
        self.live.recompute()
        self.notify(msg, timeout=4)
        return True

    # ------------------------------------------------------------------ selection

    def select(self, fact_id: str | None) -> None:
        table = self.query_one(FactList)
        if fact_id is not None and fact_id in table:
            table.move_to(fact_id)
        self.view.selected = fact_id
        self.panes.render_selection()

    @on(FactList.Highlighted)
    def _row_highlighted(self, event: FactList.Highlighted) -> None:
        if event.fact_id != self.view.selected:
            self.view.selected = event.fact_id
            self.panes.render_selection()

    @on(FactList.Chosen)
    def _row_chosen(self, event: FactList.Chosen) -> None:
        self.action_focus_evidence()

    def on_fact_clicked(self, message: FactClicked) -> None:
        if self.view.builder.fact(message.fact_id) is not None:
            self.select(message.fact_id)

    def action_next_fact(self) -> None:
        self._move(1)

    def action_prev_fact(self) -> None:
        self._move(-1)

    def _move(self, step: int) -> None:
        target = step_target(self.session.facts, self.panes.index_of(self.view.selected), step)
        if target is not None:
            self.select(target.id)

    # ------------------------------------------------------------------ labels

    def action_relabel(self, label: str) -> None:
        f = self.view.builder.fact(self.view.selected)
        if f is None:
            self.app.bell()
            return
        self.keeper.relabel(f, label)
        self._after_label_change(f)
        self.mfact.adapt.labelled()

    def action_next_uncertain(self) -> None:
        from mfact.core.adapt.order import next_uncertain
        f = next_uncertain(self.session.facts, self.session.id)
        if f is None:
            self.notify("No unlabelled fact with a verdict is left here.", timeout=3)
        else:
            self.select(f.id)

    def action_undo(self) -> None:
        last = self.keeper.pop_undo()
        if last is None:
            self.notify("Nothing to undo.", timeout=2)
            return
        fact_id, prev, seq = last
        f = self.view.builder.fact(fact_id)
        if f is None:
            return
        if self.view.selected != fact_id:
            self.select(fact_id)
        self.keeper.restore(f, prev, seq)
        self._after_label_change(f)

    def _after_label_change(self, f) -> None:
        if self.view.running:      # the run in progress carries the label into its final session
            self.feed.set_human_label(f.id, f.human.label if f.human else None)
        self.panes.upsert_row(f.id)
        self.panes.render_selection()
        self.live.recompute(f)

    def on_metrics_ready(self, message: MetricsReady) -> None:
        drift = self.metrics.get("drift_point")
        if self.live.adopt(message):
            self.panes.render_header()
            if self.metrics.get("drift_point") != drift:     # the text shows only that
                self.panes.render_text()

    # ------------------------------------------------------------------ other actions

    def action_focus_evidence(self) -> None:
        self.query_one(EvidenceView).focus()

    def action_cycle_panes(self) -> None:
        self.panes.cycle_focus()

    def action_resize_pane(self, step: int) -> None:
        if not self.panes.resize_focused(step):
            self.app.bell()

    def action_toggle_drift(self) -> None:
        self.view.show_drift = not self.view.show_drift
        self.panes.render_text()

    def action_stop(self) -> None:
        if not self.view.running:
            self.notify("Nothing is generating.", timeout=2)
            return
        self.feed.stop()
        self.view.run_status = "stopping"
        self.panes.render_header()

    def action_regenerate(self) -> None:
        if self._run_args[0] is None and not self.session.entity.name:
            self.app.bell()
            return
        if self.view.running:
            self._pending_regen = True
            self.feed.stop()
            return
        self._restart()

    def _restart(self) -> None:
        cfg = self.app_cfg()
        if cfg is not None:
            cfg.seed += 1
        self.keeper.settle()        # the old session's first save, when it still runs
        self.view.builder = self._for_run(self.session.entity, self.session.language)
        self._run_args = (self.session.entity, self.session.language, None)
        self.keeper = SessionKeeper(self, self.view)
        self.view.selected = None
        self.view.tokens_per_s = 0.0
        self.query_one(FactList).clear()
        self._start()

    def action_export(self) -> None:
        from .export import ExportScreen
        self.app.push_screen(ExportScreen(self.session, self.mfact.export_dir))

    def action_new_check(self) -> None:
        self.shutdown()
        self.mfact.pop_to_start()

    def shutdown(self) -> None:
        """Stop the run and save what there is (called on quit and when leaving): a session opened
        from a file waits for its first save, running off the UI thread since its first label."""
        self.keeper.settle()
        if self.view.running:
            self.feed.stop(leaving=True)
            self.drain_now()
            if self.view.running:
                self.view.builder.end("user")
                self.view.running = False
                self.keeper.save()
        elif (self.session.facts or self.session.text) and not self.keeper.saved:
            self.keeper.save()
