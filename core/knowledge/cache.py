"""The local page cache: every page any source returned, split into passages, with full-text indexes.

One SQLite file (`knowledge.sqlite3` in the user cache dir). Pages are keyed by (source, lang, title);
their passages are indexed by FTS5 with `unicode61 remove_diacritics 2`, and also with the trigram
tokenizer for scripts written without spaces (zh, ja, th). Retrieval ranks passages with FTS5's BM25
restricted to the entity's pages. Everything stored is untrusted text: it is only ever bound as SQL
parameters, and queries against the index are built from quoted tokens.
"""
from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import MfactError
from .base import NO_SPACE_LANGS, Page
from .passages import split_page

_WORD = re.compile(r"\w+", re.UNICODE)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL, lang TEXT NOT NULL, title TEXT NOT NULL,
    url TEXT NOT NULL DEFAULT '', revid INTEGER, qid TEXT,
    fetched_at REAL NOT NULL, sections TEXT NOT NULL,
    UNIQUE (source, lang, title)
);
CREATE TABLE IF NOT EXISTS passages (
    id INTEGER PRIMARY KEY,
    page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL, section TEXT NOT NULL, text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_page ON passages(page_id);
CREATE TABLE IF NOT EXISTS aliases (
    source TEXT NOT NULL, lang TEXT NOT NULL, name TEXT NOT NULL, title TEXT NOT NULL,
    qid TEXT, created_at REAL NOT NULL,
    PRIMARY KEY (source, lang, name)
);
CREATE VIRTUAL TABLE IF NOT EXISTS fts_words USING fts5(
    text, section, title, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS fts_trigram USING fts5(text, section, title, tokenize = 'trigram');
"""


@dataclass
class PassageRow:
    id: int
    page_id: int
    idx: int
    section: str
    text: str
    source: str
    lang: str
    title: str
    url: str


def fts_query(text: str, trigram: bool = False) -> str:
    """An FTS5 MATCH expression OR-ing the quoted tokens of `text` (never FTS syntax from the text)."""
    if trigram:
        s = "".join(text.split())
        grams = {s[i:i + 3] for i in range(max(0, len(s) - 2))}
        toks = sorted(g for g in grams if len(g) == 3)
    else:
        toks = list(dict.fromkeys(t.casefold() for t in _WORD.findall(text)))
        # short words are mostly function words (en, el, la, was, she): they only add noise to BM25
        long_toks = [t for t in toks if len(t) >= 4 or t.isdigit()]
        toks = long_toks or toks
    terms = ['"' + t.replace('"', '""') + '"' for t in toks[:64]]
    if not trigram:
        # a crude cross-lingual stem: long words also match by prefix (Varsovia ~ Varsovie ~ Varsovian)
        terms += ['"' + t[:max(5, len(t) - 2)].replace('"', '""') + '"*' for t in toks[:64]
                  if len(t) >= 7 and not t.isdigit()]
    return " OR ".join(terms)


class PageCache:
    def __init__(self, path: Path | str | None = None):
        from ..paths import cache_dir

        self.path = Path(path) if path else cache_dir() / "knowledge.sqlite3"
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise MfactError(f"knowledge cache {self.path} is not a readable SQLite database ({exc})",
                             "delete the file (`mfact kb prune --all`); it is rebuilt on demand") from None

    # ----------------------------------------------------------------- pages

    def put_page(self, page: Page) -> int:
        """Insert or replace a page and its passages; returns the page id."""
        passages = split_page(page)
        tri = page.lang in NO_SPACE_LANGS
        with self._lock, self._db:
            old = self._db.execute("SELECT id FROM pages WHERE source=? AND lang=? AND title=?",
                                   (page.source, page.lang, page.title)).fetchone()
            if old:
                self._delete_page_rows(old[0])
            cur = self._db.execute(
                "INSERT INTO pages (source, lang, title, url, revid, qid, fetched_at, sections)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (page.source, page.lang, page.title, page.url, page.revid, page.qid, page.fetched_at,
                 json.dumps(page.sections, ensure_ascii=False)))
            pid = int(cur.lastrowid or 0)       # set by the INSERT
            for p in passages:
                c = self._db.execute("INSERT INTO passages (page_id, idx, section, text) VALUES (?,?,?,?)",
                                     (pid, p.index, p.section, p.text))
                table = "fts_trigram" if tri else "fts_words"
                self._db.execute(f"INSERT INTO {table} (rowid, text, section, title) VALUES (?,?,?,?)",
                                 (c.lastrowid, p.text, p.section, page.title))
            return pid

    def _delete_page_rows(self, page_id: int) -> None:
        ids = [r[0] for r in self._db.execute("SELECT id FROM passages WHERE page_id=?", (page_id,))]
        for table in ("fts_words", "fts_trigram"):
            self._db.executemany(f"DELETE FROM {table} WHERE rowid=?", [(i,) for i in ids])
        self._db.execute("DELETE FROM passages WHERE page_id=?", (page_id,))
        self._db.execute("DELETE FROM pages WHERE id=?", (page_id,))

    def get_page(self, source: str, lang: str, title: str) -> tuple[int, Page] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, source, lang, title, url, revid, qid, fetched_at, sections FROM pages"
                " WHERE source=? AND lang=? AND title=?", (source, lang, title)).fetchone()
        return (row[0], _page(row)) if row else None

    def find_pages(self, lang: str, title: str, sources: Iterable[str] | None = None) -> list[tuple[int, Page]]:
        """Cached pages with this title in `lang` (case-insensitive), from any of `sources`."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, source, lang, title, url, revid, qid, fetched_at, sections FROM pages"
                " WHERE lang=? AND title=? COLLATE NOCASE", (lang, title)).fetchall()
        srcs = set(sources) if sources is not None else None
        return [(r[0], _page(r)) for r in rows if srcs is None or r[1] in srcs]

    def suggest(self, prefix: str, lang: str, limit: int = 10) -> list[str]:
        like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT title FROM pages WHERE lang=? AND title LIKE ? ESCAPE '\\' "
                "ORDER BY length(title) LIMIT ?", (lang, like, limit)).fetchall()
        return [r[0] for r in rows]

    def prune(self, older_than_days: float | None = None, source: str | None = None) -> int:
        """Delete pages fetched more than `older_than_days` ago (all when None); returns how many."""
        cutoff = time.time() - older_than_days * 86400 if older_than_days is not None else float("inf")
        with self._lock, self._db:
            q = "SELECT id FROM pages WHERE fetched_at < ?"
            args: list = [cutoff]
            if source:
                q += " AND source = ?"
                args.append(source)
            ids = [r[0] for r in self._db.execute(q, args)]
            for pid in ids:
                self._delete_page_rows(pid)
            self._db.execute("DELETE FROM aliases WHERE created_at < ?", (cutoff,))
        return len(ids)

    def list_pages(self, lang: str | None = None, source: str | None = None) -> list[dict]:
        q = ("SELECT p.source, p.lang, p.title, p.url, p.qid, p.fetched_at, COUNT(s.id) FROM pages p"
             " LEFT JOIN passages s ON s.page_id = p.id WHERE 1=1")
        args: list = []
        if lang:
            q += " AND p.lang = ?"
            args.append(lang)
        if source:
            q += " AND p.source = ?"
            args.append(source)
        q += " GROUP BY p.id ORDER BY p.fetched_at DESC"
        with self._lock:
            rows = self._db.execute(q, args).fetchall()
        return [dict(source=r[0], lang=r[1], title=r[2], url=r[3], qid=r[4], fetched_at=r[5], passages=r[6])
                for r in rows]

    def stats(self) -> dict:
        with self._lock:
            pages = self._db.execute("SELECT source, lang, COUNT(*) FROM pages GROUP BY source, lang").fetchall()
            n_pass = self._db.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.exists())
        return {"path": str(self.path), "pages": sum(r[2] for r in pages), "passages": n_pass,
                "by_source": [{"source": r[0], "lang": r[1], "pages": r[2]} for r in pages],
                "bytes": size}

    # ----------------------------------------------------------------- passages and ranking

    def passages_of(self, page_ids: Sequence[int]) -> list[PassageRow]:
        if not page_ids:
            return []
        q = ",".join("?" * len(page_ids))
        with self._lock:
            rows = self._db.execute(
                "SELECT s.id, s.page_id, s.idx, s.section, s.text, p.source, p.lang, p.title, p.url"
                f" FROM passages s JOIN pages p ON p.id = s.page_id WHERE s.page_id IN ({q})"
                " ORDER BY s.page_id, s.idx", list(page_ids)).fetchall()
        return [PassageRow(*r) for r in rows]

    def bm25(self, query: str, passage_ids: Sequence[int]) -> dict[int, float]:
        """BM25 scores (higher is better) of the passages among `passage_ids` that match `query`."""
        if not passage_ids:
            return {}
        out: dict[int, float] = {}
        ids = ",".join(str(int(i)) for i in passage_ids)
        with self._lock:
            for table, tri in (("fts_words", False), ("fts_trigram", True)):
                expr = fts_query(query, trigram=tri)
                if not expr:
                    continue
                try:
                    rows = self._db.execute(
                        f"SELECT rowid, bm25({table}, 1.0, 0.3, 0.3) FROM {table}"
                        f" WHERE {table} MATCH ? AND rowid IN ({ids})", (expr,)).fetchall()
                except sqlite3.OperationalError:
                    continue
                for rid, score in rows:
                    out[int(rid)] = max(out.get(int(rid), 0.0), -float(score))
        return out

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _page(row) -> Page:
    return Page(source=row[1], lang=row[2], title=row[3], url=row[4], revid=row[5], qid=row[6],
                fetched_at=row[7], sections=[tuple(s) for s in json.loads(row[8])])


