"""core/textsafe.py: the one sanitiser for untrusted text, fed hostile strings."""
from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from mfact.core.errors import MfactError, error_line, format_error
from mfact.core.textsafe import clean_terminal, escape_markup, json_dumps_safe, mask_controls

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")

# hostile pieces: escape sequences of every family, controls, bidi, Rich markup, plain words
PIECES = [
    "\x1b[31m", "\x1b[2J", "\x1b[?1049h", "\x1b]0;pwned\x07", "\x1b]8;;http://evil\x1b\\", "\x1bP1$r\x1b\\",
    "\x9b31m", "\x1b(B", "\x1bc", "\x1b", "\x07", "\x08", "\r", "\x00", "\x7f", "\x85", "\x9d",
    "\u202e", "\u2066", "\u200f", "\u061c", "[bold]", "[/]", "[link=http://x]", "\\", "\\[b]", "[",
    "]", "\\\\", "[b", "[/", "[@click=x]", "Marie Curie", " ", "\n", "\t", "é", "日本", "मराठी",
]
hostile = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(hostile)
def test_clean_terminal_leaves_no_control_escape_or_bidi(s):
    out = clean_terminal(s)
    assert "\x1b" not in out and "\x9b" not in out
    assert not UNSAFE.search(out)
    # nothing printable is invented: the output is a subsequence of the input
    it = iter(s)
    assert all(ch in it for ch in out)


@settings(max_examples=300, deadline=None)
@given(hostile)
def test_clean_terminal_one_line_has_no_line_break(s):
    out = clean_terminal(s, one_line=True)
    assert "\n" not in out and "\r" not in out and "\t" not in out
    assert not UNSAFE.search(out)


@settings(max_examples=300, deadline=None)
@given(hostile)
def test_mask_controls_keeps_length_and_offsets(s):
    out = mask_controls(s)
    assert len(out) == len(s)
    assert not UNSAFE.search(out) and "\t" not in out
    for a, b in zip(s, out):
        assert a == b or b == " "


@settings(max_examples=1000, deadline=None)
@given(hostile)
def test_escape_markup_renders_literally(s):
    # escaped text is meant to sit inside markup: the tags around it still apply, none inside it
    rendered = Text.from_markup("[bold]" + escape_markup(s) + "[/bold]", emoji=False)
    assert rendered.plain == clean_terminal(s)
    assert [(sp.start, sp.end, str(sp.style)) for sp in rendered.spans if sp.end > sp.start] in (
        [], [(0, len(rendered.plain), "bold")])


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.one_of(hostile, st.integers(), st.none()),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile, inner, max_size=4),
                    max_leaves=12))
def test_json_dumps_safe_round_trips_without_raw_controls(obj):
    out = json_dumps_safe(obj)
    assert json.loads(out) == obj
    assert not UNSAFE.search(out) and "\u2028" not in out and "\u2029" not in out


def test_known_attacks():
    assert clean_terminal("a\x1b]0;title\x07b\x1b[2Jc\u202eevil") == "abcevil"
    assert clean_terminal("line1\nline2\tx") == "line1\nline2\tx"
    assert clean_terminal("a \n\n b", one_line=True) == "a b"
    assert mask_controls("a\x1b[1mb") == "a [1mb"
    assert Text.from_markup(escape_markup("[bold red]x[/]") + "[b]").plain == "[bold red]x[/]"
    assert json_dumps_safe({"t": "\u202egnp.exe"}) == '{"t": "\\u202egnp.exe"}'
    assert json_dumps_safe("é") == '"é"'


def test_one_error_line():
    assert format_error("no model", "give --model") == "no model (give --model)"
    assert format_error("no model") == "no model"
    e = MfactError("no model", "give --model")
    assert str(e) == e.line() == error_line(e) == "no model (give --model)"
    assert error_line(ValueError("bad")) == "bad"
