"""`mfact score FILE.json|SESSION_ID [--json]`: every figure of one session.

The hallucination-rate estimate is calibrated on the facts a person relabelled in the session's
language across the store (at least 30), as Islam et al. 2025 describe (docs/foundation.md)."""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import MfactError
from ..figures import Agreement, Calm, Counts
from ._common import out, pct, plain


def register(sub) -> None:
    p = sub.add_parser("score", help="print the metrics of one session (a JSON file or a stored session id)",
                       description="Compute FActScore (with and without IR, with gamma), semantic drift "
                                   "with drift point and permutation p-value, CaLMScore checks and the "
                                   "hallucination-rate estimate of one session, from its effective labels.")
    p.add_argument("target", metavar="FILE.json|SESSION_ID")
    p.add_argument("--json", action="store_true", help="print one JSON object (fractions in [0, 1])")
    p.add_argument("--permutations", type=int, default=1000, help="shuffles for the drift p-value (1000)")
    p.set_defaults(func=cmd_score)


def load_target(target: str):
    """A session from a JSON file (exactly one session) or from the store (id or unique prefix)."""
    path = Path(target).expanduser()
    if target == "-" or os.path.lexists(path) or target.endswith((".json", ".jsonl")):
        from ..formats import read_sessions

        sessions = read_sessions(target if target == "-" else path, hint="")
        if len(sessions) != 1:
            raise MfactError(f"{path} holds {len(sessions)} sessions; score needs exactly one",
                             "import the file (mfact import) and use mfact report")
        return sessions[0], None
    if "/" in target:
        raise MfactError(f"{target}: no such file")
    from ..store import Store

    store = Store()
    try:
        return store.get_session(store.resolve_id(target)), store
    except MfactError:
        store.close()
        raise


def _pc(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.1f}%"


def cmd_score(args) -> int:
    from .. import metrics as M

    if args.permutations < 1:
        raise MfactError("--permutations must be at least 1")
    session, store = load_target(args.target)
    calibration = None
    if not M.all_human(session):
        pairs = list(M.relabel_pairs(session))
        if store is None:
            from ..store import Store

            store = Store()
            pairs += store.relabel_pairs(session.language)
        else:
            pairs = store.relabel_pairs(session.language)
        calibration = M.ns_calibration(pairs)
    if store is not None:
        store.close()
    res = M.session_metrics(session, calibration=calibration, n_permutations=args.permutations)
    if args.json:
        from ..textsafe import json_dumps_safe

        out(json_dumps_safe({"id": session.id, "entity": session.entity.name,
                             "language": session.language, **res.to_dict()}, indent=2))
        return 0
    c, calm = res.counts or Counts(), res.calm or Calm()
    lines = [
        f"session      {plain(session.id)}  {plain(session.title)}",
        f"facts        {res.n_facts} ({c.S} S, {c.NS} NS, {c.IR} IR, {c.pending} pending)",
        f"FActScore    {_pc(res.factscore)}  (S/(S+NS+IR); IR counted as not supported)",
        f"  relevant   {_pc(res.factscore_relevant_only)}  (S/(S+NS))",
        f"  gamma      {_pc(res.factscore_gamma)}  (length penalty, gamma = 10)",
    ]
    if res.semantic_drift is None:
        lines.append("drift        — (needs at least 6 labelled facts)")
    else:
        p = "—" if res.drift_p_value is None else f"{res.drift_p_value:.3f}"
        lines.append(f"drift        SD {res.semantic_drift:.3f}, drift point {res.drift_point}"
                     f" (drifts from fact {(res.drift_point or 0) + 1})"
                     f" ({pct(res.supported_before)}% supported before, {pct(res.unsupported_after)}%"
                     f" not supported after), p = {p}"
                     + ("  DRIFTING" if res.drifting else ""))
    lines.append(f"CaLMScore    non-empty {'yes' if calm.non_empty else 'no'}, language "
                 f"{plain(calm.detected_language or '—')} ({'ok' if calm.language_ok else 'WRONG'}),"
                 f" {'repetitive' if calm.repetitive else 'not repetitive'}")
    hr = res.hallucination_rate
    lines.append(f"halluc. rate {_pc(hr)}" + (f"  ({res.hallucination_rate_reason})"
                                             if res.hallucination_rate_reason else ""))
    ag = res.agreement or Agreement()
    if ag.n:
        k = "—" if ag.kappa is None else f"{ag.kappa:.2f}"
        lines.append(f"agreement    {pct(ag.accuracy)}% of {ag.n} relabelled facts, kappa {k}")
    for line in lines:
        out(line)
    return 0
