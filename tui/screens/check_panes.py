"""Drawing the check screen's panes: the text with its facts coloured, the metrics bar, the fact
list and the evidence. Only the parts an event changed are redrawn; the streamed text at most
STREAM_FPS times a second and the header HEADER_FPS times, so the stream never competes with keys
for the frame. (Textual repaints the box around all the regions changed since the last frame: a
header redrawn with every text update made each of those frames repaint all three panes, from the
header down to the text's last line.)

A long text is drawn as a window of TEXT_WINDOW characters around the selected fact (the end while
streaming), with a notice of what is shown: re-wrapping a whole 1 MB text took over a second per
key press; a window of 4,000 characters (more than a pane holds) keeps every key well under 50 ms.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Literal

from rich.text import Text
from textual.widgets import ProgressBar

from mfact.core.events import NoticeEvent
from mfact.core.protocols import Progress
from mfact.core.session import Fact

from ..render import FactTextMemo, Palette, SpanIndex, fact_text, facts_in_window
from ..widgets.evidence_view import EvidenceMemo, EvidenceView
from ..widgets.fact_list import HEADER, FactList
from ..widgets.metrics_bar import MetricsBar, RunState, metrics_text
from ..widgets.text_view import FactText

if TYPE_CHECKING:  # pragma: no cover
    from textual.timer import Timer

    from ..base import MfactScreen
    from ..live_metrics import LiveMetrics
    from .check_view import CheckView

STREAM_FPS = 15
HEADER_FPS = 4
TEXT_WINDOW = 4_000
PANES = ("#text-pane", "#facts", "#evidence")


def step_target(facts: list[Fact], index: int | None, step: int) -> Fact | None:
    """The fact `step` places after (before, step < 0) the one at `index`, within bounds; from an
    unknown place (None) the first (last) fact."""
    if not facts:
        return None
    if index is None:
        return facts[0] if step > 0 else facts[-1]
    return facts[max(0, min(len(facts) - 1, index + step))]


def text_window(text: str, center: int, following: bool = False) -> tuple[int, int]:
    """[start, end) of a long text the pane shows around `center`, cut at a space when there is
    one nearby. `following` (the end of a text being written): the window starts at a multiple
    of a quarter window, so that it only grows between the jumps and the pane wraps again just
    the new end (tui/widgets/text_view.py)."""
    n = len(text)
    if following:
        step = TEXT_WINDOW // 4
        start = max(0, (n - 3 * step) // step * step)
        sp = text.find(" ", start, start + 200) if start > 0 else -1
        return (sp + 1 if sp != -1 else start), n
    start = max(0, min(n - TEXT_WINDOW, center - TEXT_WINDOW // 3))
    if start > 0:
        sp = text.find(" ", start, start + 200)
        start = sp + 1 if sp != -1 else start
    end = min(n, start + TEXT_WINDOW)
    if end < n:
        sp = text.rfind(" ", end - 200, end)
        end = sp if sp > start else end
    return start, end


@dataclass(frozen=True)
class FactDrawing:
    """How a text's facts are drawn (`fact_text`'s arguments after the facts): the palette, the
    selected fact, the drift point (the index of the fact it comes before) and whether it shows."""
    palette: Palette
    selected: str | None = None
    drift_point: int | None = None
    show_drift: bool = True


@dataclass(frozen=True)
class TextWindow:
    """The part [start, end) of a long text the pane shows (`text_window`); `following`: the end of
    a text being written."""
    start: int
    end: int
    following: bool = False


def windowed_fact_text(text: str, facts: list[Fact], drawing: FactDrawing, window: TextWindow,
                       index: SpanIndex | None = None, make: Callable[..., Text] = fact_text) -> Text:
    """`fact_text` of the window's part of the text (the facts in it, their spans moved), with a
    notice above and below of which part of the text this is. `index`: the facts' SpanIndex (a
    finished session's spans do not move); `make`: what colours the part (`fact_text` or a memo of
    it)."""
    start, end, following = window.start, window.end, window.following
    palette, selected = drawing.palette, drawing.selected
    drift_point, show_drift = drawing.drift_point, drawing.show_drift
    shown = [replace(f, span=(max(f.span[0], start) - start, min(f.span[1], end) - start))
             for f in (facts[i] for i in facts_in_window(facts, start, end, index))]
    dp, drift = drift_point, None
    if dp is not None and 0 < dp < len(facts) and start <= facts[dp].span[0] < end:
        drift = next((i for i, f in enumerate(shown) if f.id == facts[dp].id), None)
    body = make(text[start:end], shown, palette, selected, drift, show_drift)
    if following:       # the same notice while the text grows (the pane wraps only the new end)
        notice = Text(f"[long text: from character {start + 1:,} on; the view follows the end]",
                      style="dim italic")
    else:
        notice = Text(f"[long text: characters {start + 1:,}-{end:,} of {len(text):,} shown;"
                      f" the view follows the selected fact]", style="dim italic")
    out = Text()
    if start > 0:
        out.append_text(notice)
        out.append("\n")
    out.append_text(body)
    if end < len(text):
        out.append("\n")
        out.append_text(notice)
    return out


class CheckPanes:
    """Renders the view state (`CheckView`: the session, the selection, the run's status) into the
    screen's widgets; `live` gives the label counts of the header."""

    def __init__(self, screen: MfactScreen, view: CheckView, live: LiveMetrics,
                 select: Callable[[str | None], None]):
        self.screen = screen
        self.view = view
        self.live = live
        self._select = select
        self._timers: dict[str, Timer] = {}
        self._evidence_shape: tuple = ()
        self._span_index: SpanIndex | None = None
        self._fact_text = FactTextMemo()
        self._evidence_text = EvidenceMemo()
        self._drawn: str | None = None        # the text as the pane last showed it
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
        """Everything again (the theme changed, the session was replaced)."""
        self.rebuild_table()
        self.render_all()

    def render_dirty(self, dirty: set[str]) -> None:
        """Redraw what `SessionBuilder.apply` said changed (plus "select": the selection)."""
        scr, view = self.screen, self.view
        if not dirty:
            return
        if "all" in dirty:
            self.render_all()
            return
        evidence = False
        for d in dirty:
            if d.startswith("fact:"):
                self.upsert_row(d[5:])
            elif d.startswith("evidence:") and d[9:] == view.selected:
                evidence = True
        if "select" in dirty:
            self._select(view.selected)
        for part, fps in (("text", STREAM_FPS), ("header", HEADER_FPS)):
            if part in dirty and part not in self._timers:
                self._timers[part] = scr.set_timer(1 / fps, lambda part=part: self._flush_deferred(part))
        if evidence:
            self.render_evidence()

    def _flush_deferred(self, part: str) -> None:
        self._timers.pop(part, None)
        if part == "text":
            self.render_text()
        else:
            self.render_header()

    def render_all(self) -> None:
        self.render_text()
        self.render_header()
        self.render_evidence()

    def render_selection(self) -> None:
        self.render_text(latest=False)
        self.render_evidence()

    def render_text(self, latest: bool = True) -> None:
        """The text pane. `latest=False` (a key moved the selection or changed a label): while a
        stream redraw is due anyway, the text as it was last drawn, with its facts, the new selection
        and the labels as they are now; the tokens that came since follow with that redraw (at most
        1/STREAM_FPS s later). The pane then restyles the lines the change touches instead of
        wrapping everything from the selected fact to the end again."""
        scr, view = self.screen, self.view
        session = view.session
        dp = view.metrics.drift_point
        text, facts = session.text, session.facts
        drawn = self._drawn
        if (not latest and "text" in self._timers and drawn is not None and len(drawn) < len(text)
                and text.startswith(drawn)):
            text = drawn
            k = 0
            while k < len(facts) and facts[k].span[1] <= len(text):
                k += 1
            facts = facts[:k]
            dp = dp if dp is not None and dp < k else None
        self._drawn = text
        if len(text) <= TEXT_WINDOW:
            out = self._fact_text(text, facts, self.palette, view.selected, dp, view.show_drift)
        else:
            f = view.builder.fact(view.selected)
            following = view.running or (f is None and session.status == "running")
            center = len(text) if following else (f.span[0] if f is not None else 0)
            start, end = text_window(text, center, following)
            index = None
            if not view.running and session.status != "running":     # spans stay where they are
                index = self._span_index
                if index is None or not index.fits(facts):
                    index = self._span_index = SpanIndex(facts)
            out = windowed_fact_text(text, facts, FactDrawing(self.palette, view.selected, dp, view.show_drift),
                                     TextWindow(start, end, following), index, self._fact_text)
        scr.query_one(FactText).set_text(out, follow=view.running)

    def render_header(self) -> None:
        scr, view = self.screen, self.view
        run = RunState(view.running, view.tokens_per_s, view.max_tokens,
                       view.run_status or (view.session.stop_reason or ""))
        text = metrics_text(view.session, view.metrics, view.checks, self.palette, run, counted=self.live.counted())
        adapted = scr.app.adapt.indicator(view.session.language) if hasattr(scr.app, "adapt") else ""
        if adapted:
            text.append(f"  {adapted}", style="dim")
        bar = scr.query_one(MetricsBar)
        bar.styles.height = 3 if view.session.question else 2      # the question on a line of its own
        bar.update(text, layout=False)

    def render_evidence(self) -> None:
        scr, view = self.screen, self.view
        pane = scr.query_one(EvidenceView)
        fact = view.builder.fact(view.selected)
        got = view.builder.passages
        passages = got.get(view.selected, []) if fact else []
        pending = bool(fact) and view.running and view.selected not in got
        loading = pending and fact is not None and fact.auto is None
        if pane.loading != loading:
            pane.loading = loading
        used = set(fact.auto.evidence) if fact is not None and fact.auto else set()
        shape = (view.selected, len(passages), bool(fact and fact.auto and fact.auto.reason),
                 pending, scr.size.width)
        layout = shape != self._evidence_shape
        self._evidence_shape = shape
        pane.show(self._evidence_text(fact, passages, self.palette, used, pending), layout=layout)

    def rebuild_table(self) -> None:
        scr, view = self.screen, self.view
        table = scr.query_one(FactList)
        cursor = view.selected
        table.clear()
        table.set_rows(view.session.facts, self.palette)
        if cursor is not None and cursor in table:
            table.move_to(cursor)

    def upsert_row(self, fact_id: str) -> None:
        table = self.screen.query_one(FactList)
        facts = self.view.session.facts
        i = self.index_of(fact_id)
        if i is not None:
            table.upsert(i + 1, facts[i], self.palette)

    def index_of(self, fact_id: str | None) -> int | None:
        """The fact's place in the session (O(1) through the fact list, which is in step)."""
        if fact_id is None:
            return None
        facts = self.view.session.facts
        i = self.screen.query_one(FactList).index_of(fact_id)
        if i is not None and i < len(facts) and facts[i].id == fact_id:   # the usual case
            return i
        return next((n for n, f in enumerate(facts) if f.id == fact_id), None)

    def toast(self, ev: NoticeEvent) -> None:
        """A notice of the run, shown literally (never as markup)."""
        sev: Literal["information", "warning", "error"] = (
            "error" if ev.level == "error" else "warning" if ev.level == "warning" else "information")
        msg = ev.message + (f"\n{ev.hint}" if ev.hint else "")
        self.screen.app.notify(msg, severity=sev, timeout=8 if sev == "error" else 4, markup=False)

    def show_progress(self, p: Progress) -> None:
        bar = self.screen.query_one("#prep", ProgressBar)
        finished = p.total is not None and p.done >= p.total
        bar.display = not finished
        bar.update(total=p.total, progress=p.done)
        self.view.run_status = p.message or p.stage

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
