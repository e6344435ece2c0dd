"""Untrusted text made safe to print: the one sanitiser every printed line goes through.

    clean_terminal(text, one_line=False)  escape sequences (CSI, OSC, DCS, ...), C0/C1 controls
                                          (newline and tab kept) and bidi controls removed
    json_dumps_safe(obj, **kw)            JSON whose strings cannot carry a raw DEL, C1 or bidi
                                          control (written as \\uXXXX; json.loads gives them back)
"""
from __future__ import annotations

import json
import re
from typing import Any

BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"                               # CSI
    r"|\x9b[0-?]*[ -/]*[@-~]"                                # 8-bit CSI
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"    # OSC, DCS, SOS, PM, APC up to BEL/ST
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]")                                     # other ESC sequences
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")
_SPACE = re.compile(r"\s+")
_JSON_UNSAFE = re.compile(f"[\x7f-\x9f{BIDI}\u2028\u2029]")


def clean_terminal(text: object, *, one_line: bool = False) -> str:
    s = "" if text is None else str(text)
    if one_line:
        s = _SPACE.sub(" ", s)
    return _UNSAFE.sub("", _SEQUENCE.sub("", s))


def json_dumps_safe(obj: Any, **kwargs: Any) -> str:
    kwargs.setdefault("ensure_ascii", False)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(obj, **kwargs))
