"""The facts in order: number, text, automatic label and confidence, human label, disagreement."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from ..render import Palette, label_text, one_line


class FactTable(DataTable):
    """One row per fact, keyed by fact id. The cursor row is the selected fact."""

    BINDINGS = []  # keys come from the check screen (remappable)

    def __init__(self, **kw):
        super().__init__(cursor_type="row", zebra_stripes=False, **kw)

    def on_mount(self) -> None:
        self.add_column("#", key="n", width=3)
        self.add_column("auto", key="auto", width=9)
        self.add_column("human", key="human", width=5)
        self.add_column("≠", key="dis", width=1)
        self.add_column("fact", key="text")

    def cells(self, n: int, fact, palette: Palette) -> list:
        auto = fact.auto
        auto_t = label_text(auto.label if auto else None, palette,
                            auto.confidence if auto else None)
        human_t = label_text(fact.human.label, palette) if fact.human else Text("")
        dis = Text("≠", style="bold") if fact.disagrees else Text("")
        return [Text(str(n), style="dim"), auto_t, human_t, dis, Text(one_line(fact.text, 300))]

    def upsert(self, n: int, fact, palette: Palette) -> None:
        cells = self.cells(n, fact, palette)
        if fact.id in self.rows:
            for key, value in zip(("n", "auto", "human", "dis", "text"), cells):
                self.update_cell(fact.id, key, value)
        else:
            self.add_row(*cells, key=fact.id)

    def fact_id_at_cursor(self) -> str | None:
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key((self.cursor_row, 0)).row_key
        except Exception:  # noqa: BLE001 - cursor out of range while rows change
            return None
        return key.value
