"""A scrollable view of one Rich `Text`, wrapped to the width and drawn through Textual's line API.

Replacing its text repaints only this widget: no layout pass of the screen, which is what a
`Static` in a scroll container costs on every update (a full reflow of all three panes). The
streamed biography and the evidence both live in one of these.

`FactText` adds clicks: a span whose style carries `meta={"fact": id}` selects that fact.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from typing import Iterator, NamedTuple

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
    """A text wrapped into lines of segments, with what `wrap_lines` needs to wrap a changed
    version of it again in part: the width and where each line starts in the text (None: the
    text is of a kind wrapped only in full)."""
    text: Text
    width: int
    lines: list
    starts: list | None


_NULL = Style()


def render_lines(console, options, text: Text) -> list[list[Segment]]:
    """`console.render_lines(text, options, pad=False, new_lines=False)` with every unstyled
    segment given the null style: Rich leaves the runs of a text without styles unstyled and
    gives them the null style when some other part has one, and may leave an empty segment where
    a style ends a line; the same on screen, but a part of a text rendered alone must give the
    same segments as the whole."""
    lines = console.render_lines(text, options, pad=False, new_lines=False)
    return [[seg if seg.style is not None or seg.control else Segment(seg.text, _NULL)
             for seg in line if seg.text or seg.control] for line in lines]


def wrap_options(console, width: int):
    """The console options a pane wraps its text with: `width` cells, long words folded, no markup
    or highlighting (the text is untrusted and already styled)."""
    return console.options.update(width=max(1, width), height=None, no_wrap=False, overflow="fold",
                                  highlight=False, markup=False)


def line_strip(line: list[Segment], width: int, base: Style) -> Strip:
    """One wrapped line as a strip of exactly `width` cells over the widget's `base` style."""
    return Strip(list(Segment.apply_style(line, base))).crop_extend(0, width, base)


def _same_kind(old: Text, new: Text) -> bool:
    return (new.style == old.style and new.justify == old.justify and new.overflow == old.overflow
            and new.no_wrap == old.no_wrap and new.end == old.end and new.tab_size == old.tab_size)


def _appended(old: Text, new: Text) -> bool:
    """`new` is `old` with text (and styles over the new text only) added at the end."""
    n = len(old.plain)
    if len(new.plain) < n or not new.plain.startswith(old.plain):
        return False
    old_spans, new_spans = old.spans, new.spans
    k = len(old_spans)
    return new_spans[:k] == old_spans and all(sp.start >= n for sp in new_spans[k:])


def _restyled(old: Text, new: Text) -> list[tuple[int, int]] | None:
    """The character ranges whose style differs between two texts with the same characters: the
    spans only one of them has. None when the spans both have are not in the same order (Rich
    combines overlapping styles in span order, so anything could differ)."""
    old_spans, new_spans = old.spans, new.spans
    gone = Counter(old_spans)
    gone.subtract(new_spans)
    added = Counter(new_spans)
    added.subtract(old_spans)
    left = {sp: c for sp, c in gone.items() if c > 0}
    came = {sp: c for sp, c in added.items() if c > 0}

    def common(spans, drop):
        drop = dict(drop)
        out = []
        for sp in spans:
            if drop.get(sp, 0) > 0:
                drop[sp] -= 1
            else:
                out.append(sp)
        return out

    if common(old_spans, left) != common(new_spans, came):
        return None
    return [(sp.start, sp.end) for sp in (*left, *came)]


def _line_starts(plain: str, width: int, offset: int = 0) -> list[int]:
    """Where each line of the wrapped `plain` starts (Rich wraps each paragraph greedily)."""
    starts = []
    pos = 0
    for para in plain.split("\n"):
        starts.append(offset + pos)
        starts.extend(offset + pos + b for b in divide_line(para, width, fold=True))
        pos += len(para) + 1
    return starts


def _restart_ok(plain: str, b: int) -> bool:
    """Whether wrapping can start afresh at offset `b` (a line start) and give the same lines: at a
    paragraph's start, or where a word starts after another word (not inside a word folded over
    several lines, whose trailing spaces would fold differently alone)."""
    if b == 0 or plain[b - 1] == "\n":
        return True
    if b >= len(plain) or not plain[b - 1].isspace() or plain[b].isspace():
        return False
    ps = plain.rfind("\n", 0, b) + 1
    return plain[ps:b].strip() != ""


