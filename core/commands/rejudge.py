"""`mfact rejudge SESSION_ID|--all [--lang xx] [--retrieve] [--dry-run] [--json]`: new verdicts for
stored sessions, and how many flipped.

Stored sessions are never changed silently when the verifier or the adaptation changes: this
re-runs the configured verifier, with the adaptation learnt from your labels (`mfact learn`;
`--adapt off` leaves it out), on each stored fact against the session's stored evidence, writes
the new automatic verdicts and reports the flips. Human labels are not touched (core/rejudge.py)."""
from __future__ import annotations

import sys
from collections import Counter

from ..errors import MfactError
from ._common import out, plain


def register(sub) -> None:
    from ..options import add_checking_options, add_knowledge_options

    p = sub.add_parser("rejudge", help="re-run the verifier (and your adaptation) on stored sessions",
                       description="Re-run the configured verifier, with the adaptation learnt from your labels, "
                                   "on the facts and evidence of stored sessions; write the new verdicts and "
                                   "report how many flipped. Human labels are never changed.")
    p.add_argument("session_id", nargs="?", metavar="SESSION_ID")
    p.add_argument("--all", action="store_true", help="every stored session (optionally with --lang)")
    p.add_argument("--lang", help="with --all: only sessions in this language")
    p.add_argument("--retrieve", action="store_true",
                   help="sessions with no stored evidence (imported ones): look evidence up in the configured"
                        " sources (with --offline: the bundled ones) and add it to the session")
    p.add_argument("--dry-run", action="store_true", help="report the flips, write nothing")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_knowledge_options(p)
    add_checking_options(p)
    p.set_defaults(func=cmd_rejudge)


def _stages(cfg, retrieve: bool):
    from ..adapt import Adapter
    from ..checking import build_verifier
    from ..embedders import load_embedder
    from ..pipeline.cache import VerdictCache
    from ..pipeline.check import CachedVerifier

    if cfg.verifier == "llm":
        raise MfactError("rejudge runs verifiers that need no model", "use --verifier offline (or lite, nli:<id>)")
    embedder = load_embedder(cfg.embedder)
    verifier = CachedVerifier(build_verifier(cfg, embedder), VerdictCache(), Adapter(mode=cfg.adapt))
    retriever = None
    if retrieve:
        from ..knowledge import build_retriever
        retriever = build_retriever(cfg, embedder)
    return embedder, verifier, retriever


def cmd_rejudge(args) -> int:
    from .. import metrics as M
    from ..options import config_from_args
    from ..pipeline.describe import evidence_langs
    from ..rejudge import apply, rejudge_session
    from ..store import Store

    if bool(args.all) == bool(args.session_id):
        raise MfactError("give either a SESSION_ID or --all", "see `mfact sessions list`")
    cfg = config_from_args(args)
    from ..embedders import embed_alone
    embed_alone()                   # re-checks only: the embedder takes every core
    store = Store()
    try:
        ids = ([s.id for s in store.list_sessions(language=args.lang)][::-1] if args.all
               else [store.resolve_id(args.session_id)])
        embedder, verifier, retriever = _stages(cfg, args.retrieve)
        results = []
        for n, sid in enumerate(ids, 1):
            try:
                session = store.get_session(sid)
            except MfactError:
                continue                      # deleted meanwhile
            res = rejudge_session(session, verifier, k=cfg.k, langs=evidence_langs(cfg, session.language),
                                  embedder=embedder, retriever=retriever)
            if not args.dry_run and session.facts:
                apply(session, res)
                store.update_verdicts(sid, res.verdicts, res.evidence, M.session_metrics(session))
            results.append(res)
            if len(ids) > 20 and (n % 20 == 0 or n == len(ids)) and not args.json:
                print(f"rejudged {n}/{len(ids)} sessions", file=sys.stderr, flush=True)
    finally:
        store.close()
    _report(results, verifier, args)
    return 0


def _flip_text(flips: Counter) -> str:
    return ", ".join(f"{a}->{b} {n}" for (a, b), n in sorted(flips.items(), key=lambda kv: -kv[1]))


def _report(results, verifier, args) -> None:
    flips: Counter = Counter()
    for r in results:
        flips.update(r.flips)
    facts = sum(r.facts for r in results)
    new = sum(r.new for r in results)
    blind = sum(1 for r in results if r.no_evidence and r.facts)
    adaptation = verifier.adapter.current() if verifier.adapter is not None else None
    adapted = sorted(lang for lang, e in adaptation.languages.items() if e.adopted) if adaptation else []
    if args.json:
        from ..textsafe import json_dumps_safe
        out(json_dumps_safe({
            "sessions": [{"id": r.session_id, "facts": r.facts, "flipped": r.flipped, "new": r.new,
                          "flips": {f"{a}->{b}": n for (a, b), n in r.flips.items()},
                          "new_evidence": len(r.evidence), "no_evidence": r.no_evidence} for r in results],
            "facts": facts, "flipped": sum(flips.values()), "new": new, "written": not args.dry_run,
            "verifier": f"{verifier.name}/{verifier.version}",
            "adaptation": adaptation.version if adaptation else None, "adapted_languages": adapted}, indent=2))
        return
    for r in results:
        if r.flipped or r.new:
            out(f"{plain(r.session_id)}  {plain(r.title)}: {r.facts} facts, {r.flipped} flipped"
                + (f" ({_flip_text(r.flips)})" if r.flips else "") + (f", {r.new} new verdicts" if r.new else ""))
    how = (f"adaptation {adaptation.version} (adopted: {', '.join(adapted) or 'no language'})"
           if adaptation else "no adaptation")
    out(f"rejudged {len(results)} session{'s' if len(results) != 1 else ''}, {facts:,} facts with"
        f" {verifier.name}/{verifier.version} and {how}: {sum(flips.values()):,} verdicts flipped"
        + (f" ({_flip_text(flips)})" if flips else "") + (f", {new:,} new" if new else "")
        + ("; --dry-run: nothing written" if args.dry_run else "; human labels untouched"))
    if blind:
        out(f"note: {blind} of these sessions had no stored evidence: their facts were judged without any"
            " (--retrieve looks evidence up in the configured sources)")
