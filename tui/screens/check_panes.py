"""Drawing the check screen's panes: the text with its facts coloured, the metrics bar, the fact
list and the evidence. Only the parts an event changed are redrawn; the streamed text and the
header at most STREAM_FPS times a second, so the stream never competes with keys for the frame."""
from __future__ import annotations

from typing import Any

from textual.widgets import ProgressBar

from mfact.core.events import NoticeEvent
from mfact.core.protocols import Progress

from ..render import Palette, fact_text
from ..widgets.evidence_view import EvidenceView, evidence_text
from ..widgets.fact_list import HEADER, FactList
from ..widgets.metrics_bar import MetricsBar, metrics_text
from ..widgets.text_view import FactText

STREAM_FPS = 15
PANES = ("#text-pane", "#facts", "#evidence")


def step_target(ids: list[str], selected: str | None, step: int) -> str | None:
    """The fact `step` places after (before, step < 0) `selected` in `ids`, within bounds."""
    if not ids:
        return None
    if selected not in ids:
        return ids[0] if step > 0 else ids[-1]
    return ids[max(0, min(len(ids) - 1, ids.index(selected) + step))]


class CheckPanes:
    """Renders `screen`'s state (session, builder, selection, status) into its widgets."""

    def __init__(self, screen: Any):
        self.screen = screen
        self._deferred: set[str] = set()
        self._flush_timer = None
        self._evidence_shape: tuple = ()
        self.widths = {p: 1.0 for p in PANES}

    @property
    def palette(self) -> Palette:
        return Palette.from_theme(self.screen.app.current_theme)

    def setup(self) -> None:
        scr = self.screen
        scr.query_one("#prep").display = False
        scr.query_one("#text-pane").border_title = "text"
        scr.query_one("#facts").border_title = "facts"
        scr.query_one("#facts").border_subtitle = HEADER.strip()
        scr.query_one("#evidence").border_title = "evidence"
        scr.query_one(FactList).focus()

    def redraw(self) -> None:
        """Everything again (the theme changed)."""
        self.rebuild_table()
        self.render_all()

    def render_dirty(self, dirty: set[str]) -> None:
        scr = self.screen
        if not dirty:
            return
        if "all" in dirty:
            self.render_all()
            return
        for d in dirty:     # SessionBuilder.apply's names for what changed
            if d.startswith("fact:"):
                self.upsert_row(d[5:])
            elif d == "evidence:" + str(scr.selected):
                dirty = dirty | {"evidence"}
        if "select" in dirty:
            scr._select(scr.selected)
        deferred = dirty & {"text", "header"}
        if deferred:
            self._deferred |= deferred
            if self._flush_timer is None:
                self._flush_timer = scr.set_timer(1 / STREAM_FPS, self._flush_deferred)
        if "evidence" in dirty:
            self.render_evidence()

    def _flush_deferred(self) -> None:
        self._flush_timer = None
        d, self._deferred = self._deferred, set()
        if "text" in d:
            self.render_text()
        if "header" in d:
            self.render_header()

    def render_all(self) -> None:
        self.render_text()
        self.render_header()
        self.render_evidence()

    def render_text(self) -> None:
        scr = self.screen
        dp = scr.metrics.get("drift_point")
        scr.query_one(FactText).set_text(fact_text(
            scr.session.text, scr.session.facts, self.palette, scr.selected, dp,
            scr.show_drift), follow=scr.running)

    def render_header(self) -> None:
        scr = self.screen
        cfg = scr.app_cfg()
        scr.query_one(MetricsBar).update(metrics_text(
            scr.session, scr.metrics, scr.checks, self.palette, running=scr.running,
            tokens_per_s=scr.tokens_per_s, max_tokens=cfg.max_tokens if cfg else None,
            status=scr.status or (scr.session.stop_reason or "")), layout=False)

    def render_evidence(self) -> None:
        scr = self.screen
        view = scr.query_one(EvidenceView)
        fact = scr.builder.fact(scr.selected)
        passages = scr.builder.passages.get(scr.selected, []) if fact else []
        pending = bool(fact) and scr.running and scr.selected not in scr.builder.passages
        loading = pending and fact is not None and fact.auto is None
        if view.loading != loading:
            view.loading = loading
        used = set(fact.auto.evidence) if fact is not None and fact.auto else set()
        shape = (scr.selected, len(passages), bool(fact and fact.auto and fact.auto.reason),
                 pending, scr.size.width)
        layout = shape != self._evidence_shape
        self._evidence_shape = shape
        view.show(evidence_text(fact, passages, self.palette, used, pending), layout=layout)

    def render_selection(self) -> None:
        self.render_text()
        self.render_evidence()

    def toast(self, ev: NoticeEvent) -> None:
        """A notice of the run, shown literally (never as markup)."""
        sev = {"error": "error", "warning": "warning"}.get(ev.level, "information")
        msg = ev.message + (f"\n{ev.hint}" if ev.hint else "")
        self.screen.app.notify(msg, severity=sev, timeout=8 if sev == "error" else 4, markup=False)

    def rebuild_table(self) -> None:
        scr = self.screen
        table = scr.query_one(FactList)
        cursor = scr.selected
        table.clear()
        pal = self.palette
        for n, f in enumerate(scr.session.facts, 1):
            table.upsert(n, f, pal)
        if cursor is not None and cursor in table:
            table.move_to(cursor)

    def upsert_row(self, fact_id: str) -> None:
        table = self.screen.query_one(FactList)
        for n, f in enumerate(self.screen.session.facts, 1):
            if f.id == fact_id:
                table.upsert(n, f, self.palette)
                return

    def cycle_focus(self) -> None:
        scr = self.screen
        order = [scr.query_one(p) for p in PANES]
        focused = scr.focused
        i = next((n for n, w in enumerate(order) if w is focused or
                  (focused is not None and w in focused.ancestors_with_self)), -1)
        order[(i + 1) % len(order)].focus()

    def resize_focused(self, step: int) -> bool:
        """Widen (step > 0) or narrow the focused pane; False when no pane has the focus."""
        focused = self.screen.focused
        for p in PANES:
            w = self.screen.query_one(p)
            if focused is not None and w in focused.ancestors_with_self:
                self.widths[p] = max(0.4, min(4.0, self.widths[p] + 0.25 * step))
                w.styles.width = f"{self.widths[p]}fr"
                return True
        return False

    def show_progress(self, p: Progress) -> None:
        bar = self.screen.query_one("#prep", ProgressBar)
        finished = p.total is not None and p.done >= p.total
        bar.display = not finished
        bar.update(total=p.total, progress=p.done)
        self.screen.status = p.message or p.stage
