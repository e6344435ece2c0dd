"""The facts in order: number, automatic label and confidence, human label, a mark where they
disagree, the fact's text. One line per fact, rendered through Textual's line API with a cache per
row, so a label change or a new fact re-renders one line, not the whole list (a DataTable here
re-rendered every visible cell on each update and cost the stream most of its frame time)."""
from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..render import Palette, label_text, one_line
from .text_view import set_virtual_size

HEADER = "  #  auto       human ≠ fact"


def fact_row(n: int, fact, palette: Palette) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f"{n:>3} ", style="dim")
    auto = fact.auto
    a = label_text(auto.label if auto else None, palette, auto.confidence if auto else None)
    a.pad_right(max(0, 10 - a.cell_len))
    t.append_text(a)
    t.append(" ")
    h = label_text(fact.human.label, palette) if fact.human else Text("")
    h.pad_right(max(0, 5 - h.cell_len))
    t.append_text(h)
    t.append(" ")
    t.append("≠" if fact.disagrees else " ", style="bold")
    t.append(" ")
    t.append(one_line(fact.text, 400))
    return t


class FactList(ScrollView, can_focus=True):
    """A cursor over the facts; posts `FactList.Highlighted` when the cursor moves and
    `FactList.Chosen` on a second click on the same fact."""

    DEFAULT_CSS = """
    FactList { background: $surface; }
    """

    @dataclass
    class Highlighted(Message):
        fact_id: str

    @dataclass
    class Chosen(Message):
        fact_id: str

    def __init__(self, **kw):
        super().__init__(**kw)
        self.ids: list[str] = []
        self._index: dict[str, int] = {}
        self._texts: list[Text | tuple] = []     # a Text, or (n, fact, palette) not built yet
        self._versions: list[int] = []
        self._cache: dict[int, tuple[tuple, Strip]] = {}
        self.cursor: int | None = None

    # ------------------------------------------------------------------ content

    def clear(self) -> None:
        self.ids, self._index, self._texts, self._versions = [], {}, [], []
        self._cache.clear()
        self.cursor = None
        set_virtual_size(self, Size(0, 0))
        self.refresh()

    def set_rows(self, facts, palette: Palette) -> None:
        """Show exactly these facts, numbered from 1 (the cursor stays on its fact if it is among
        them). One layout and one repaint for all: 20,000 `upsert`s took a second."""
        cursor = self.fact_id_at_cursor()
        self.ids = [f.id for f in facts]
        self._index = {fid: i for i, fid in enumerate(self.ids)}
        self._texts = [(n, f, palette) for n, f in enumerate(facts, 1)]
        self._versions = [0] * len(self.ids)
        self._cache.clear()
        self.cursor = self._index.get(cursor) if cursor is not None else None
        set_virtual_size(self, Size(self.size.width, len(self.ids)))
        self.refresh()

    def upsert(self, n: int, fact, palette: Palette) -> None:
        # the row's Text is built when the row is first drawn: opening 20,000 facts builds only
        # the visible ones (building all took seconds)
        text = (n, fact, palette)
        i = self._index.get(fact.id)
        if i is None:
            i = len(self.ids)
            self._index[fact.id] = i
            self.ids.append(fact.id)
            self._texts.append(text)
            self._versions.append(0)
            set_virtual_size(self, Size(self.size.width, len(self.ids)))
        else:
            self._texts[i] = text
            self._versions[i] += 1
        self._refresh_row(i)

    def __contains__(self, fact_id: str) -> bool:
        return fact_id in self._index

    @property
    def row_count(self) -> int:
        return len(self.ids)

    def index_of(self, fact_id: str) -> int | None:
        return self._index.get(fact_id)

    # ------------------------------------------------------------------ cursor

    def move_to(self, fact_id: str | None, post: bool = False) -> None:
        i = self._index.get(fact_id) if fact_id is not None else None
        if i == self.cursor:
            return
        old = self.cursor
        self.cursor = i
        if old is not None:
            self._refresh_row(old)
        if i is not None:
            self._refresh_row(i)
            self.scroll_to_region(Region(0, i, max(1, self.size.width), 1), animate=False,
                                  immediate=True)
            if post:
                self.post_message(self.Highlighted(self.ids[i]))

    def fact_id_at_cursor(self) -> str | None:
        return self.ids[self.cursor] if self.cursor is not None else None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:      # on the border or a scrollbar
            return
        row = offset.y + int(self.scroll_offset.y)
        if 0 <= row < len(self.ids):
            fid = self.ids[row]
            if self.cursor == row:
                self.post_message(self.Chosen(fid))
            else:
                self.move_to(fid, post=True)

    # ------------------------------------------------------------------ rendering

    def _refresh_row(self, i: int) -> None:
        y = i - int(self.scroll_offset.y)
        if 0 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def on_resize(self) -> None:
        self._cache.clear()
        self._base_style = None
        self.virtual_size = Size(self.size.width, len(self.ids))

    def render_line(self, y: int) -> Strip:
        i = y + int(self.scroll_offset.y)
        width = self.size.width
        base = self._base_style
        if base is None:
            base = self._base_style = self.rich_style
        if not 0 <= i < len(self.ids):
            return Strip.blank(width, base)
        selected = i == self.cursor
        key = (self._versions[i], width, selected, self.has_focus, base)
        hit = self._cache.get(i)
        if hit is not None and hit[0] == key:
            return hit[1]
        row = self._texts[i]
        if isinstance(row, tuple):
            row = self._texts[i] = fact_row(*row)
        text = row.copy()
        text.truncate(width, overflow="ellipsis", pad=True)
        if selected:
            sel = Style(bgcolor=self.app.current_theme.variables.get("fact-selected", "#34405e"),
                        bold=True) if self.has_focus else Style(reverse=True, dim=False)
            text.stylize(sel)
        segments = [Segment(s.text, base + s.style if s.style else base)
                    for s in text.render(self.app.console, end="")]
        strip = Strip(segments, width).crop_extend(0, width, base)
        self._cache[i] = (key, strip)
        return strip

    _base_style: Style | None = None

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base_style = None
        self._cache.clear()

    def on_focus(self) -> None:
        self._cache.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._cache.clear()
        self.refresh()
