"""The header of the check screen: FActScore (both conventions), SD and drift point, language
check, repetition flag, tokens per second and progress. Updated live."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from mfact.core.figures import Calm, Checks, Metrics
from mfact.core.session import Session

from ..render import GLYPHS, Palette, fmt_num, fmt_pct, one_line
from .text_view import line_strip, render_lines, wrap_options


def label_counts(facts) -> tuple[int, dict]:
    """(facts with a verdict, facts per effective label S/NS/IR) in one pass."""
    done = 0
    counts = {"S": 0, "NS": 0, "IR": 0, None: 0}
    for f in facts:
        h, a = f.human, f.auto
        if a is not None:
            done += 1
        counts[h.label if h is not None else (a.label if a is not None else None)] += 1
    return done, counts


@dataclass(frozen=True)
class RunState:
    """The run as the header shows it: whether it is running, its tokens per second, the token
    budget (None: not shown) and its status line ("": checking, or done)."""
    running: bool
    tokens_per_s: float = 0.0
    max_tokens: int | None = None
    status: str = ""


def metrics_text(session, metrics: Metrics | Mapping, checks: Checks | Mapping, palette: Palette, run: RunState,
                 counted: tuple[int, dict] | None = None) -> Text:
    """The header. `counted`: `label_counts(session.facts)` when the caller keeps it (a big
    session's header is drawn after every key)."""
    running, tokens_per_s, max_tokens, status = run.running, run.tokens_per_s, run.max_tokens, run.status
    m = metrics if isinstance(metrics, Metrics) else Metrics.from_dict(dict(metrics or {}), "metrics")
    checks = checks if isinstance(checks, Checks) else Checks.from_dict(dict(checks or {}), "checks")
    calm = (m.calm or Calm()).copy()
    calm.update({k: checks[k] for k in ("language_ok", "detected_language", "repetitive", "non_empty")
                 if k in checks})     # the run's own checks win over those of the last metrics
    t = Text()
    _figures_line(t, session, m)
    t.append("\n")
    _checks_line(t, calm, palette)
    t.append(f"  {tokens_per_s:.1f} tok/s", style="dim")
    t.append("  tokens ", style="dim")
    t.append(f"{session.tokens}" + (f"/{max_tokens}" if max_tokens else ""))
    n = len(session.facts)
    done, counts = counted if counted is not None else label_counts(session.facts)
    t.append("  facts ", style="dim")
    t.append(f"{done}/{n} verified")
    for lab in ("S", "NS", "IR"):
        t.append("  ")
        t.append(f"{GLYPHS[lab]}{counts[lab]}", style=palette.label_style(lab))
    t.append("  ")
    if running:
        t.append(f"● {status or 'checking'}", style=Style(color=palette.drift, bold=True))
    else:
        t.append(f"■ {status or 'done'}", style="dim")
    if session.question:          # what the text answers: untrusted, shown literally on one line
        t.append("\nquestion ", style="dim")
        t.append(one_line(session.question, 300))
    return t


def _figures_line(t: Text, session: Session, m: Metrics) -> None:
    """The entity, its language and the figures: FActScore, semantic drift, hallucination rate."""
    t.append(one_line(session.entity.name, 40), style="bold")
    t.append(f" [{session.language}]  ", style="dim")
    t.append("FActScore ", style="dim")
    t.append(fmt_pct(m.factscore), style="bold")
    t.append(" S/all · ", style="dim")
    t.append(fmt_pct(m.factscore_relevant_only), style="bold")
    t.append(" S/(S+NS)", style="dim")
    if m.factscore_gamma is not None:
        t.append(" · γ ", style="dim")
        t.append(fmt_pct(m.factscore_gamma))
    t.append("  SD ", style="dim")
    t.append(fmt_num(m.semantic_drift), style="bold")
    dp = m.drift_point
    t.append(" @ ", style="dim")
    t.append("—" if dp is None else f"fact {int(dp) + 1}")
    if m.drift_p_value is not None:
        t.append(f" p={m.drift_p_value:.2f}", style="dim")
    hr = m.hallucination_rate
    if hr is not None:
        t.append("  HR ", style="dim")
        t.append(fmt_pct(hr))


def _checks_line(t: Text, calm: Calm, palette: Palette) -> None:
    """The CaLM checks: the detected language and repetition."""
    lang_ok = calm.language_ok
    det = calm.detected_language
    t.append("lang ", style="dim")
    if lang_ok is None:
        t.append("…", style="dim")
    else:
        t.append(f"{GLYPHS['S'] if lang_ok else GLYPHS['NS']} {one_line(det or '?', 8)}",
                 style=palette.label_style("S" if lang_ok else "NS"))
    t.append("  repetition ", style="dim")
    rep = calm.repetitive
    if rep is None:
        t.append("…", style="dim")
    else:
        t.append("⚠ yes" if rep else "no", style=palette.label_style("NS") if rep else Style())


class MetricsBar(Widget):
    """The header line, drawn through Textual's line API. It changes after every label and many
    times a second while a model writes; as a `Static` each change turned the Rich text into
    Textual content and laid it out again (~2 ms a time, inside the latency of every relabel key).
    An update that changes nothing repaints nothing."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = Text()
        self._strips: list[Strip] | None = None
        self._width = -1

    def update(self, text: Text, layout: bool = False) -> None:
        """Show `text` (`layout` is accepted as `Static.update` takes it: the bar's size is fixed)."""
        if text.plain == self._text.plain and text.spans == self._text.spans:
            return
        self._text = text
        self._strips = None
        self.refresh()

    def render(self) -> Text:
        return self._text

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips = None

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if self._strips is None or width != self._width:
            console = self.app.console
            lines = render_lines(console, wrap_options(console, width), self._text)
            self._strips = [line_strip(line, width, base) for line in lines]
            self._width = width
        if 0 <= y < len(self._strips):
            return self._strips[y]
        return Strip.blank(width, base)