def wrap_lines(console, options, text: Text, prev: Wrapped | None = None) -> Wrapped:
    """`render_lines(console, options, text)`, line for line the same, wrapping again only what
    changed since `prev` (the text shown before) where it can:

    - tokens appended (a model streaming): from the last lines on. Rich wraps each paragraph
      greedily, so the lines before the one where the last word starts cannot change;
    - the same characters restyled (a new selection, a relabel, a verdict): only the lines the
      changed spans touch; wrapping does not depend on styles.

    Anything else, or a part that does not come out as the same number of lines, is wrapped in
    full. tests/test_tui_text_wrap.py checks every path against the full render. A streamed
    biography of 3,000 characters wrapped in full 15 times a second cost most of the UI's time
    while the model wrote, and every key of a big session's 4,000-character window 3 ms or more."""
    width = options.max_width
    plain = text.plain
    usable = (width >= 4 and "\t" not in plain and text.end == "\n" and not text.no_wrap
              and options.overflow == "fold" and not options.no_wrap and text.justify in (None, "default")
              and options.justify in (None, "default") and text.overflow in (None, "fold"))
    if not usable:
        return Wrapped(text, width, render_lines(console, options, text), None)
    lines: list | None = None
    starts: list[int] | None = None
    if (prev is not None and prev.width == width and prev.starts is not None
            and _same_kind(prev.text, text)):
        old = prev.text.plain
        swapped = _swapped_chars(old, plain) if plain != old else []
        if swapped is not None:
            ranges = _restyled(prev.text, text)
            if ranges is not None:
                lines = _rewrap_ranges(console, options, text, prev, ranges + swapped)
                starts = prev.starts
        elif _appended(prev.text, text):
            lines, starts = _wrap_tail(console, options, text, prev, len(prev.starts) - 2)
        else:
            first = _first_difference(prev.text, text)
            if first > 0:
                lines, starts = _wrap_tail(console, options, text, prev, bisect_right(prev.starts, first) - 2)
    if lines is None or starts is None:
        lines = render_lines(console, options, text)
        starts = _line_starts(plain, width)
    if len(starts) != len(lines):        # not as expected: no partial wrap of this text next time
        starts = None
    return Wrapped(text, width, lines, starts)


def _wrap_tail(console, options, text: Text, prev: Wrapped, r: int) -> tuple[list, list]:
    """`prev`'s lines before line `r` (or an earlier one wrapping can restart at), the rest of
    `text` wrapped afresh. Greedy wrapping: a line's end depends on the first word of the next
    line, so `r` is the line before the one holding the first change.

    After an edit inside (a label's word changed, a marker put in), the lines from the first new
    line start past the edit that falls on an old line start (shifted by the edit's length) are the
    old lines: wrapping from a line start depends only on the text from there on."""
    old, plain = prev.text.plain, text.plain
    assert prev.starts is not None        # wrap_lines takes this path only with the line starts
    r = max(0, r)
    while r > 0 and not _restart_ok(old, prev.starts[r]):
        r -= 1
    cut = prev.starts[r]
    starts = _line_starts(plain[cut:], options.max_width, cut)
    same = _resync(prev, text, starts, cut)
    if same is not None:
        m, j = same
        b = starts[m]
        mid = render_lines(console, options, text[cut:b - 1 if plain[b - 1] == "\n" else b])
        if len(mid) == m:
            delta = len(plain) - len(old)
            return prev.lines[:r] + mid + prev.lines[j:], prev.starts[:r] + starts[:m] + [
                x + delta for x in prev.starts[j:]
            ]
    return prev.lines[:r] + render_lines(console, options, text[cut:]), prev.starts[:r] + starts


