"""The streaming text with fact spans coloured by label; clicking a span selects its fact."""
from __future__ import annotations

from textual import events
from textual.widgets import Static

from ..messages import FactClicked


class FactText(Static):
    """Renders a Rich `Text` built by `render.fact_text`; spans carry their fact id as style meta."""

    def on_click(self, event: events.Click) -> None:
        meta = event.style.meta if event.style is not None else {}
        fact_id = meta.get("fact") if meta else None
        if fact_id:
            event.stop()
            self.post_message(FactClicked(str(fact_id)))
