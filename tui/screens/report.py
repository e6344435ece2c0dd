"""Sessions and report: the per-language report as a table, a small chart of FActScore and drift
by language, and human-vs-machine agreement."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..keys import bindings


class ReportScreen(Screen):
    BINDINGS = bindings("report")
    SCOPE = "report"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="report-body"):
            yield Static("Report", id="report-chart")
        yield Footer()

    def action_back(self) -> None:
        self.app.pop_screen()
