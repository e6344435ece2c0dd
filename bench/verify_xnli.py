"""`mfact verify-pairs` on held-out XNLI dev pairs: accuracy per language for one or more verifiers
(default: `offline`) next to the majority baseline, side by side in one run.

    python bench/verify_xnli.py [--langs all|en,es,...] [--per-lang 498] [--verifiers offline,cross:FILE]

Held-out pairs are those of the premises the training scripts never train on (premise index % 5 ==
0, in every language); bg, el, sw, th, tr, ur are languages they never saw at all. The pairs are
written as verify-pairs JSONL (`--write FILE` keeps it), scored through the real CLI, and compared
with the gold labels (entailment = S, else NS). Also printed: ECE of the default verifier and its
pairs/s. The last line is `heldout_accuracy_mean: X` (the first verifier, mean over languages).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ALL = "en,es,fr,de,ru,zh,ar,hi,vi,bg,el,sw,th,tr,ur"
NEVER_TRAINED = {"bg", "el", "sw", "th", "tr", "ur"}
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "xnli-dev"


def ece(rows: list[tuple[float, bool]], bins: int = 10) -> float:
    total = 0.0
    for i in range(bins):
        lo, hi = 0.5 + i * 0.05, 0.5 + (i + 1) * 0.05
        sel = [(c, ok) for c, ok in rows if lo <= c < hi or (i == bins - 1 and c == hi)]
        if sel:
            total += (
                len(sel) / len(rows) * abs(sum(ok for _c, ok in sel) / len(sel) - sum(c for c, _ok in sel) / len(sel))
            )
    return total


def run(path: Path, verifier: str) -> tuple[dict, float]:
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-m", "mfact.core.cli", "verify-pairs", str(path), "--json",
                           "--verifier", verifier], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"verify-pairs --verifier {verifier} failed: {proc.stderr.strip()[-500:]}")
    return {str(d["id"]): d for d in map(json.loads, proc.stdout.splitlines())}, time.time() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--langs", default="all")
    ap.add_argument("--per-lang", type=int, default=498)
    ap.add_argument(
        "--verifiers", default="offline", help="comma-separated, e.g. offline,cross:FILE; the first one is summarised"
    )
    ap.add_argument("--write", default="", help="keep the JSONL input here")
    args = ap.parse_args(argv)
    langs = (ALL if args.langs == "all" else args.langs).split(",")
    verifiers = args.verifiers.split(",")

    rows, gold = [], {}
    for lang in langs:
        lines = (Path(args.data) / f"dev-{lang}.tsv").read_text(encoding="utf-8").splitlines()
        kept = 0
        for i, line in enumerate(lines):
            parts = line.split("\t")
            if len(parts) != 3 or (i // 3) % 5 != 0:
                continue
            pid = f"{lang}-{i}"
            label = "S" if parts[2].strip() == "entailment" else "NS"
            rows.append({"id": pid, "lang": lang, "claim": parts[1], "evidence": parts[0], "label": label})
            gold[pid] = (lang, label)
            kept += 1
            if kept >= args.per_lang:
                break
    path = Path(args.write) if args.write else Path(tempfile.mkdtemp()) / "xnli-heldout.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    os.environ.setdefault("MFACT_HOME", tempfile.mkdtemp(prefix="mfact-bench-"))

    acc: dict[str, dict[str, float]] = defaultdict(dict)
    majority: dict[str, float] = {}
    calib: list[tuple[float, bool]] = []
    speed = {}
    for vi, verifier in enumerate(verifiers):
        out, dt = run(path, verifier)
        speed[verifier] = len(rows) / dt
        per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for pid, (lang, label) in gold.items():
            d = out[pid]
            s = per[lang]
            s[0] += int(d["label"] == label)
            s[1] += 1
            s[2] += int(label == "NS")
            if vi == 0:
                calib.append((float(d["confidence"]), d["label"] == label))
        for lang in langs:
            c, n, m = per[lang]
            acc[verifier][lang] = c / n
            majority[lang] = m / n
    head = " | ".join(f"`{v}`" for v in verifiers)
    print(f"| language | pairs | majority (NS) | {head} |")
    print("|---|---|---|" + "---|" * len(verifiers))
    for lang in langs:
        mark = " (never trained)" if lang in NEVER_TRAINED else ""
        cells = " | ".join(f"{acc[v][lang]:.1%}" for v in verifiers)
        print(f"| {lang}{mark} | {sum(1 for g in gold.values() if g[0] == lang)} | {majority[lang]:.1%} | {cells} |")
    means = {v: sum(acc[v].values()) / len(langs) for v in verifiers}
    print("| mean | | {:.1%} | {} |".format(sum(majority.values()) / len(langs),
                                            " | ".join(f"{means[v]:.1%}" for v in verifiers)))
    for v in verifiers:
        worst = min(acc[v], key=acc[v].get)
        print(f"{v}: mean {means[v]:.3f}, worst {worst} {acc[v][worst]:.3f}, {speed[v]:.1f} pairs/s through the CLI")
    print(f"{verifiers[0]} ECE: {ece(calib):.3f}")
    print(f"heldout_accuracy_mean: {means[verifiers[0]]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
