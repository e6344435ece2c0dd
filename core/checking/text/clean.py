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


_RUN = re.compile(r"\S+")
NEAR_WORD = 1000    # raw characters a cleaned word is looked for ahead before it is matched letter by letter
NEAR_CHAR = 400     # ... and each letter of a word cleaning changed (`AT&amp;T`, `foo<b>bar`)


def given_offsets(raw: str, clean: str) -> list[int]:
    """Where each character of `clean` (`clean_text(raw)` or a part of it from its start) came
    from in `raw`: a list of len(clean) + 1 positions of `raw`, increasing, the last one the end of
    what `clean` covers. Cleaning only drops and replaces markup, so each word of `clean` is found in
    `raw` after the one before it; a word cleaning changed (an entity unescaped, a tag dropped inside
    it) is matched letter by letter, and a character cleaning made (a space for a special token) sits
    where the raw text is then. A span (a, b) of `clean` is `raw[out[a]:out[b - 1] + 1]`."""
    out = [0] * (len(clean) + 1)
    at = 0                                      # the next raw character not yet matched
    last = 0                                    # where `clean`'s characters before the run stopped
    for m in _RUN.finditer(clean):
        for i in range(last, m.start()):        # the spaces before the word: where the raw text is
            out[i] = at
        word = m.group()
        found = raw.find(word, at, at + NEAR_WORD + len(word))
        if found >= 0:
            for k in range(len(word)):
                out[m.start() + k] = found + k
            at = found + len(word)
        else:
            for k, ch in enumerate(word):
                hit = raw.find(ch, at, at + NEAR_CHAR)
                out[m.start() + k] = hit if hit >= 0 else min(at, max(0, len(raw) - 1))
                if hit >= 0:
                    at = hit + 1
        last = m.end()
    for i in range(last, len(clean) + 1):      # trailing spaces and the end
        out[i] = min(at, len(raw))
    return out


def given_span(offsets: list[int], a: int, b: int) -> tuple[int, int]:
    """The span of the raw text that the span (a, b) of the cleaned text came from (`given_offsets`)."""
    if b <= a:
        return (offsets[a], offsets[a])
    return (offsets[a], offsets[b - 1] + 1)
