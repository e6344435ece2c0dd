"""The detector's training examples and articles, their units (words; CJK characters) and label spans,
the constants the data modules share."""
from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field
from ..checking.text.textutil import content_tokens, word_units

HELDOUT_LANGS = ("lt", "ko", "eu")          # never trained on: only in the corruption dev set
XNLI_TRAIN_LANGS = ("en", "es", "fr", "de", "ru", "zh", "ar", "hi", "vi")   # as train_cross.py
KINDS = ("kept", "clause", "entity", "relation", "contradiction", "invented", "unverifiable")
SILVER_LANGS = {"basque": "eu", "cantonese": "yue", "catalan": "ca", "czech": "cs", "esperanto": "eo",
                "finnish": "fi", "french": "fr", "hebrew": "he", "hungarian": "hu", "indonesian": "id",
                "italian": "it", "korean": "ko", "latina": "la", "lithuanian": "lt", "malay": "ms",
                "persian": "fa", "polish": "pl", "portuguese": "pt", "romanian": "ro", "serbian": "sr",
                "sindhi": "sd", "spanish": "es", "urdu": "ur", "vietnamese": "vi"}
MAX_EVIDENCE_SENTENCES = 4


def h32(s: str) -> int:
    return int(hashlib.sha1(s.encode("utf-8")).hexdigest()[:8], 16)


def is_dev_article(lang: str, title: str) -> bool:
    return lang in HELDOUT_LANGS or h32(f"{lang}:{title}") % 10 == 0


@dataclass
class Example:
    sentence: str
    spans: list[tuple[int, int]]          # hallucinated character spans of `sentence`
    evidence: list[str]                   # evidence windows (sentences), in the order shown
    kind: str
    lang: str
    ev_lang: str = ""
    article: str = ""

    def __post_init__(self):
        self.ev_lang = self.ev_lang or self.lang


@dataclass
class Article:
    lang: str
    title: str
    sentences: list[str] = field(default_factory=list)


def units(text: str) -> list[tuple[int, int]]:
    """The labelled units of a text (`textutil.word_units`: whitespace words, CJK characters)."""
    return word_units(text)


def diff_spans(original: str, changed: str) -> list[tuple[int, int]]:
    """Spans of `changed` (units) that are not in `original` (replaced or inserted units)."""
    ua, ub = units(original), units(changed)
    wa = [original[s:e] for s, e in ua]
    wb = [changed[s:e] for s, e in ub]
    out = []
    for op, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if op in ("replace", "insert"):
            out.extend(ub[j1:j2])
    return out


def unit_labels(text: str, spans: list[tuple[int, int]]) -> list[int]:
    return [int(any(s < e2 and s2 < e for s2, e2 in spans)) for s, e in units(text)]


def _terms(text: str) -> set[str]:
    return set(content_tokens(text))


def overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, len(a))


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text).lower().strip()
BAG = [(-1, -1)]          # spans of an example whose hallucinated words are unknown (some word is)
