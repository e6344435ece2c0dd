"""Sessions and report: the per-language report (`mfact report`) as a table, a small chart of
FActScore and drift by language, and human-vs-machine agreement (accuracy, kappa, per-language
precision and recall of "not supported", which calibrate the hallucination-rate estimate).

The figures come from `mfact.core.report.build_report`, computed in a thread worker."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Footer, Static

from ..base import MfactScreen
from ..keys import bindings
from ..render import Palette, fmt_num, fmt_pct, one_line

if TYPE_CHECKING:
    from mfact.core.report import Figures, Report

log = logging.getLogger("mfact.tui")

BAR = 24


def bar(value: float | None, width: int = BAR) -> str:
    """A horizontal bar of eighth blocks for a fraction in [0, 1]."""
    if value is None:
        return "·" * width
    v = max(0.0, min(1.0, float(value))) * width
    full = int(v)
    rest = int(round((v - full) * 8))
    if rest == 8:
        full, rest = full + 1, 0
    s = "█" * full + (" ▏▎▍▌▋▊▉"[rest] if rest and full < width else "")
    return s.ljust(width)


def chart_text(report: Report, palette: Palette) -> Text:
    t = Text()
    langs = report.languages or {}
    if not langs:
        t.append("No sessions yet: check a biography first (Esc, then a person and Enter).",
                 style="dim")
        return t
    t.append("FActScore (S/all) and semantic drift by language\n", style="bold")
    for lang, f in langs.items():
        t.append(f"{one_line(lang, 6):<6} ", style="bold")
        t.append("FS ", style="dim")
        t.append(bar(f.factscore), style=palette.label_style("S"))
        t.append(f" {fmt_pct(f.factscore):>5}   ")
        t.append("SD ", style="dim")
        t.append(bar(f.semantic_drift), style=Style(color=palette.drift))
        t.append(f" {fmt_num(f.semantic_drift):>4}")
        t.append(f"   n={f.sessions}\n", style="dim")
    return t


REPORT_COLUMNS = ("language", "model", "n", "abst", "facts/text", "FS S/all", "FS S/(S+NS)",
                  "FS γ", "SD", "drifting", "CaLM", "HR")
AGREE_COLUMNS = ("language", "relabels", "accuracy", "κ", "NS precision", "NS recall", "note")


def report_rows(report: Report) -> list[tuple[str, str, Figures]]:
    rows = []
    for lang, f in (report.languages or {}).items():
        models = f.models or {}
        if len(models) == 1:
            rows.append((lang, next(iter(models)), f))
        else:
            rows.append((lang, "all", f))
            for m, mf in models.items():
                rows.append((lang, m, mf))
    return rows


class ReportScreen(MfactScreen[None]):
    BINDINGS = bindings("report")
    SCOPE = "report"

    def __init__(self):
        super().__init__()
        self.report: Report | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="report-body"):
            yield Static("Computing the report…", id="report-chart")
            yield DataTable(id="report-table", cursor_type="row", zebra_stripes=True)
            yield Static(Text("Human vs machine (facts a person relabelled)", style="bold"),
                         id="agreement-title")
            yield DataTable(id="agreement-table", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#report-table", DataTable).border_title = "per-language report"
        self.query_one("#agreement-table", DataTable).border_title = "agreement"
        self.query_one("#report-body").loading = True
        self._compute()

    @work(thread=True, exclusive=True, group="report", exit_on_error=False)
    def _compute(self) -> None:
        try:
            from mfact.core.report import Report, build_report
            from mfact.core.store import Store
            store = Store(self.mfact.store.path) if self.mfact.store is not None else None
            sessions = list(store.iter_sessions()) if store is not None else []
            if store is not None:
                store.close()
            report = build_report(sessions)
        except Exception as exc:  # noqa: BLE001 - one toast, the screen stays
            log.exception("report failed")
            self.app.call_from_thread(self.notify, f"Report failed: {exc}", severity="error",
                                      markup=False)
            report = Report(languages={})
        self.app.call_from_thread(self.show_report, report)

    def show_report(self, report: Report) -> None:
        self.report = report
        self.query_one("#report-body").loading = False
        pal = Palette.from_theme(self.app.current_theme)
        self.query_one("#report-chart", Static).update(chart_text(report, pal))
        table = self.query_one("#report-table", DataTable)
        table.clear(columns=True)
        table.add_columns(*REPORT_COLUMNS)
        for lang, model, f in report_rows(report):
            table.add_row(lang, Text(one_line(model, 30)), str(f.sessions), str(f.abstentions),
                          fmt_num(f.facts_per_text, 1), fmt_pct(f.factscore),
                          fmt_pct(f.factscore_relevant_only), fmt_pct(f.factscore_gamma),
                          fmt_num(f.semantic_drift), fmt_pct(f.drifting_share),
                          fmt_pct(f.calm.calmscore), fmt_pct(f.hallucination_rate))
        agree = self.query_one("#agreement-table", DataTable)
        agree.clear(columns=True)
        agree.add_columns(*AGREE_COLUMNS)
        for lang, f in (report.languages or {}).items():
            ag, reasons = f.agreement, f.reasons
            note = reasons.agreement or reasons.hallucination_precision or ""
            agree.add_row(lang, str(ag.n), fmt_pct(ag.accuracy), fmt_num(ag.kappa),
                          fmt_pct(f.hallucination_precision), fmt_pct(f.hallucination_recall),
                          Text(one_line(note, 60), style="dim"))

    def action_back(self) -> None:
        self.app.pop_screen()
