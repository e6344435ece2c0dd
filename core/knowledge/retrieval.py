"""Hybrid passage retrieval over the entity's pages from every configured source.

For a fact about an entity, in languages `langs` (default: the session language and English):

1. the entity's page in each language is taken from each source (the local cache first; live
   Wikipedia pages are refreshed after `cache_max_age_days`), stored in the page cache and split
   into ~256-token passages. The bundled offline articles hold only lead paragraphs, so for them
   every bundled language (en, es, fr) is searched.
2. the passages are ranked by a hybrid of BM25 (FTS5, restricted to those pages) and the dense
   similarity of the `Embedder` (passage vectors cached on disk) to the query `{entity} {fact}`.
3. the top k become `Evidence`, each with source, language, title, URL, section, score and a stable
   id (a hash of source, language, title and text).

Web results (SearXNG) are per fact rather than per entity, and join the same ranking.
"""
from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..errors import MfactError
from ..protocols import Embedder, Stage
from ..session import Entity, Evidence
from .base import KnowledgeSource, Page
from .cache import PageCache, PassageRow, open_cache
from .entities import fallback_notice

log = logging.getLogger("mfact.knowledge")
_WORDS = re.compile(r"\w+", re.UNICODE)

DENSE_WEIGHT = 0.75      # hybrid score = 0.75 * cosine + 0.25 * BM25 / best BM25 among the candidates
LIVE_SOURCES = {"wikipedia", "web"}


def evidence_id(source: str, lang: str, title: str, text: str) -> str:
    h = hashlib.sha1("\x1f".join((source, lang, title, text)).encode("utf-8", "surrogatepass")).hexdigest()
    return "ev-" + h[:16]


def default_langs(lang: str, cfg_langs: Sequence[str] | None = None) -> list[str]:
    if cfg_langs:
        return list(dict.fromkeys(cfg_langs))
    return list(dict.fromkeys([lang, "en"]))


@dataclass
class _Candidates:
    rows: list[PassageRow]
    vectors: np.ndarray
    built_at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class CachePolicy:
    """How the retriever uses the page cache: a live source's page cached more than `max_age_days`
    ago is fetched again; `use_cache`: also serve pages cached earlier by sources not in use now."""
    max_age_days: float = 30.0
    use_cache: bool = True


