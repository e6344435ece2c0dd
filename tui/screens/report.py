"""Sessions and report: the per-language report (`mfact report`) as a table, a small chart of
FActScore and drift by language, and human-vs-machine agreement (accuracy, kappa, per-language
precision and recall of "not supported", which calibrate the hallucination-rate estimate).

The figures come from `mfact.core.report.build_report`, computed in a thread worker."""
from __future__ import annotations

import logging

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ..keys import bindings
from ..render import Palette, fmt_num, fmt_pct, one_line

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


def chart_text(report: dict, palette: Palette) -> Text:
    t = Text()
    langs = report.get("languages") or {}
    if not langs:
        t.append("No sessions yet: check a biography first (Esc, then a person and Enter).",
                 style="dim")
        return t
    t.append("FActScore (S/all) and semantic drift by language\n", style="bold")
    for lang, f in langs.items():
        t.append(f"{one_line(lang, 6):<6} ", style="bold")
        t.append("FS ", style="dim")
        t.append(bar(f.get("factscore")), style=palette.label_style("S"))
        t.append(f" {fmt_pct(f.get('factscore')):>5}   ")
        t.append("SD ", style="dim")
        t.append(bar(f.get("semantic_drift")), style=Style(color=palette.drift))
        t.append(f" {fmt_num(f.get('semantic_drift')):>4}")
        t.append(f"   n={f.get('sessions', 0)}\n", style="dim")
    return t


REPORT_COLUMNS = ("language", "model", "n", "abst", "facts/text", "FS S/all", "FS S/(S+NS)",
                  "FS γ", "SD", "drifting", "CaLM", "HR")
AGREE_COLUMNS = ("language", "relabels", "accuracy", "κ", "NS precision", "NS recall", "note")


def report_rows(report: dict) -> list[tuple[str, str, dict]]:
    rows = []
    for lang, f in (report.get("languages") or {}).items():
        models = f.get("models") or {}
        if len(models) == 1:
            rows.append((lang, next(iter(models)), f))
        else:
            rows.append((lang, "all", f))
            for m, mf in models.items():
                rows.append((lang, m, mf))
    return rows


class ReportScreen(Screen):
    BINDINGS = bindings("report")
    SCOPE = "report"

    def __init__(self):
        super().__init__()
        self.report: dict | None = None

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
            from mfact.core.report import build_report
            from mfact.core.store import Store
            store = Store(self.app.store.path) if self.app.store is not None else None
            sessions = list(store.iter_sessions()) if store is not None else []
            if store is not None:
                store.close()
            report = build_report(sessions)
        except Exception as exc:  # noqa: BLE001 - one toast, the screen stays
            log.exception("report failed")
            self.app.call_from_thread(self.notify, f"Report failed: {exc}", severity="error",
                                      markup=False)
            report = {"languages": {}}
        self.app.call_from_thread(self.show_report, report)

    def show_report(self, report: dict) -> None:
        self.report = report
        self.query_one("#report-body").loading = False
        pal = Palette.from_theme(self.app.current_theme)
        self.query_one("#report-chart", Static).update(chart_text(report, pal))
        table = self.query_one("#report-table", DataTable)
        table.clear(columns=True)
        table.add_columns(*REPORT_COLUMNS)
        for lang, model, f in report_rows(report):
            calm = (f.get("calm") or {}).get("calmscore")
            table.add_row(lang, Text(one_line(model, 30)), str(f.get("sessions", 0)),
                          str(f.get("abstentions", 0)), fmt_num(f.get("facts_per_text"), 1),
                          fmt_pct(f.get("factscore")), fmt_pct(f.get("factscore_relevant_only")),
                          fmt_pct(f.get("factscore_gamma")), fmt_num(f.get("semantic_drift")),
                          fmt_pct(f.get("drifting_share")), fmt_pct(calm),
                          fmt_pct(f.get("hallucination_rate")))
        agree = self.query_one("#agreement-table", DataTable)
        agree.clear(columns=True)
        agree.add_columns(*AGREE_COLUMNS)
        for lang, f in (report.get("languages") or {}).items():
            ag = f.get("agreement") or {}
            reasons = f.get("reasons") or {}
            note = reasons.get("agreement") or reasons.get("hallucination_precision") or ""
            agree.add_row(lang, str(ag.get("n", 0)), fmt_pct(ag.get("accuracy")),
                          fmt_num(ag.get("kappa")), fmt_pct(f.get("hallucination_precision")),
                          fmt_pct(f.get("hallucination_recall")), Text(one_line(note, 60),
                                                                       style="dim"))

    def action_back(self) -> None:
        self.app.pop_screen()
