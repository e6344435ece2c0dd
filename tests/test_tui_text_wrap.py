"""The text pane wraps a streamed text again from its last lines only (tui/widgets/text_view.py
`wrap_lines`): after any sequence of appends, restylings and edits inside (verdict glyphs swapped,
a drift marker put in) the lines are exactly those of a full render, for any width, with wide
characters, long words, paragraphs and styles."""
from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from rich.text import Text

from mfact.tui.widgets.text_view import render_lines, wrap_lines, wrap_options

PIECES = ["Marie", " ", "Curie", "  ", "was", "born", "in", "Warsaw", ".", ",", "\n", "\n\n", "出生于华沙",
          "ওয়ারশ", "x" * 37, "🙂", "radioactivity", "1867", " — ", "a", "ab"]
STYLES = [Style(color="red"), Style(bold=True, underline=True), Style(bgcolor="blue", meta={"fact": "f1"}),
          Style(italic=True)]


def console() -> Console:
    return Console(width=200, color_system="truecolor", force_terminal=True, legacy_windows=False)


def full(con: Console, text: Text, width: int):
    options = con.options.update(width=width, height=None, no_wrap=False, overflow="fold",
                                 highlight=False, markup=False)
    return options, render_lines(con, options, text)


def test_render_lines_only_fills_in_the_null_style():
    con = console()
    text = Text("Marie Curie was born in Warsaw in 1867 and won two Nobel prizes.")
    text.stylize("bold red", 6, 11)
    options, lines = full(con, text, 20)
    rich = con.render_lines(text, options, pad=False, new_lines=False)
    assert [[(s.text, s.style or Style()) for s in line] for line in rich] == \
        [[(s.text, s.style) for s in line] for line in lines]
    assert all(s.style is not None for line in lines for s in line)


def styled(rng: random.Random, plain: str, spans: list) -> Text:
    t = Text(plain)
    for a, b, style in spans:
        t.stylize(style, a, b)
    return t


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), width=st.integers(1, 70), steps=st.integers(1, 40))
@example(seed=0, width=5, steps=6)      # a line inside a folded CJK word taken as a resync point
def test_streamed_wrap_equals_full_render(seed, width, steps):
    rng = random.Random(seed)
    con = console()
    plain = ""
    spans: list = []
    prev = None
    for _ in range(steps):
        r = rng.random()
        if r < 0.75:                       # tokens arrive
            add = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))
            if rng.random() < 0.3:         # styled from where the old text ended (a glyph, a span)
                spans.append((len(plain), len(plain) + rng.randint(1, len(add)), rng.choice(STYLES)))
            plain += add
        elif plain and r < 0.85:           # a fact's span gets its colour (the text before restyled)
            a = rng.randrange(len(plain))
            spans.append((a, min(len(plain), a + rng.randint(1, 40)), rng.choice(STYLES)))
        elif spans and r < 0.93:           # the selection moves: one span changes its style
            k = rng.randrange(len(spans))
            spans[k] = (spans[k][0], spans[k][1], rng.choice(STYLES))
        elif spans and r < 0.96:           # a span goes (a relabel drops an NS underline)
            spans.pop(rng.randrange(len(spans)))
        elif plain:                        # an edit inside: a verdict glyph replaced, a drift marker put in
            a = rng.randrange(len(plain))
            cut = min(len(plain), a + rng.choice([0, 1, 1, 2]))
            put = rng.choice(["✗", "✓", "…", "?", " ▼drift ", "", "出", "\n", "x"])
            plain = plain[:a] + put + plain[cut:]
            delta = len(put) - (cut - a)
            spans = [(x if x < cut else x + delta, y if y <= a else max(a, y + delta), st_)
                     for x, y, st_ in spans]
            spans = [(x, y, st_) for x, y, st_ in spans if y > x]
        text = styled(rng, plain, spans)
        options, want = full(con, text, width)
        got = wrap_lines(con, options, text, prev)
        assert got.lines == want
        prev = got


def test_appending_reuses_the_lines_before():
    con = console()
    words = ("Marie Curie was a physicist and chemist who conducted pioneering research on "
             "radioactivity. ") * 20
    options, _ = full(con, Text(words[:100]), 40)
    prev = wrap_lines(con, options, Text(words[:100]))
    for n in range(110, len(words), 7):
        text = Text(words[:n])
        got = wrap_lines(con, options, text, prev)
        assert got.lines == full(con, text, 40)[1]
        assert got.lines[0] is prev.lines[0]      # not rendered again
        prev = got
    restyled = Text(words)
    restyled.stylize("bold", 0, 5)
    got = wrap_lines(con, options, restyled, prev)
    assert got.lines == full(con, restyled, 40)[1] and got.lines[0] is not prev.lines[0]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 80), start=st.integers(0, 600), size=st.integers(0, 300),
       sort=st.booleans())
def test_facts_in_window_by_binary_search(seed, n, start, size, sort):
    """The window of a long text finds the same facts through the span index as by looking at each."""
    from mfact.core.session import Fact
    from mfact.tui.render import SpanIndex, facts_in_window

    rng = random.Random(seed)
    facts = []
    for i in range(n):
        a = rng.randint(0, 500)
        facts.append(Fact(id=f"f{i}", text="x", sentence=0, span=(a, a + rng.choice([0, 1, 5, 40, 400]))))
    if sort:
        facts.sort(key=lambda f: f.span[0])
    index = SpanIndex(facts)
    want = facts_in_window(facts, start, start + size)
    assert facts_in_window(facts, start, start + size, index) == want
    assert want == [i for i, f in enumerate(facts) if f.span[1] > start and f.span[0] < start + size]
    assert not index.fits(facts + [])


