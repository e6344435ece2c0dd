"""The text side of a run: segmentation of the (cleaned) stream into sentences."""
from __future__ import annotations

import re

from ..checking import clean_text, complete_prefix, split_sentences
from ..protocols import Sentence

__all__ = ["clean_text", "complete_prefix", "split_sentences", "sentences_of", "norm_sentence"]


def sentences_of(text: str, lang: str) -> list[Sentence]:
    """Sentences of `text` with exact offsets; blank ones dropped."""
    return [s for s in split_sentences(text, lang) if text[s.start:s.end].strip()]


def norm_sentence(s: str) -> str:
    """A sentence's key for the repetition rule: lower case, words only."""
    return re.sub(r"\W+", " ", s.lower()).strip()
