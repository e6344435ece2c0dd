"""Untrusted text (model output, Wikipedia passages, imported files, names) made safe to show.

Text from outside is data, never instructions to the terminal or to Rich. Every place that shows
such text goes through one of these functions:

    clean_terminal(text)            for a terminal: escape sequences, C0/C1 controls (newline and
                                    tab kept) and bidi controls removed; `one_line=True` also
                                    folds every run of whitespace into one space
    mask_controls(text)             the same characters each replaced by a space, so offsets into
                                    the text stay valid (the TUI highlights spans by offset)
    escape_markup(text)             literal text inside Rich markup
    json_dumps_safe(obj)            JSON whose strings cannot carry a raw bidi or C1 control
"""
from __future__ import annotations

import json
import re
from typing import Any

# Bidi embeddings, overrides, isolates and marks: they reorder what the reader sees.
BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# C0 controls (tab and newline apart), DEL, C1 controls, bidi controls.
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")
_UNSAFE_BUT_NEWLINE = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{BIDI}]")
# Whole escape sequences: CSI (7- and 8-bit), the string commands OSC/DCS/SOS/PM/APC up to their
# terminator (BEL or ST), and the other ESC sequences (intermediates then a final byte).
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x1b][\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"     # to BEL/ST, or all of it
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
)
# Rich's markup: a backslash run before what looks like a tag escapes it by its parity, and in
# plain text "\[" stands for "[". Each bracket is written so that it comes back literally.
_BRACKET = re.compile(r"(\\*)(\[[a-z#/@][^\[]*?\])|(\\+)\[")
_SPACE_RUN = re.compile(r"\s+")
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{BIDI}\u2028\u2029]")


def clean_terminal(text: object, *, one_line: bool = False) -> str:
    """`text` with terminal escape sequences, control characters (newline and tab kept) and bidi
    controls removed. `one_line`: every run of whitespace (line breaks included) becomes one space."""
    s = "" if text is None else str(text)
    if one_line:
        s = _SPACE_RUN.sub(" ", s)
    s = _SEQUENCE.sub("", s)
    return _UNSAFE.sub("", s)


def mask_controls(text: object) -> str:
    """`text` with every control character but newline (tab included) and every bidi control
    replaced by a space: the same length, so offsets into the text stay valid."""
    return _UNSAFE_BUT_NEWLINE.sub(" ", "" if text is None else str(text))


def escape_markup(text: object) -> str:
    """`text` cleaned for the terminal, to put between Rich markup tags (`f"[b]{escape_markup(x)}[/b]"`):
    it renders literally, no tag inside it applies, and a trailing backslash cannot escape the
    closing tag. (Print with emoji=False too, or `:name:` codes in the text become emoji.)"""
    s = _BRACKET.sub(_escape_bracket, clean_terminal(text))
    return s + "\\" * (len(s) - len(s.rstrip("\\")))


def _escape_bracket(m: re.Match) -> str:
    if m.group(2) is not None:                 # a tag: an odd run of backslashes makes it text
        return m.group(1) * 2 + "\\" + m.group(2)
    return m.group(3) + "\\["                  # backslashes before a plain "[": one more


def escape_json_text(text: str) -> str:
    """JSON text (any number of documents or lines) with DEL, C1 controls, bidi controls and the
    line/paragraph separators inside its strings written as \\uXXXX escapes (they cannot occur
    outside strings): the same data for a JSON reader, nothing that steers a terminal."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_dumps_safe(obj: Any, **kwargs: Any) -> str:
    """`json.dumps(obj, ensure_ascii=False, **kwargs)` with DEL, C1 controls, bidi controls and the
    line/paragraph separators written as \\uXXXX escapes, so printing the JSON cannot reorder or
    steer the terminal; `json.loads` gives back the same data."""
    kwargs.setdefault("ensure_ascii", False)
    out = json.dumps(obj, **kwargs)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
