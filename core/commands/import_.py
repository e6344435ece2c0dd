"""`mfact import FILE`: mfact session JSON, FActScore labelled-data JSONL, or a benchmark's answers
(Mu-SHROOM JSONL, mFAVA JSON: core/benchmarks.py, the annotators' marks as human labels) into the store.

Everything is read and validated first; any invalid record imports nothing (one error line naming
the file, line and field). Sessions are written in one transaction. Importing the same file again
replaces its sessions (FActScore records get stable ids), unless that would drop human labels set
in the store since (in mfact-tui, perhaps open right now): then it refuses, and `--merge` keeps
the store's human labels while `--replace` takes the file's as they are."""
from __future__ import annotations

from ..errors import MfactError
from ._common import out, plain


def register(sub) -> None:
    p = sub.add_parser("import", help="import sessions (mfact JSON, FActScore, Mu-SHROOM or mFAVA) into the store",
                       description="Import an mfact session JSON file (one session, a list, or "
                                   "{\"sessions\": [...]}), FActScore's labelled-data JSONL (one "
                                   "biography per line, human labels S/NS/IR), or a benchmark's answers "
                                   "with their annotators' marks as human labels: Mu-SHROOM JSONL, mFAVA JSON "
                                   "(silver_<language>.json).")
    p.add_argument("file")
    p.add_argument("--format", choices=["auto", "mfact", "factscore", "mushroom", "mfava"], default="auto",
                   help="file format (default: detected)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--replace", action="store_true",
                   help="replace sessions already in the store even if that drops human labels set there")
    g.add_argument("--merge", action="store_true",
                   help="for sessions already in the store, keep the human labels set there")
    p.set_defaults(func=cmd_import)


def cmd_import(args) -> int:
    from ..formats import read_sessions
    from ..store import Store

    sessions = read_sessions(args.file, None if args.format == "auto" else args.format, empty=True)
    if not sessions:        # an export of an empty store
        out(f"imported 0 sessions from {plain(args.file)} (it holds none)")
        return 0
    store = Store()
    kept = 0
    try:
        store.check_integrity("the import")     # a damaged store takes nothing more
        replaced = 0
        lost: list[tuple[str, int]] = []
        for s in sessions:
            if not store.has_session(s.id):
                continue
            replaced += 1
            there = store.human_labels(s.id)
            mine = {f.id: f for f in s.facts}
            drop = [fid for fid, h in there.items() if h is not None and (
                fid not in mine or (mine_h := mine[fid].human) is None or mine_h.label != h.label)]
            if drop and args.merge:
                for fid in drop:
                    if fid in mine:
                        mine[fid].human = there[fid]
                        kept += 1
            elif drop and not args.replace:
                lost.append((s.id, len(drop)))
        if lost:
            sid, n = lost[0]
            more = f" (and {len(lost) - 1} more sessions)" if len(lost) > 1 else ""
            raise MfactError(f"session {plain(sid)} is in the store with {n} human label{'s' if n != 1 else ''}"
                             f" the file does not have{more}; nothing was imported",
                             "--merge keeps the store's labels, --replace drops them")
        store.save_sessions(sessions)
    finally:
        store.close()
    abst = sum(1 for s in sessions if not s.facts)
    facts = sum(len(s.facts) for s in sessions)
    langs = sorted({s.language for s in sessions})
    out(f"imported {len(sessions)} sessions ({abst} abstentions, {facts} facts; "
        f"{', '.join(langs)}) from {plain(args.file)}"
        + (f"; {replaced} replaced sessions already in the store" if replaced else "")
        + (f"; kept {kept} human label{'s' if kept != 1 else ''} set in the store" if kept else ""))
    return 0