_CACHES: dict[str, PageCache] = {}
_CACHES_LOCK = threading.Lock()


def open_cache(path: Path | str | None = None) -> PageCache:
    """The process-wide cache object for `path` (default: the user cache dir's knowledge.sqlite3)."""
    from ..paths import cache_dir

    p = str(Path(path) if path else cache_dir() / "knowledge.sqlite3")
    with _CACHES_LOCK:
        c = _CACHES.get(p)
        if c is None or not Path(p).exists():
            c = _CACHES[p] = PageCache(p)
        return c


class CacheSource:
    """The cache as a lookup source: a person whose pages were fetched before (from Wikipedia, say) is
    found again offline. Its pages are served by the retriever straight from the cache."""
    name = "cache"

    def __init__(self, cache: PageCache | None = None):
        self._cache = cache

    @property
    def cache(self) -> PageCache:
        return self._cache if self._cache is not None else open_cache()

    def languages(self) -> None:
        return None

    def lookup(self, name: str, lang: str):
        from .base import TitleMatch

        pages = self.cache.find_pages(lang, " ".join(name.split()))
        if pages:
            page = pages[0][1]
            return TitleMatch(title=page.title, qid=next((p.qid for _, p in pages if p.qid), None))
        return TitleMatch(suggestions=self.cache.suggest(name[:4], lang, 5) if len(name) >= 4 else [])

    def get_page(self, title: str, lang: str):
        pages = self.cache.find_pages(lang, title)
        return pages[0][1] if pages else None

    def suggest(self, prefix: str, lang: str, limit: int = 10) -> list[str]:
        return self.cache.suggest(prefix, lang, limit)
