"""Split pages into passages of about 256 tokens on sentence boundaries, each keeping its section title."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .base import NO_SPACE_LANGS, Page

TARGET_TOKENS = 256

# A sentence ends at . ! ? (and their CJK / Devanagari / Arabic forms) followed by space or end,
# or at a line break. Abbreviations are rare enough in Wikipedia leads not to matter for passage cuts.
_SENT_END = re.compile(r"(?<=[.!?。！？।؟])[\"'»”)\]]*\s+|(?<=[。！？])|\n+")
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass
class Passage:
    section: str
    text: str
    index: int = 0


def approx_tokens(text: str, lang: str = "") -> int:
    """A cheap subword-token estimate: 1.3 per word, or one per 1.5 characters for scripts without spaces."""
    if lang in NO_SPACE_LANGS:
        return max(1, int(len(text.strip()) / 1.5))
    return max(1, int(len(_WORD.findall(text)) * 1.3))


def split_sentences_simple(text: str) -> list[str]:
    return [s.strip() for s in _SENT_END.split(text) if s and s.strip()]


def split_text(text: str, lang: str = "", target: int = TARGET_TOKENS) -> list[str]:
    """Group whole sentences into chunks of at most ~`target` tokens (a longer sentence stands alone)."""
    chunks: list[str] = []
    cur: list[str] = []
    n = 0
    joiner = "" if lang in NO_SPACE_LANGS else " "
    for sent in split_sentences_simple(text):
        t = approx_tokens(sent, lang)
        if cur and n + t > target:
            chunks.append(joiner.join(cur))
            cur, n = [], 0
        cur.append(sent)
        n += t
    if cur:
        chunks.append(joiner.join(cur))
    return chunks


def split_page(page: Page, target: int = TARGET_TOKENS) -> list[Passage]:
    out: list[Passage] = []
    for section, body in page.sections:
        for chunk in split_text(body, page.lang, target):
            out.append(Passage(section=section, text=chunk, index=len(out)))
    return out
