"""`mfact learn [--lang xx,yy] [--dry-run] [--reset] [--json]`: adapt the verifier to your labels.

Fits a calibration of the configured verifier's p(supported) per language from the human labels in
the store (core/adapt), prints per language the labels, accuracy, Cohen's kappa and ECE before
and after on held-out labels (cross-validation) and whether it was adopted (or why not), and
writes the adaptation beside the store with a new version. New verdicts use it (config `adapt =
auto`); stored ones change only through `mfact rejudge`."""
from __future__ import annotations

from typing import NoReturn

from ..errors import MfactError
from ._common import out, pct


def register(sub) -> None:
    p = sub.add_parser("learn", help="adapt the verifier to your labels (per-language calibration)",
                       description="Fit a per-language calibration of the verifier's p(supported) from the "
                                   "human labels in the store; adopt it where it beats the verifier as it is "
                                   "on held-out labels (5-fold cross-validation over your labels).")
    p.add_argument("--lang", help="only these languages (comma-separated); the others keep their adaptation")
    p.add_argument("--dry-run", action="store_true", help="print the figures, write nothing")
    p.add_argument("--reset", action="store_true", help="go back to the unadapted verifier")
    p.add_argument("--verifier", help="the verifier whose verdicts to learn from (default: the configured one)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_learn)


def _langs(value: str | None) -> set[str] | None:
    if value is None:
        return None
    from ..languages import UnknownLanguage, get_language

    out_: set[str] = set()
    for code in (c.strip() for c in value.split(",")):
        if not code:
            continue
        try:
            out_.add(get_language(code).code)
        except UnknownLanguage as exc:
            raise MfactError(str(exc), "run `mfact languages` for the list") from None
    if not out_:
        raise MfactError("--lang is empty", "e.g. --lang tr or --lang en,es")
    return out_


def cmd_learn(args) -> int:
    from ..adapt import adaptation as A
    from ..adapt.features import verifier_name
    from ..adapt.refit import learn_and_write, verifier_id
    from ..options import config_from_args

    cfg = config_from_args(args)
    langs = _langs(args.lang)
    if args.reset:
        return _reset(verifier_name(args.verifier or cfg.verifier), langs, args.dry_run)
    verifier = verifier_id(cfg, args.verifier)          # name/version: the labels of its verdicts
    res, a = learn_and_write(None, verifier, langs, write=not args.dry_run)
    for note in res.notes:
        from ..logs import notice
        notice(note)
    if a is None:
        _no_rows(verifier)
    if langs is not None and not res.languages:
        raise MfactError(f"no labelled fact in {', '.join(sorted(langs))} has a verdict of the"
                         f" {verifier_name(verifier)} verifier; nothing was written",
                         "label facts of that language in mfact-tui, or leave --lang out")
    saved = None if args.dry_run else A.adaptation_path()    # learn_and_write wrote it, under the lock
    if args.json:
        from ..textsafe import json_dumps_safe
        out(json_dumps_safe({"written": str(saved) if saved else None, **a.to_dict(),
                             "languages": {k: v.to_dict() for k, v in a.languages.items() if k in res.languages},
                             "seconds": round(res.seconds, 3)}, indent=2))
        return 0
    _table(res)
    adopted = sum(1 for r in res.languages.values() if r.adopted)
    tail = (f"adaptation {a.version} written to {saved}" if saved else "--dry-run: nothing written")
    out(f"{tail} ({adopted} of {len(res.languages)} languages adopted; fitted in {res.seconds:.2f} s)")
    if cfg.adapt == "off":
        out("note: adapt = off in the configuration: verdicts stay unadapted until adapt = auto")
    return 0


def _reset(verifier: str, langs: set[str] | None, dry_run: bool) -> int:
    """`learn --reset [--lang ..]`: whatever the file holds (garbage, a FIFO, a future schema), it is
    replaced; with --lang only those languages go back to the unadapted verifier."""
    from ..adapt import adaptation as A
    from ..logs import notice

    what = "an empty adaptation" if langs is None else f"the adaptation without {', '.join(sorted(langs))}"
    if dry_run:
        out(f"would write {what} (--dry-run: nothing written)")
        return 0
    a, path, why = A.update_adaptation(lambda keep, n: A.reset_adaptation(n, verifier, keep, langs))
    if why:
        notice(f"{why}: replaced" + (", every language reset" if langs is not None else ""))
    if a.reset:
        out(f"adaptation {a.version} written to {path}: the unadapted verifier from now on"
            " (stored verdicts change only through `mfact rejudge`)")
    else:
        kept = ", ".join(sorted(a.languages)) or "none"
        out(f"adaptation {a.version} written to {path}: {', '.join(sorted(langs or ()))} unadapted from now on,"
            f" the others kept ({kept}; stored verdicts change only through `mfact rejudge`)")
    return 0


def _no_rows(verifier: str) -> NoReturn:
    """The error when no label has a verdict of `verifier`: labels on another version's verdicts
    (an upgrade) need `mfact rejudge` first."""
    from ..adapt.features import verifier_name
    from ..adapt.learn import rows_from_store
    from ..store import Store

    name = verifier_name(verifier)
    with Store() as store:
        other = len(rows_from_store(store, name)) if name != verifier else 0
    if other:
        raise MfactError(f"no labelled fact has a verdict of this version of the {name} verifier ({verifier});"
                         f" {other:,} labels have verdicts of another version of it",
                         "`mfact rejudge --all` gives their facts this version's verdicts, then `mfact learn`")
    raise MfactError(f"no labelled fact has a verdict of the {name} verifier in the store",
                     "label facts in mfact-tui (s / n / i), or import labelled sessions and run"
                     " `mfact rejudge --all` to give their facts verdicts")


def _table(res) -> None:
    n_langs = len({lang for lang in res.languages})
    name, _slash, version = res.verifier.partition("/")
    out(f"{res.labels:,} labels of the {name} verifier's verdicts" + (f" (version {version})" if version else "") +
        f", {n_langs} language{'s' if n_langs != 1 else ''} shown; before = the verifier as it is,"
        " after = adapted, both on held-out labels (5-fold cross-validation)")
    out(f"{'lang':<5} {'labels':>6}  {'accuracy %':>15}  {'kappa':>13}  {'ECE':>15}  adopted")
    for lang, r in sorted(res.languages.items()):
        a = r.after
        acc = f"{pct(r.before.accuracy):>5} -> {pct(a.accuracy) if a else '—':>5}"
        kap = f"{_num(r.before.kappa, 2):>5} -> {_num(a.kappa if a else None, 2):>5}"
        ece = f"{_num(r.before.ece, 3):>5} -> {_num(a.ece if a else None, 3):>5}"
        if r.adopted:
            verdict = f"yes ({r.model} model, {r.gain_points:+.1f} pts" + (f"; {r.why})" if r.why else ")")
        else:
            verdict = f"no: {r.why}"
        out(f"{lang:<5} {r.labels:>6}  {acc:>15}  {kap:>13}  {ece:>15}  {verdict}")


def _num(v: float | None, digits: int) -> str:
    return "—" if v is None else f"{v:.{digits}f}"
