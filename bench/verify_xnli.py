"""`mfact verify-pairs` on held-out XNLI dev pairs, accuracy per language next to the majority baseline.

    python bench/verify_xnli.py [--langs en,es,de,ar,hi,zh,bg,sw,ur] [--per-lang 498] [--verifier offline]

Held-out pairs are those of the premises the training script never trains on (premise index % 5 ==
0, in every language); bg, el, sw, th, tr, ur are also languages it never saw. The pairs are written
as verify-pairs JSONL (`--write FILE` keeps it), scored through the real CLI, and compared with the
gold labels (entailment = S, else NS). The last line is `name: value` (mean accuracy).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/work/shared/data/xnli-dev")
    ap.add_argument("--langs", default="en,es,de,ar,hi,zh,bg,sw,ur")
    ap.add_argument("--per-lang", type=int, default=498)
    ap.add_argument("--verifier", default="offline")
    ap.add_argument("--write", default="", help="keep the JSONL input here")
    args = ap.parse_args(argv)

    rows, gold = [], {}
    for lang in args.langs.split(","):
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
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-m", "mfact.core.cli", "verify-pairs", str(path), "--json",
                           "--verifier", args.verifier], capture_output=True, text=True)
    dt = time.time() - t0
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return proc.returncode
    stats = defaultdict(lambda: [0, 0, 0])   # correct, n, majority-correct
    for line in proc.stdout.splitlines():
        d = json.loads(line)
        lang, label = gold[str(d["id"])]
        s = stats[lang]
        s[0] += int(d["label"] == label)
        s[1] += 1
        s[2] += int(label == "NS")
    print(f"| language | pairs | majority baseline (NS) | mfact verify-pairs accuracy |")
    print("|---|---|---|---|")
    accs = []
    for lang in args.langs.split(","):
        c, n, m = stats[lang]
        accs.append(c / n)
        print(f"| {lang} | {n} | {m / n:.1%} | {c / n:.1%} |")
    print(f"{len(rows)} pairs in {dt:.0f} s ({len(rows) / dt:.1f} pairs/s, embedding included)")
    print(f"verify_pairs_xnli_mean_accuracy: {sum(accs) / len(accs):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