def _resync(prev: Wrapped, text: Text, starts: list[int], cut: int) -> tuple[int, int] | None:
    """(m, j): the first of the new line `starts` after the edit that is old line start j shifted
    by the edit's length, with the same characters and styles from there on; None if none is."""
    old, plain = prev.text.plain, text.plain
    assert prev.starts is not None
    delta = len(plain) - len(old)
    edit_end = len(plain) - _common_suffix(old, plain)
    for m, b in enumerate(starts):
        if b <= cut or b < edit_end or b - delta < 0:
            continue
        if not (_restart_ok(plain, b) and _restart_ok(old, b - delta)):
            continue                     # a line inside a folded word wraps as its context says
        j = bisect_left(prev.starts, b - delta)
        if j >= len(prev.starts) or prev.starts[j] != b - delta:
            continue
        tail_old = [
            (sp.start - (b - delta), sp.end - (b - delta), sp.style) for sp in prev.text.spans if sp.end > b - delta
        ]
        tail_new = [(sp.start - b, sp.end - b, sp.style) for sp in text.spans if sp.end > b]
        clip = lambda xs: [(max(0, x), y, st) for x, y, st in xs]  # noqa: E731
        return (m, j) if clip(tail_old) == clip(tail_new) else None
    return None


def _swapped_chars(old: str, new: str) -> list[tuple[int, int]] | None:
    """The character ranges where two texts of the same length differ, when each differing
    character keeps its cell width and whether it is a space (so every line keeps its breaks: a
    verdict glyph "…" becoming "✗", "✗" becoming "✓"); None otherwise."""
    if len(old) != len(new):
        return None
    from rich.cells import cell_len

    out: list[tuple[int, int]] = []
    for i in _differing(old, new):
        a, b = old[i], new[i]
        if a.isspace() or b.isspace() or cell_len(a) != cell_len(b):
            return None
        if out and out[-1][1] == i:
            out[-1] = (out[-1][0], i + 1)
        else:
            out.append((i, i + 1))
    return out


def _differing(old: str, new: str, block: int = 64) -> Iterator[int]:
    """The places where two strings of the same length differ, ascending: blocks compared whole
    first (a relabel changes one glyph of a 3,000-character text; a loop over every character
    cost more than the rest of the restyle)."""
    for s in range(0, len(old), block):
        if old[s:s + block] != new[s:s + block]:
            for i in range(s, min(s + block, len(old))):
                if old[i] != new[i]:
                    yield i


def _common_prefix(a: str, b: str, block: int = 64) -> int:
    """The length of the longest common prefix of two strings (blocks compared whole first)."""
    n = min(len(a), len(b))
    i = 0
    while i + block <= n and a[i:i + block] == b[i:i + block]:
        i += block
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _common_suffix(a: str, b: str, block: int = 64) -> int:
    """The length of the longest common suffix of two strings (blocks compared whole first; no
    reversed copies: a streamed text's tail differs at once)."""
    n = min(len(a), len(b))
    i = 0
    while i + block <= n and a[len(a) - i - block:len(a) - i] == b[len(b) - i - block:len(b) - i]:
        i += block
    while i < n and a[len(a) - 1 - i] == b[len(b) - 1 - i]:
        i += 1
    return i


def _first_difference(old: Text, new: Text) -> int:
    """Where two texts first differ, in characters or in the styles of the characters before
    (0 when they differ from the start, or their spans before that point are not the same)."""
    a, b = old.plain, new.plain
    i = _common_prefix(a, b)

    def head(spans):
        return [(sp.start, min(sp.end, i), sp.style) for sp in spans if sp.start < i]

    while i > 0:
        hs_old, hs_new = head(old.spans), head(new.spans)
        if hs_old == hs_new:
            break
        # a style differs before the first changed character: start where the first such span does
        k = next((j for j, (x, y) in enumerate(zip(hs_old, hs_new)) if x != y), min(len(hs_old), len(hs_new)))
        starts = [x[0] for x in hs_old[k:k + 1] + hs_new[k:k + 1]]
        i = min(starts) if starts else 0
    return i


def _rewrap_ranges(console, options, text: Text, prev: Wrapped, ranges: list[tuple[int, int]]):
    """`prev.lines` with the lines that the character ranges touch rendered again (None: render
    everything)."""
    starts, plain = prev.starts, text.plain
    if starts is None:
        return None
    n = len(starts)
    if not ranges:
        return prev.lines
    touched: set[int] = set()
    for a, b in ranges:
        i = max(0, bisect_right(starts, a) - 1)
        j = max(i, bisect_left(starts, max(a + 1, b)))      # lines starting before b
        touched.update(range(i, min(n, j)))
    lines = list(prev.lines)
    for i, j in _runs(sorted(touched)):
        while i > 0 and not _restart_ok(plain, starts[i]):
            i -= 1
        a = starts[i]
        b = starts[j] if j < n else len(plain)
        if j < n and b > a and plain[b - 1] == "\n":
            b -= 1
        part = render_lines(console, options, text[a:b])
        if len(part) != j - i:
            return None
        lines[i:j] = part
    return lines


