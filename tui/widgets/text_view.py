"""A scrollable view of one Rich `Text`, wrapped to the width and drawn through Textual's line API.

Replacing its text repaints only this widget: no layout pass of the screen, which is what a
`Static` in a scroll container costs on every update (a full reflow of all three panes). The
streamed biography and the evidence both live in one of these.

`FactText` adds clicks: a span whose style carries `meta={"fact": id}` selects that fact.
"""
from __future__ import annotations

from typing import NamedTuple

from rich._wrap import divide_line
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from ..messages import FactClicked


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """`view.virtual_size = size` without the layout pass of the whole screen that the reactive
    asks for: a pane's size does not depend on its content (the stylesheet fixes it), so only its
    scrollbars and scroll limits change; a scrollbar appearing or going still lays out. While a
    text streams its line count grows every few tokens, and each layout cost several ms."""
    if size == view.virtual_size:
        return
    view.set_reactive(Widget.virtual_size, size)
    if view.is_mounted and view.is_scrollable:
        view._scroll_update(size)


class Wrapped(NamedTuple):
    """A text wrapped into lines of segments, with what `wrap_lines` needs to wrap a longer version
    of it again from its last lines only: the width, and where its last paragraph starts (in
    characters and in lines) and breaks (offsets into that paragraph)."""
    text: Text
    width: int
    lines: list
    para_start: int
    para_line: int
    para_breaks: list


def _appended(old: Text, new: Text) -> bool:
    """`new` is `old` with text (and styles over the new text only) added at the end."""
    if (new.style != old.style or new.justify != old.justify or new.overflow != old.overflow
            or new.no_wrap != old.no_wrap or new.end != old.end or new.tab_size != old.tab_size):
        return False
    n = len(old.plain)
    if len(new.plain) < n or not new.plain.startswith(old.plain):
        return False
    old_spans, new_spans = old.spans, new.spans
    k = len(old_spans)
    return new_spans[:k] == old_spans and all(sp.start >= n for sp in new_spans[k:])


_NULL = Style()


def render_lines(console, options, text: Text) -> list[list[Segment]]:
    """`console.render_lines(text, options, pad=False, new_lines=False)` with every unstyled
    segment given the null style: Rich leaves the runs of a text without styles unstyled and
    gives them the null style when some other part has one; the same on screen, but a part of a
    text rendered alone must give the same segments as the whole."""
    lines = console.render_lines(text, options, pad=False, new_lines=False)
    return [[seg if seg.style is not None or seg.control else Segment(seg.text, _NULL)
             for seg in line] for line in lines]


def wrap_lines(console, options, text: Text, prev: Wrapped | None = None) -> Wrapped:
    """`render_lines(console, options, text)`, line for line the same.

    When `prev` is the same text shorter (a model streaming: tokens appended, nothing restyled
    before them), only its last paragraph's last two lines and what follows are wrapped again:
    Rich wraps greedily, a paragraph at a time, so the lines before the one where the last word
    starts cannot change (tests/test_tui_text_wrap.py checks this against the full render).
    A streamed biography of 3,000 characters wrapped in full 15 times a second cost most of
    the UI's time while the model wrote."""
    width = options.max_width
    plain = text.plain
    usable = (width >= 4 and "\t" not in plain and text.end == "\n" and not text.no_wrap
              and options.overflow == "fold" and not options.no_wrap and text.justify in (None, "default")
              and options.justify in (None, "default") and text.overflow in (None, "fold"))
    lines = None
    if (usable and prev is not None and prev.width == width and prev.para_breaks is not None
            and _appended(prev.text, text)):
        # wrap again from the start of the paragraph's second-to-last line, or from an earlier line
        # where a word starts: a line that starts inside a word folded over several lines would
        # fold differently alone (its trailing spaces make a line of their own in the fold)
        para = prev.text.plain[prev.para_start:]
        lead = len(para) - len(para.lstrip())
        starts = [0] + prev.para_breaks
        restart = max(0, len(starts) - 2)
        while restart > 0:
            b = starts[restart]
            if b > lead and b < len(para) and para[b - 1].isspace() and not para[b].isspace():
                break
            restart -= 1
        cut = prev.para_start + starts[restart]
        keep = prev.para_line + restart
        if len(plain) == len(prev.text.plain):
            lines = prev.lines
        else:
            lines = prev.lines[:keep] + render_lines(console, options, text[cut:])
    if lines is None:
        lines = render_lines(console, options, text)
    if not usable:
        return Wrapped(text, width, lines, 0, 0, None)
    para_start = plain.rfind("\n") + 1
    breaks = divide_line(plain[para_start:], width, fold=True)
    para_line = len(lines) - len(breaks) - 1
    if para_line < 0:
        return Wrapped(text, width, lines, 0, 0, None)
    return Wrapped(text, width, lines, para_start, para_line, breaks)


class TextView(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    TextView { background: $surface; }
    """

    def __init__(self, **kw):
        super().__init__(**kw)
        self._text = Text()
        self._lines: list[list[Segment]] = []
        self._wrapped: Wrapped | None = None
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
        if not self.is_mounted or self.app is None:
            self._lines = []
            self._wrapped = None
            self._strip_cache.clear()
            return
        console = self.app.console
        options = console.options.update(width=width, height=None, no_wrap=False,
                                         overflow="fold", highlight=False, markup=False)
        old = self._lines
        self._wrapped = wrap_lines(console, options, self._text, self._wrapped)
        self._lines = new = self._wrapped.lines
        if self._strip_cache:     # keep the strips of the lines that stayed (all but the last few)
            same = 0
            for same in range(min(len(old), len(new))):
                if old[same] is not new[same]:
                    break
            else:
                same = min(len(old), len(new))
            self._strip_cache = {i: st for i, st in self._strip_cache.items() if i < same}
        set_virtual_size(self, Size(width, len(self._lines)))

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
