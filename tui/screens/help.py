"""The help screen: every action with its effective key (after the config file's [keys])."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keys import ACTIONS, display_key

SCOPES = (("check", "Check screen"), ("start", "Start screen"), ("report", "Report screen"),
          ("app", "Everywhere"))


def help_table(keymap: dict[str, str]) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False, expand=True)
    table.add_column("key", no_wrap=True, min_width=10)
    table.add_column("action", no_wrap=True)
    table.add_column("what it does", ratio=1)
    for scope, title in SCOPES:
        table.add_row(Text(title, style="bold underline"), "", "")
        for a in ACTIONS:
            if a.scope != scope:
                continue
            table.add_row(Text(display_key(keymap.get(a.id, a.keys))), Text(a.id, style="dim"),
                          Text(a.help))
        table.add_row("", "", "")
    table.add_row(Text("mouse", style="bold"), "", Text("click a fact (list or text) to select it"))
    table.add_row(Text("glyphs", style="bold"), "",
                  Text("✓ supported  ✗ not supported  ○ irrelevant  … pending  ≠ human disagrees"
                       "  ▼drift drift point"))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", id="help_close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(Text("mfact keys (remap them in the config file's [keys] table)",
                              style="bold"))
            yield Static(help_table(getattr(self.app, "keymap", {})), id="help-table")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)