def _runs(rows: list[int]) -> Iterator[tuple[int, int]]:
    """[first, last + 1) of each run of consecutive numbers."""
    if not rows:
        return
    start = prev = rows[0]
    for r in rows[1:]:
        if r == prev + 1:
            prev = r
        else:
            yield start, prev + 1
            start = prev = r
    yield start, prev + 1


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
        self._recent: dict[str, Wrapped] = {}      # see set_text's `recall`
        self._rows = 0          # while following a growing text: the rows it may grow into

    @property
    def text(self) -> Text:
        return self._text

    @property
    def plain(self) -> str:
        return self._text.plain

    def set_text(self, text: Text, *, follow: bool = False, home: bool = False, recall: int = 0) -> None:
        """Show `text`. `follow`: stay at the end if the view was there; `home`: scroll to top.
        `recall`: keep the wrapped lines of that many recent texts, and wrap a text with the same
        characters as one of them as a restyle of it (the evidence of a fact seen a moment ago)."""
        at_end = self.scroll_offset.y >= self.max_scroll_y - 1
        self._text = text
        old = self._lines
        old_width = self._wrapped_width
        if recall:
            self._remember(recall)
            seen = self._recent.get(text.plain)
            if seen is not None and seen.width == self._wrapped_width and seen is not self._wrapped:
                self._wrapped = seen
                self._strip_cache.clear()
        self._wrap()
        self._fit(follow, at_end)
        self._refresh_changed(old, old_width)
        if home:
            self.scroll_home(animate=False, immediate=True)
        elif follow and at_end:
            self.scroll_end(animate=False, immediate=True)

    def _fit(self, follow: bool, at_end: bool) -> None:
        """The scrollable height. Following a growing text (a model writing) at its end, the view
        scrolls in jumps of a third of the pane, not a line at a time: when the text reaches the
        bottom, blank rows are added below it and the view moves so that the last line sits a third
        of the pane above the bottom. Each scroll repaints the whole pane (13-15 ms a frame here,
        against 2-4 ms for the lines a token changes), so a line at a time made every line of
        text cost one of those frames, and a key pressed then waited for it."""
        n = len(self._lines)
        if not follow:
            self._rows = 0                      # the text's own height (kept for a resize: none)
        elif not at_end:
            self._rows = max(n, self._rows)     # scrolled up by the user: nothing moves
        elif n > self._rows:
            height = max(1, self.scrollable_content_region.height)
            self._rows = n + height // 3 if n >= height else n
        self._scroll_height()

    def _scroll_height(self) -> None:
        """The scrollable size: the wrapped lines, or the rows kept for following, if more."""
        set_virtual_size(self, Size(self._wrapped_width, max(len(self._lines), self._rows)))

    def _remember(self, most: int) -> None:
        """Keep the lines now shown among the recent ones (at most `most`, the oldest dropped)."""
        w = self._wrapped
        if w is None or w.starts is None:
            return
        self._recent.pop(w.text.plain, None)
        self._recent[w.text.plain] = w
        while len(self._recent) > most:
            self._recent.pop(next(iter(self._recent)))

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
        options = wrap_options(console, width)
        old = self._lines
        self._wrapped = wrap_lines(console, options, self._text, self._wrapped)
        self._lines = new = self._wrapped.lines
        if self._strip_cache:     # keep the strips of the lines that stayed where they were
            self._strip_cache = {i: st for i, st in self._strip_cache.items()
                                 if i < len(new) and i < len(old) and old[i] is new[i]}

    def on_resize(self) -> None:
        self._base_style = None
        if self.scrollable_content_region.width != self._wrapped_width:
            self._rows = 0                      # rows padded for the old width: the next text sets them
            self._wrap()
            self._scroll_height()
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
            strip = line_strip(self._lines[i], width, base)
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
