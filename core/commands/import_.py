"""`mfact import FILE`: mfact session JSON or FActScore labelled-data JSONL into the store.

Everything is read and validated first; any invalid record imports nothing (one error line naming
the file, line and field). Sessions are written in one transaction. Importing the same file again
replaces its sessions (FActScore records get stable ids)."""
from __future__ import annotations

from ._common import out, plain


def register(sub) -> None:
    p = sub.add_parser("import", help="import sessions (mfact JSON or FActScore JSONL) into the store",
                       description="Import an mfact session JSON file (one session, a list, or "
                                   "{\"sessions\": [...]}) or FActScore's labelled-data JSONL (one "
                                   "biography per line, human labels S/NS/IR).")
    p.add_argument("file")
    p.add_argument("--format", choices=["auto", "mfact", "factscore"], default="auto",
                   help="file format (default: detected)")
    p.set_defaults(func=cmd_import)


def cmd_import(args) -> int:
    from ..formats import read_sessions
    from ..store import Store

    sessions = read_sessions(args.file, None if args.format == "auto" else args.format)
    store = Store()
    try:
        replaced = sum(1 for s in sessions if store.has_session(s.id))
        store.save_sessions(sessions)
    finally:
        store.close()
    abst = sum(1 for s in sessions if not s.facts)
    facts = sum(len(s.facts) for s in sessions)
    langs = sorted({s.language for s in sessions})
    out(f"imported {len(sessions)} sessions ({abst} abstentions, {facts} facts; "
        f"{', '.join(langs)}) from {plain(args.file)}"
        + (f"; {replaced} replaced sessions already in the store" if replaced else ""))
    return 0
