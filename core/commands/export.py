"""`mfact export SESSION_ID|--all -o FILE [--format mfact|factscore|spans]`: written atomically.

`spans` writes one JSON line per session: `{"id", "text", "spans": [[start, end, "NS"], ...]}`, the
hallucination spans (the union of the not-supported facts' spans, sorted, non-overlapping)."""
from __future__ import annotations

import sys

from ..protocols import MfactError
from ._common import out, plain


def register(sub) -> None:
    p = sub.add_parser("export", help="export sessions as mfact JSON, FActScore JSONL or hallucination spans",
                       description="Write one session (or --all) to FILE atomically (a temporary file, "
                                   "then a rename: never a half-written file). '-o -' writes to stdout.")
    p.add_argument("session_id", nargs="?", metavar="SESSION_ID")
    p.add_argument("--all", action="store_true", help="every session (optionally with --lang)")
    p.add_argument("--lang", help="with --all: only sessions in this language")
    p.add_argument("-o", "--output", required=True, metavar="FILE")
    p.add_argument("--format", choices=["mfact", "factscore", "spans"], default="mfact",
                   help="mfact JSON, FActScore JSONL, or spans: one {id, text, spans} line per session")
    p.set_defaults(func=cmd_export)


def cmd_export(args) -> int:
    from ..formats import dumps_sessions, write_sessions
    from ..store import Store

    if bool(args.all) == bool(args.session_id):
        raise MfactError("give either a SESSION_ID or --all", "see `mfact sessions list`")
    store = Store()
    try:
        if args.all:
            sessions = list(store.iter_sessions(language=args.lang))
        else:
            sessions = [store.get_session(store.resolve_id(args.session_id))]
    finally:
        store.close()
    if args.format == "mfact":
        # the stored figures may predate relabels made since: export them from the effective labels
        from .. import metrics as M

        for s in sessions:
            s.metrics.update(M.session_metrics(s, p_value=True))
    single = not args.all
    if args.output == "-":
        from ..textsafe import escape_json_text
        # stdout may be a terminal: no bidi override or C1 control reaches it raw (JSON escapes)
        sys.stdout.write(escape_json_text(dumps_sessions(sessions, args.format,
                                                         single if args.format == "mfact" else None)))
        return 0
    path = write_sessions(sessions, args.output, args.format, single if args.format == "mfact" else None)
    out(f"exported {len(sessions)} session{'s' if len(sessions) != 1 else ''} to {plain(str(path))}"
        f" ({args.format})")
    return 0
