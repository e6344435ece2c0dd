"""`mfact sessions list|show|delete|rename`: the sessions in the store."""
from __future__ import annotations


from ..errors import MfactError
from ..textsafe import json_dumps_safe
from ._common import out, pct, plain


def register(sub) -> None:
    p = sub.add_parser("sessions", help="list, show, delete or rename stored sessions")
    ss = p.add_subparsers(dest="sessions_action", metavar="ACTION", required=True)
    lp = ss.add_parser("list", help="list sessions, newest first")
    lp.add_argument("--lang", help="only this language")
    lp.add_argument("--limit", type=int)
    lp.add_argument("--json", action="store_true", help='print {"sessions": [summary, ...]}')
    lp.set_defaults(func=cmd_list)
    sp = ss.add_parser("show", help="show one session with its facts and labels")
    sp.add_argument("session_id")
    sp.add_argument("--json", action="store_true", help="the session JSON (mfact.session/1)")
    sp.set_defaults(func=cmd_show)
    dp = ss.add_parser("delete", help="delete sessions")
    dp.add_argument("session_ids", nargs="+", metavar="SESSION_ID")
    dp.set_defaults(func=cmd_delete)
    rp = ss.add_parser("rename", help="give a session a title")
    rp.add_argument("session_id")
    rp.add_argument("name")
    rp.set_defaults(func=cmd_rename)


def _store():
    from ..store import Store

    return Store()


def cmd_list(args) -> int:
    if args.limit is not None and args.limit < 0:
        raise MfactError("--limit must be >= 0")
    with _store() as store:
        rows = store.list_sessions(language=args.lang, limit=args.limit)
    if args.json:
        out(json_dumps_safe({"sessions": [r.to_dict() for r in rows]}, indent=2))
        return 0
    if not rows:
        out("no sessions (mfact check ..., mfact run ... or mfact import FILE adds some)")
        return 0
    w = max(12, *(len(plain(r.id)) for r in rows))
    out(f"{'id':<{w}}  {'created':<19}  {'lang':<4}  {'facts':>5}  {'FS':>5}  {'status':<8}  title")
    for r in rows:
        out(f"{plain(r.id):<{w}}  {plain(r.created_at[:19]):<19}  {r.language:<4}  {r.n_facts:>5}  "
            f"{pct(r.factscore):>5}  {plain(r.status):<8}  {plain(r.title)}"
            + (f"  [{plain(r.model)}]" if r.model else ""))
    return 0


def cmd_show(args) -> int:
    with _store() as store:
        s = store.get_session(store.resolve_id(args.session_id))
    if args.json:
        out(json_dumps_safe(s.to_dict(), indent=2))
        return 0
    from .. import metrics as M

    fs = M.factscore(f.label for f in s.facts)
    out(f"{plain(s.id)}  {plain(s.title)}")
    out(f"language {s.language} · model {plain(s.generator.model or s.generator.backend)} · "
        f"created {plain(s.created_at)} · {len(s.facts)} facts · FActScore {pct(fs)}")
    out("")
    out(plain(s.text, one_line=False))
    out("")
    for i, f in enumerate(s.facts, 1):
        auto = f.auto.label if f.auto else "—"
        human = f.human.label if f.human else ""
        mark = f"{f.label or '…':<2}" + (f" (auto {auto}, person {human})" if f.disagrees else "")
        out(f"{i:>3}. {mark}  {plain(f.text)}")
    return 0


def cmd_delete(args) -> int:
    with _store() as store:
        ids = [store.resolve_id(x) for x in args.session_ids]   # all resolved before any is deleted
        for sid in ids:
            store.delete_session(sid)
    out(f"deleted {len(ids)} session{'s' if len(ids) != 1 else ''}")
    return 0


def cmd_rename(args) -> int:
    with _store() as store:
        sid = store.resolve_id(args.session_id)
        store.rename_session(sid, args.name)
    out(f"renamed {sid}")
    return 0
