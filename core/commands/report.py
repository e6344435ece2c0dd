"""`mfact report`: per-language (and per-model) figures over the store, or per rarity / region.

    mfact report [--lang en,es] [--by rarity|region] [--json | --csv | --markdown] [-o FILE]
    mfact report --html -o report.html      (tables and charts in one page: core/html_report.py)
"""
from __future__ import annotations

import sys

from typing import TYPE_CHECKING

from ..errors import MfactError

if TYPE_CHECKING:  # pragma: no cover
    from ..session import Session


def register(sub) -> None:
    p = sub.add_parser("report", help="per-language tables over the stored sessions",
                       description="Sessions, abstentions, facts per text, FActScore (IR as not supported, "
                                   "relevant-only, with gamma), semantic drift, CaLMScore, "
                                   "hallucination-rate estimate and human-vs-machine agreement per language "
                                   "and model, or per group of entity.attributes (--by).")
    p.add_argument("--lang", help="only these languages (comma-separated codes)")
    p.add_argument("--by", choices=["rarity", "region"], help="group by an entity attribute")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", dest="fmt", action="store_const", const="json")
    fmt.add_argument("--csv", dest="fmt", action="store_const", const="csv")
    fmt.add_argument("--markdown", dest="fmt", action="store_const", const="markdown")
    fmt.add_argument("--html", dest="fmt", action="store_const", const="html",
                     help="a self-contained web page: the tables and charts (FActScore by language with "
                          "bootstrap intervals, hallucination rate, by rarity or region, the drift curve)")
    p.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")
    p.add_argument("--no-p-value", dest="p_value", action="store_false",
                   help="skip the permutation test (faster on large stores)")
    p.set_defaults(func=cmd_report, fmt="table")


def cmd_report(args) -> int:
    from ..languages import UnknownLanguage, get_language
    from ..report import build_report, render_csv, render_json, render_markdown, render_table
    from ..store import Store

    langs = None
    if args.lang:
        try:
            langs = [get_language(c.strip()).code for c in args.lang.split(",") if c.strip()]
        except UnknownLanguage as exc:
            raise MfactError(str(exc)) from None
    store = Store()
    try:
        sessions: list[Session] = []
        codes: list[str | None] = list(langs) if langs else [None]
        for code in codes:
            sessions.extend(store.iter_sessions(language=code))
    finally:
        store.close()
    if args.fmt == "html":
        return _html(sessions, langs, args)
    report = build_report(sessions, by=args.by, languages=langs, p_value=args.p_value)
    if args.fmt == "table" and not args.output:
        render_table(report)
        return 0
    if args.fmt == "json":
        text = render_json(report) + "\n"
    elif args.fmt == "csv":
        text = render_csv(report)
    elif args.fmt == "markdown":
        text = render_markdown(report)
    else:
        import io

        from rich.console import Console

        buf = io.StringIO()
        render_table(report, Console(file=buf, width=120, color_system=None))
        text = buf.getvalue()
    if args.output:
        from ..formats import atomic_write

        atomic_write(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _html(sessions: list, langs: list[str] | None, args) -> int:
    from ..html_report import report_page

    page = report_page(sessions, languages=langs, p_value=args.p_value)
    if not args.output or args.output == "-":
        sys.stdout.write(page)
        return 0
    from ..formats import atomic_write
    from ._common import out, plain

    path = atomic_write(args.output, page)
    out(f"wrote the report to {plain(str(path))} (open {plain(path.resolve().as_uri())})")
    return 0
