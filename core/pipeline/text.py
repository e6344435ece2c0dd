"""The text side of a run: the streamed text, cleaned, cut into sentences as they complete.

`TextStream` is pure (no threads, no clock): feed it chunks, ask it for the text that is safe to
show and for the sentences that completed. The repetition guard and the lead-name rule live here
once; the batch runner (core/batch.py) uses them too.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Sequence

from ..checking import clean_text, complete_prefix, split_sentences
from ..protocols import FactContext, Sentence

__all__ = ["TextStream", "Commit", "clean_text", "complete_prefix", "split_sentences", "sentences_of",
           "norm_sentence", "lead_name", "first_repeat", "sentence_context", "fact_contexts"]

# a markup opener: what follows it may still be removed by cleaning when more text arrives
_OPENERS = re.compile(r"[<\[*_`~&]")


def sentences_of(text: str, lang: str) -> list[Sentence]:
    """Sentences of `text` with exact offsets; blank ones dropped."""
    return [s for s in split_sentences(text, lang) if text[s.start:s.end].strip()]


def sentence_context(sent: Sentence, span: tuple[int, int]) -> FactContext | None:
    """A fact's place in its sentence (`span`: into the full text), None when it is not inside it."""
    ctx = FactContext(sent.text, span[0] - sent.start, span[1] - sent.start)
    return ctx if ctx.valid() else None


def fact_contexts(text: str, lang: str, spans: Sequence[tuple[int, int]]) -> list[FactContext | None]:
    """The context of each fact span of a stored text (`mfact rejudge`): the sentence, as the run
    split the text, that holds the span's start."""
    sents = sentences_of(text, lang)
    starts = [s.start for s in sents]
    out: list[FactContext | None] = []
    for a, b in spans:
        i = bisect.bisect_right(starts, a) - 1
        out.append(sentence_context(sents[i], (a, b)) if i >= 0 else None)
    return out


def norm_sentence(s: str) -> str:
    """A sentence's key for the repetition rule: lower case, words only."""
    return re.sub(r"\W+", " ", s.lower()).strip()


def lead_name(prompt: str, name: str) -> str:
    """The lead-name rule: a completion prompt ends with the name the model continues
    ("... Marie Curie"), so the text starts with it and its first sentence has its subject."""
    return name if name and prompt.endswith(name) else ""


def first_repeat(sentences: list[Sentence], seen: set[str] | None = None) -> int | None:
    """The repetition rule: the index in `sentences` of the first one that repeats an earlier one
    (or one of `seen`, which learns the keys of those before it); None when none does."""
    seen = set() if seen is None else seen
    for i, s in enumerate(sentences):
        key = norm_sentence(s.text)
        if key and key in seen:
            return i
        seen.add(key)
    return None


@dataclass
class Commit:
    """What one `TextStream.commit` took: new sentences, and the sentence that repeated an earlier
    one (the stream stops there) if any."""
    sentences: list[Sentence] = field(default_factory=list)
    repeated: Sentence | None = None


class TextStream:
    """The cleaned text of one run, growing chunk by chunk.

    `raw` is what the model wrote (after the lead name), `clean` the cleaned text, `emitted` the
    part already shown, `committed` the end offset of the last sentence taken for checking."""

    def __init__(self, lang: str, lead: str = "", repeat_guard: bool = True):
        self.lang = lang
        self.repeat_guard = repeat_guard
        self.raw = lead
        self.clean = ""
        self.emitted = ""
        self.committed = 0
        self.sentences: list[Sentence] = []
        self._seen: set[str] = set()

    def feed(self, text: str) -> None:
        if text:
            self.raw += text
            self.clean = clean_text(self.raw)

    def show(self, final: bool) -> str:
        """The new part of the cleaned text that can be shown now ("" if none). What may still
        change when more text arrives is held back: from the first possible markup opener (`<`,
        `[`, `*`, `_`, backtick, `~`, `&`) not yet shown, and a line of fewer than 4 characters (a
        bullet or heading may be starting). Text of sentences taken for checking always shows."""
        text = self.clean
        limit = len(text)
        if not final:
            m = _OPENERS.search(text, len(self.emitted))
            if m:
                limit = m.start()
            line_start = text.rfind("\n") + 1
            if len(text) - line_start < 4:
                limit = min(limit, line_start)
            limit = max(limit, min(self.committed, len(text)))
        if not text.startswith(self.emitted):
            # cleaning changed text already shown (rare): the session's text is authoritative
            common = 0
            for a, b in zip(text, self.emitted):
                if a != b:
                    break
                common += 1
            self.emitted = self.emitted[:common]
        if limit <= len(self.emitted):
            return ""
        delta = text[len(self.emitted):limit]
        self.emitted = text[:limit]
        return delta

    def commit(self, final: bool, whole: bool = False) -> Commit:
        """Take newly completed sentences for checking. While streaming, a sentence counts as
        complete only when something follows its end (so "3." before "5" is not cut); at the end
        (`final`) the unfinished last sentence is dropped unless `whole` (the text ended naturally,
        or was given). With the repetition guard on, a sentence that repeats an earlier one ends
        the commit: it and what follows are not taken."""
        text = self.clean
        if final:
            end = len(text) if whole else complete_prefix(text, self.lang, final=True)
        else:
            end = complete_prefix(text, self.lang)
            if end >= len(text.rstrip()):
                return Commit()    # the boundary is at the very end: wait for the next chunk
        if end <= self.committed:
            return Commit()
        base, n = self.committed, len(self.sentences)
        new = [Sentence(n + i, s.start + base, s.end + base, text[s.start + base:s.end + base])
               for i, s in enumerate(sentences_of(text[base:end], self.lang))]
        self.committed = end
        out = Commit()
        cut = first_repeat(new, self._seen) if self.repeat_guard else None
        if cut is not None:
            out.repeated = new[cut]
            new = new[:cut]
        self.sentences.extend(new)
        out.sentences = new
        return out
