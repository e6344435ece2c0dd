"""FActScore's knowledge database (`enwiki-20230401.db`): SQLite table `documents(title, text)`, each
article's passages joined by `####SPECIAL####SEPARATOR####`. Read directly (read-only), English only."""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from urllib.parse import quote

from ..errors import MfactError
from .base import Page, TitleMatch

NAME = "factscore-db"
SEPARATOR = "####SPECIAL####SEPARATOR####"


class FactScoreDB:
    name = NAME

    def __init__(self, path: str | Path, lang: str = "en"):
        self.path = Path(path).expanduser()
        self.lang = lang
        if not self.path.exists():
            raise MfactError(f"FActScore database {self.path} does not exist", "check the --factscore-db path")
        try:
            self._db = sqlite3.connect(f"file:{quote(str(self.path.resolve()))}?mode=ro", uri=True,
                                       check_same_thread=False)
            cols = {r[1] for r in self._db.execute("PRAGMA table_info(documents)")}
        except sqlite3.DatabaseError as exc:
            raise MfactError(f"FActScore database {self.path} cannot be read ({exc})",
                             "the file is damaged or not an SQLite database") from None
        if not {"title", "text"} <= cols:
            raise MfactError(f"FActScore database {self.path} has no table documents(title, text)",
                             "give FActScore's enwiki-20230401.db")
        self._lock = threading.Lock()

    def languages(self) -> list[str]:
        return [self.lang]

    def _query(self, sql: str, args: tuple) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.DatabaseError as exc:
                raise MfactError(f"FActScore database {self.path} cannot be read ({exc})",
                                 "the file is damaged") from None

    def _exact(self, name: str) -> str | None:
        for cand in dict.fromkeys([name, name[:1].upper() + name[1:], name.title()]):
            if self._query("SELECT title FROM documents WHERE title = ?", (cand,)):
                return cand
        return None

    def lookup(self, name: str, lang: str) -> TitleMatch:
        if lang != self.lang:
            return TitleMatch()
        title = self._exact(" ".join(name.split()))
        if title:
            return TitleMatch(title=title)
        return TitleMatch(suggestions=self.suggest(name, lang, 5))

    def get_page(self, title: str, lang: str) -> Page | None:
        if lang != self.lang:
            return None
        rows = self._query("SELECT text FROM documents WHERE title = ?", (title,))
        if not rows:
            return None
        parts = [p.replace("<s>", "").replace("</s>", "").strip() for p in str(rows[0][0]).split(SEPARATOR)]
        sections = [("", p) for p in parts if p]
        if not sections:
            return None
        return Page(source=NAME, lang=lang, title=title, sections=sections,
                    url=f"https://en.wikipedia.org/wiki/{quote(title.replace(' ', '_'))}")

    def suggest(self, prefix: str, lang: str, limit: int = 10) -> list[str]:
        if lang != self.lang or not prefix.strip():
            return []
        p = prefix.strip()
        p = p[:1].upper() + p[1:]
        rows = self._query("SELECT title FROM documents WHERE title >= ? AND title < ? ORDER BY title LIMIT ?",
                           (p, p + "\U0010ffff", limit))
        return [r[0] for r in rows]
