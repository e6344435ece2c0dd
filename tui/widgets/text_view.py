"""A scrollable view of one Rich `Text`, wrapped to the width and drawn through Textual's line API.

Replacing its text repaints only this widget: no layout pass of the screen, which is what a
`Static` in a scroll container costs on every update (a full reflow of all three panes). The
streamed biography and the evidence both live in one of these.

`FactText` adds clicks: a span whose style carries `meta={"fact": id}` selects that fact.
"""
from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..messages import FactClicked


class TextView(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    TextView { background: $surface; }
    """

    def __init__(self, **kw):
        super().__init__(**kw)
        self._text = Text()
        self._lines: list[list[Segment]] = []
        self._wrapped_width = -1
        self._strip_cache: dict[int, Strip] = {}

    @property
    def text(self) -> Text:
        return self._text

    @property
    def plain(self) -> str:
        return self._text.plain

    def set_text(self, text: Text, *, follow: bool = False, home: bool = False) -> None:
        """Show `text`. `follow`: stay at the end if the view was there; `home`: scroll to top."""
        at_end = self.scroll_offset.y >= self.max_scroll_y - 1
        self._text = text
        old = self._lines
        old_width = self._wrapped_width
        self._wrap()
        self._refresh_changed(old, old_width)
        if home:
            self.scroll_home(animate=False, immediate=True)
        elif follow and at_end:
            self.scroll_end(animate=False, immediate=True)

    def _refresh_changed(self, old: list, old_width: int) -> None:
        """Repaint only the visible lines that differ (a relabel restyles a line or two; a streamed
        token changes the last line)."""
        new = self._lines
        if old_width != self._wrapped_width or not self.is_mounted:
            self.refresh()
            return
        top = int(self.scroll_offset.y)
        height = self.scrollable_content_region.height
        width = self.size.width
        changed = [y for y in range(top, top + height)
                   if (old[y] if y < len(old) else None) != (new[y] if y < len(new) else None)]
        if len(changed) > height // 2:
            self.refresh()
            return
        for y in changed:
            self.refresh(Region(0, y - top, width, 1))

    def _wrap(self) -> None:
        width = max(1, self.scrollable_content_region.width)
        self._wrapped_width = width
        self._strip_cache.clear()
        if not self.is_mounted or self.app is None:
            self._lines = []
            return
        console = self.app.console
        options = console.options.update(width=width, height=None, no_wrap=False,
                                         overflow="fold", highlight=False, markup=False)
        self._lines = console.render_lines(self._text, options, pad=False, new_lines=False)
        self.virtual_size = Size(width, len(self._lines))

    def on_resize(self) -> None:
        self._base_style = None
        if self.scrollable_content_region.width != self._wrapped_width:
            self._wrap()
        self._strip_cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strip_cache.clear()
        self._base_style = None

    _base_style = None

    def render_line(self, y: int) -> Strip:
        i = y + int(self.scroll_offset.y)
        width = self.scrollable_content_region.width
        base = self._base_style
        if base is None:
            base = self._base_style = self.rich_style
        if not 0 <= i < len(self._lines):
            return Strip.blank(width, base)
        strip = self._strip_cache.get(i)
        if strip is None:
            strip = Strip(list(Segment.apply_style(self._lines[i], base))).crop_extend(0, width, base)
            self._strip_cache[i] = strip
        return strip


class FactText(TextView):
    """The checked text; clicking a fact's span selects the fact."""

    def on_click(self, event: events.Click) -> None:
        meta = event.style.meta if event.style is not None else {}
        fact_id = meta.get("fact") if meta else None
        if fact_id:
            event.stop()
            self.post_message(FactClicked(str(fact_id)))