class HybridRetriever(Stage):
    """A `Retriever` over the configured knowledge sources; safe to call from several threads."""

    def __init__(self, sources: Sequence[KnowledgeSource], embedder: Embedder | None,
                 cache: PageCache | None = None, policy: CachePolicy = CachePolicy(),
                 web=None, dense_weight: float = DENSE_WEIGHT):
        self.sources = list(sources)
        self.embedder = embedder
        self._cache = cache
        self.max_age_days = policy.max_age_days
        self.web = web
        self.use_cache = policy.use_cache     # also serve pages cached earlier by sources not in use now
        self.dense_weight = dense_weight if embedder is not None else 0.0
        self.notices: list[str] = []
        self._lock = threading.Lock()
        self._fetch_lock = threading.Lock()
        self._pages: dict[tuple, list[int]] = {}
        self._cands: dict[tuple, _Candidates] = {}
        self.stats = {"page_hits": 0, "page_fetches": 0}

    def describe(self) -> dict[str, Any]:
        return {"sources": [s.name for s in self.sources]}

    @property
    def cache(self) -> PageCache:
        return self._cache if self._cache is not None else open_cache()

    def notice(self, text: str) -> None:
        with self._lock:
            if text not in self.notices:
                self.notices.append(text)
                log.info("notice: %s", text)

    def skipped(self, source: str, lang: str, exc: Exception) -> None:
        """A source that failed to answer: its evidence is left out (a notice says which and why)."""
        why = exc.message if isinstance(exc, MfactError) else f"its reply could not be read ({type(exc).__name__})"
        if not isinstance(exc, MfactError):
            log.debug("%s failed in '%s'", source, lang, exc_info=True)
        self.notice(f"{source}: {why}; its '{lang}' evidence is skipped")

    # ------------------------------------------------------------------ pages of an entity

    def _title_for(self, src: KnowledgeSource, entity: Entity, lang: str) -> str | None:
        if src.name == "wikipedia" and entity.titles:
            # titles come from the language links: no link means no page in that language
            return entity.titles.get(lang)
        names = [entity.titles.get(lang), entity.name, entity.titles.get("en")]
        for name in dict.fromkeys(n for n in names if n):
            try:
                m = src.lookup(name, lang)
            except Exception as exc:  # noqa: BLE001 - one bad reply skips this source, never the check
                self.skipped(src.name, lang, exc)
                return None
            if m.title:
                return m.title
        return None

    def _page_id(self, src: KnowledgeSource, title: str, lang: str) -> int | None:
        cache = self.cache
        got = cache.get_page(src.name, lang, title)
        live = src.name in LIVE_SOURCES
        if got and (not live or time.time() - got[1].fetched_at < self.max_age_days * 86400):
            self.stats["page_hits"] += 1
            return got[0]
        try:
            page = src.get_page(title, lang)
        except Exception as exc:  # noqa: BLE001 - one bad reply skips this source, never the check
            self.skipped(src.name, lang, exc)
            page = None
        if page is None:
            return got[0] if got else None      # a stale cached copy beats nothing
        self.stats["page_fetches"] += 1
        return cache.put_page(page)

    def entity_page_ids(self, entity: Entity, langs: Sequence[str]) -> list[int]:
        key = (entity.name, tuple(sorted(entity.titles.items())), tuple(langs))
        with self._lock:
            if key in self._pages:
                return self._pages[key]
        with self._fetch_lock:       # one thread gathers an entity's pages; the others wait and reuse them
            with self._lock:
                if key in self._pages:
                    return self._pages[key]
            return self._gather(entity, langs, key)

    def _gather(self, entity: Entity, langs: Sequence[str], key: tuple) -> list[int]:
        ids: list[int] = []
        found_langs: set[str] = set()
        for src in self.sources:
            if src.name == "cache":      # cached pages are gathered below, whatever source they came from
                continue
            src_langs = list(langs)
            held = src.languages()
            if src.name == "offline-vital" and held:
                src_langs += [lg for lg in held if lg not in src_langs]   # leads only: use every language
            for lang in src_langs:
                if held is not None and lang not in held:
                    continue
                title = self._title_for(src, entity, lang)
                if not title:
                    continue
                pid = self._page_id(src, title, lang)
                if pid is not None and pid not in ids:
                    ids.append(pid)
                    found_langs.add(lang)
        # pages cached earlier by a source that is not reachable now (e.g. Wikipedia while offline)
        active = {s.name for s in self.sources if s.name != "cache"}
        for lang in (langs if self.use_cache else ()):
            for name in dict.fromkeys(n for n in (entity.titles.get(lang), entity.name) if n):
                for pid, page in self.cache.find_pages(lang, name):
                    if page.source not in active and pid not in ids and page.source != "web":
                        ids.append(pid)
                        found_langs.add(lang)
        if langs and langs[0] not in found_langs:
            others = [lg for lg in langs[1:] if lg in found_langs] or sorted(found_langs)
            if others:
                self.notice(fallback_notice(entity.name, langs[0], others))
        with self._lock:
            self._pages[key] = ids
        return ids

    # ------------------------------------------------------------------ ranking

    def _candidates(self, page_ids: Sequence[int]) -> _Candidates:
        key = tuple(page_ids)
        with self._lock:
            c = self._cands.get(key)
        if c is not None:
            return c
        rows = self.cache.passages_of(page_ids)
        if self.embedder is not None and rows:
            vecs = self.embedder.embed_passages([_embed_text(r) for r in rows])
        else:
            vecs = np.zeros((len(rows), 1), dtype=np.float32)
        c = _Candidates(rows, np.asarray(vecs, dtype=np.float32))
        with self._lock:
            self._cands[key] = c
            if len(self._cands) > 64:
                self._cands.pop(next(iter(self._cands)))
        return c

    def rank(self, query: str, cands: _Candidates, k: int, lexical_query: str | None = None
             ) -> list[tuple[PassageRow, float]]:
        """Hybrid ranking. BM25 uses `lexical_query` (the fact without the entity's name, which every
        candidate passage shares) when given; the dense part uses `query` ({entity} {fact})."""
        if not cands.rows:
            return []
        bm = self.cache.bm25(lexical_query if lexical_query is not None else query, [r.id for r in cands.rows])
        best = max(bm.values(), default=0.0)
        lexical = np.array([bm.get(r.id, 0.0) / best if best > 0 else 0.0 for r in cands.rows], dtype=np.float32)
        if self.dense_weight > 0 and self.embedder is not None:
            q = self.embedder.embed_queries([query])[0]
            dense = cands.vectors @ q
        else:
            dense = np.zeros(len(cands.rows), dtype=np.float32)
        score = self.dense_weight * dense + (1.0 - self.dense_weight) * lexical
        order = np.argsort(-score, kind="stable")[:k]
        return [(cands.rows[i], float(score[i])) for i in order]

    def prepare(self, entity: Entity | str, langs: Sequence[str]) -> list[str]:
        """Gather the entity's pages and embed their passages now, as `retrieve` does first for any
        fact about the entity (e.g. while its text is being generated: core/batch.py). Returns the
        texts of the passages, which the evidence of every fact will be drawn from (web results
        excepted: they depend on the fact)."""
        if isinstance(entity, str):
            entity = Entity(name=entity)
        langs = list(dict.fromkeys(langs)) or ["en"]
        cands = self._candidates(list(self.entity_page_ids(entity, langs)))
        return [r.text for r in cands.rows]

    def retrieve(self, entity: Entity | str, fact: str, langs: Sequence[str], k: int = 8) -> list[Evidence]:
        if isinstance(entity, str):
            entity = Entity(name=entity)
        langs = list(dict.fromkeys(langs)) or ["en"]
        query = f"{entity.name} {fact}".strip()
        page_ids = list(self.entity_page_ids(entity, langs))
        if self.web is not None:
            page_ids += [pid for pid in self._web_pages(query, langs[0]) if pid not in page_ids]
        cands = self._candidates(page_ids)
        out: list[Evidence] = []
        seen: set[str] = set()
        name_words = {w.casefold() for w in _WORDS.findall(" ".join([entity.name, *entity.titles.values()]))}
        lexical = " ".join(w for w in _WORDS.findall(fact) if w.casefold() not in name_words)
        for row, score in self.rank(query, cands, k * 2, lexical_query=lexical):
            eid = evidence_id(row.source, row.lang, row.title, row.text)
            if eid in seen:
                continue
            seen.add(eid)
            out.append(Evidence(id=eid, source=row.source, lang=row.lang, title=row.title, text=row.text,
                                url=row.url, section=row.section, score=round(score, 6)))
            if len(out) >= k:
                break
        return out

    def _web_pages(self, query: str, lang: str) -> list[int]:
        try:
            pages: list[Page] = self.web.search_pages(query, lang)
        except MfactError as exc:
            self.notice(f"web: {exc.message}")
            return []
        return [self.cache.put_page(p) for p in pages]


def _embed_text(row: PassageRow) -> str:
    head = row.title + (f" — {row.section}" if row.section and row.section != "description" else "")
    return f"{head}: {row.text}"
