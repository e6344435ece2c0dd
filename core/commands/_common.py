"""Helpers shared by the foundation commands (not a command: the name starts with `_`)."""
from __future__ import annotations

import sys

from ..textsafe import clean_terminal


def plain(text: object, one_line: bool = True) -> str:
    """Untrusted text (from models, Wikipedia, imported files) made safe for a terminal: no escape
    sequences or control characters (bidi overrides included); one line unless asked otherwise."""
    return clean_terminal(text, one_line=one_line)


def out(line: str = "") -> None:
    """Print one line of output through the sanitiser (core/textsafe.py): no escape sequence,
    control or bidi character reaches the terminal, whatever the line holds."""
    from ..textsafe import clean_terminal

    sys.stdout.write(clean_terminal(line) + "\n")


def pct(v: float | None, digits: int = 1) -> str:
    return "—" if v is None else f"{100 * v:.{digits}f}"
