"""Cleaning model output before checking: markup out, unfinished last sentence out.

Models emit special tokens (`<eos>`, `<start_of_image>`, `<|im_end|>`), HTML tags, terminal escape
sequences and markdown decoration. None of it is a claim; all of it would confuse sentence splitting
and extraction. `clean_text` removes it and keeps the words; `drop_unfinished` cuts an unfinished last
sentence (extractors invent facts from fragments; the semantic-drift paper drops them too).
"""
from __future__ import annotations

import html
import re

from ...textsafe import clean_terminal
from .segment import complete_prefix

# special tokens: <eos>, </s>, <|im_end|>, <start_of_turn>model, <unused12>, [INST], <0x0A>
_SPECIAL = re.compile(
    r"<\|[^<>|\n]{1,60}\|>"
    r"|<(?:start|end)_of_(?:turn|image|text|audio)>(?:model|user|system)?"
    r"|</?(?:s|unk|pad|eos|bos|mask|sep|cls|image_soft_token|think)>"
    r"|<unused\d+>|<extra_id_\d+>|<0x[0-9A-Fa-f]{2}>"
    r"|\[/?(?:INST|SYS)\]|<<SYS>>|<</SYS>>"
)
_BREAK_TAGS = re.compile(r"<\s*(?:br|/p|p|/div|div|/li|li|/h[1-6]|h[1-6]|hr|/tr|tr)\b[^<>]{0,200}>",
                         re.IGNORECASE)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]{0,20}(?:\s[^<>]{0,300})?/?>")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t].*)?$", re.MULTILINE)
_SETEXT = re.compile(r"^[ \t]*(?:={3,}|-{3,}|\*{3,}|_{3,})[ \t]*$", re.MULTILINE)
_BULLET = re.compile(r"^([ \t]*)(?:[-*+•·▪‣◦]|\d{1,2}[.)])[ \t]+", re.MULTILINE)
_EMPHASIS = re.compile(r"(?<![\w*_`~])(\*\*|__|\*|_|`+|~~)(?=\S)(.{1,300}?)(?<=\S)\1(?![\w*_`~])")
_LINK = re.compile(r"\[([^\[\]\n]{1,200})\]\((?:[^()\s]{1,500})\)")
_SPACES = re.compile(r"[ \t\u00a0]{2,}")
_BLANKS = re.compile(r"\n{3,}")


def clean_text(raw: str) -> str:
    """Drop model markup from `raw` and return the readable text (words and line breaks kept)."""
    if not raw:
        return ""
    t = raw.replace("\r\n", "\n").replace("\r", "\n")
    t = _SPECIAL.sub(" ", t)
    t = _HTML_COMMENT.sub(" ", t)
    t = _BREAK_TAGS.sub("\n", t)
    t = _HTML_TAG.sub("", t)
    if "&" in t:
        t = html.unescape(t)
    t = clean_terminal(t.replace("\t", " "))    # escape sequences, controls, bidi controls
    t = _HEADING.sub("", t)
    t = _SETEXT.sub("", t)
    t = _LINK.sub(r"\1", t)
    t = _BULLET.sub(r"\1", t)
    t = _EMPHASIS.sub(r"\2", t)
    t = _SPACES.sub(" ", t)
    t = "\n".join(line.strip() for line in t.split("\n"))
    t = _BLANKS.sub("\n\n", t)
    return t.strip()


def drop_unfinished(text: str, lang: str = "en") -> str:
    """`text` without an unfinished last sentence (one the model did not end with a terminator)."""
    return text[:complete_prefix(text, lang, final=True)]
