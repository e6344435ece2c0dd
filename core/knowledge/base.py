"""What every knowledge source returns: whole pages, with sections, as untrusted plain text."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol, Sequence, runtime_checkable

from ..languages import NO_SPACES

# Scripts written without spaces between words: their full-text index uses the trigram tokenizer.
NO_SPACE_LANGS = NO_SPACES     # written without spaces (core/languages.py)


@dataclass
class Page:
    source: str                       # wikipedia, zim, factscore-db, offline-vital, web
    lang: str
    title: str
    sections: list[tuple[str, str]]   # (section title, plain text); the lead has title ""
    url: str = ""
    revid: int | None = None
    qid: str | None = None
    fetched_at: float = field(default_factory=time.time)

    @property
    def text(self) -> str:
        parts = []
        for title, body in self.sections:
            parts.append(f"{title}\n{body}" if title else body)
        return "\n\n".join(p for p in parts if p.strip())


@dataclass
class TitleMatch:
    """The result of looking a name up in one source and language."""
    title: str | None = None          # the page for the name, redirects followed
    qid: str | None = None
    choices: list[str] = field(default_factory=list)      # a disambiguation page's entries
    suggestions: list[str] = field(default_factory=list)  # near titles when nothing matched
    description: str = ""


@runtime_checkable
class KnowledgeSource(Protocol):
    name: str

    def languages(self) -> Sequence[str] | None:
        """Languages the source holds (None: any)."""

    def lookup(self, name: str, lang: str) -> TitleMatch:
        """Find the page about `name` in `lang`."""

    def get_page(self, title: str, lang: str) -> Page | None:
        """The page with that title, or None."""

    def suggest(self, prefix: str, lang: str, limit: int = 10) -> list[str]:
        """Titles starting with (or close to) `prefix`."""
