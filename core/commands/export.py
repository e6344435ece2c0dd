"""`mfact export SESSION_ID|--all -o FILE [--format mfact|factscore|spans|pairs|mushroom|html]`: written atomically.

`html` writes one self-contained web page (core/html_session.py); with `--all`, `-o` names a folder
that gets a page per session and `index.html`.

`spans` writes one JSON line per session: `{"id", "text", "spans": [[start, end, "NS", p], ...]}`, the
hallucination spans (the union of the not-supported facts' spans, sorted, non-overlapping), each
with its p(hallucinated) (metrics.session_ns_spans_p). `mushroom` writes one Mu-SHROOM prediction
per session, `{"id", "lang", "model_input", "model_output_text", "hard_labels", "soft_labels"}`,
which the shared task's scorer reads.
`pairs` writes one JSON line per fact a person labelled, `{"claim", "evidence", "lang", "label",
"id", "entity"}`: training data for any model (and input for `mfact verify-pairs`)."""
from __future__ import annotations

import sys

from ..errors import MfactError
from ._common import out, plain


def register(sub) -> None:
    p = sub.add_parser("export", help="export sessions as mfact JSON, FActScore JSONL, hallucination spans,"
                                      " labelled claim/evidence pairs or web pages",
                       description="Write one session (or --all) to FILE atomically (a temporary file, "
                                   "then a rename: never a half-written file). '-o -' writes to stdout.")
    p.add_argument("session_id", nargs="?", metavar="SESSION_ID")
    p.add_argument("--all", action="store_true", help="every session (optionally with --lang)")
    p.add_argument("--lang", help="with --all: only sessions in this language")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the file to write ('-' for stdout); with --all --format html, a folder")
    p.add_argument("--format", choices=["mfact", "factscore", "spans", "pairs", "mushroom", "html"], default="mfact",
                   help="mfact JSON, FActScore JSONL, spans: one {id, text, spans} line per session (each "
                        "span [start, end, \"NS\", p]), pairs: one {claim, evidence, lang, label} line per fact "
                        "you labelled, mushroom: Mu-SHROOM predictions {id, lang, model_input, "
                        "model_output_text, hard_labels, soft_labels}, or "
                        "html: a web page that opens anywhere (with --all: a folder with an index page)")
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
    if args.format == "html":
        return _export_html(sessions, args)
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
    what = f"{len(sessions)} session{'s' if len(sessions) != 1 else ''}"
    if args.format == "pairs":
        n = sum(1 for s in sessions for f in s.facts if f.human is not None)
        what = f"{n} labelled fact{'s' if n != 1 else ''} of {what}"
    out(f"exported {what} to {plain(str(path))} ({args.format})")
    return 0


def _export_html(sessions: list, args) -> int:
    from ..formats import atomic_write
    from ..html_session import page_names, session_page, write_pages

    if args.all:
        if args.output == "-":
            raise MfactError("--all --format html writes a folder", "give -o FOLDER")
        index = write_pages(sessions, args.output)
        names = set(page_names(sessions))
        n = sum(1 for f in index.parent.iterdir() if f.name in names)      # the pages that are there
        out(f"exported {n} session page{'s' if n != 1 else ''} to "
            f"{plain(str(index.parent))} (open {plain(index.resolve().as_uri())})")
        return 0
    page = session_page(sessions[0])
    if args.output == "-":
        sys.stdout.write(page)
        return 0
    path = atomic_write(args.output, page)
    out(f"exported 1 session to {plain(str(path))} (html; open {plain(path.resolve().as_uri())})")
    return 0