def test_a_verdict_glyph_or_marker_inside_rewraps_only_from_its_line():
    """"…" becoming "✗" in the middle of a long text renders only the line it is on; a marker put
    in renders from the line before it on, not the lines above."""
    con = console()
    words = "".join(f"Marie Curie wrote paper number {i} on radioactivity.… " for i in range(40))
    options, _ = full(con, Text(words), 40)
    prev = wrap_lines(con, options, Text(words))
    k = words.index("…", len(words) // 2)
    swapped = Text(words[:k] + "✗" + words[k + 1:])
    got = wrap_lines(con, options, swapped, prev)
    assert got.lines == full(con, swapped, 40)[1]
    assert sum(a is not b for a, b in zip(got.lines, prev.lines)) == 1
    marked = Text(words[:k] + "✗ ▼drift" + words[k + 1:])
    again = wrap_lines(con, options, marked, got)
    assert again.lines == full(con, marked, 40)[1]
    assert again.lines[0] is got.lines[0] and again.lines[len(again.lines) // 3] is got.lines[len(again.lines) // 3]
    # in paragraphs, the lines after the edited one are the old ones, shifted
    paras = "".join(f"Marie Curie wrote paper number {i} on radioactivity.… " + ("\n" if i % 4 == 3 else "")
                    for i in range(40))
    prev = wrap_lines(con, options, Text(paras))
    k = paras.index("…", len(paras) // 2)
    edited = Text(paras[:k] + "✓ supported" + paras[k + 1:])
    got = wrap_lines(con, options, edited, prev)
    assert got.lines == full(con, edited, 40)[1]
    assert got.lines[-1] is prev.lines[-1] and sum(x is not y for x, y in zip(got.lines[::-1], prev.lines[::-1])) <= 6



def test_block_compares_find_every_difference():
    from mfact.tui.widgets.text_view import _common_prefix, _common_suffix, _swapped_chars

    base = "".join(chr(ord("a") + i % 26) for i in range(200))
    for where in ([0], [63], [64], [127, 128], [5, 70, 199], []):
        changed = list(base)
        for i in where:
            changed[i] = "Z"
        new = "".join(changed)
        assert _swapped_chars(base, new) == [r for r in _runs_of(where)]
        assert _common_prefix(base, new) == (min(where) if where else len(base))
        assert _common_suffix(base, new) == (len(base) - 1 - max(where) if where else len(base))
    assert _common_prefix(base, base[:130]) == 130 and _common_prefix("", base) == 0
    assert _common_suffix(base, base[70:]) == 130 and _common_suffix("xy" + base, base) == 200
    assert _common_suffix(base, base + "!") == 0 and _common_suffix(base, "") == 0
    assert _swapped_chars(base, base[:-1] + " ") is None          # a space: the line breaks may move
    assert _swapped_chars(base, base + "x") is None


def _runs_of(places: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for i in places:
        if out and out[-1][1] == i:
            out[-1] = (out[-1][0], i + 1)
        else:
            out.append((i, i + 1))
    return out


@pytest.mark.anyio
async def test_following_a_growing_text_scrolls_in_jumps_and_shows_the_last_line():
    from textual.app import App

    from mfact.tui.widgets.text_view import TextView

    class Host(App):
        def compose(self):
            yield TextView()

    app = Host()
    async with app.run_test(size=(40, 16)) as pilot:
        view = app.query_one(TextView)
        height = view.scrollable_content_region.height
        offsets = []
        words = []
        for i in range(400):
            words.append(f"w{i}")
            view.set_text(Text(" ".join(words)), follow=True)
            n = len(view._lines)
            top = int(view.scroll_offset.y)
            assert top <= n - 1 < top + height, (i, top, n)           # the last line is in view
            if not offsets or offsets[-1] != top:
                offsets.append(top)
        lines = len(view._lines)
        assert lines > 3 * height
        assert len(offsets) <= (lines - height) // (height // 3) + 2    # a jump per third of the pane
        # (the first jump may come back a line: the scrollbar appearing narrows the text)
        assert all(b - a >= height // 3 for a, b in zip(offsets[2:], offsets[3:])), (height, offsets)
        view.scroll_home(animate=False, immediate=True)                  # the user scrolled up: stays
        await pilot.pause()
        view.set_text(Text(" ".join(words + ["more"] * 30)), follow=True)
        assert view.scroll_offset.y == 0
        view.set_text(Text(" ".join(words)), follow=False)               # finished: no blank rows left
        assert view.virtual_size.height == len(view._lines)


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_the_evidence_of_a_fact_seen_before_is_restyled_not_wrapped_again():
    from textual.app import App

    from mfact.tui.widgets.evidence_view import EvidenceView

    def passage(word: str, n: int, hot: tuple[int, int] | None = None) -> Text:
        t = Text(" ".join(f"{word}{i} was born in Warsaw in 1867." for i in range(n)))
        if hot:
            t.stylize(Style(bold=True), *hot)
        return t

    class Host(App):
        def compose(self):
            yield EvidenceView()

    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(EvidenceView)
        a, b = passage("Maria", 30), passage("Pierre", 25)
        view.show(a)
        await pilot.pause()
        first = list(view._lines)
        view.show(b)
        view.show(passage("Maria", 30, hot=(40, 46)))      # back to the first fact: one word bolder
        again = view._lines
        options = wrap_options(app.console, view.scrollable_content_region.width)
        assert again == render_lines(app.console, options, passage("Maria", 30, hot=(40, 46)))
        kept = sum(1 for x, y in zip(first, again) if x is y)
        assert len(again) > 10 and kept >= len(again) - 2      # only the restyled line is new
        view.show(passage("Maria", 31))                        # other characters: wrapped afresh
        assert view._lines == render_lines(app.console, options, passage("Maria", 31))
