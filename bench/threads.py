"""Thread split between generation (llama.cpp) and checking (the embedder behind retrieval and the
offline verifier): end-to-end `mfact check` time for each split, side by side in one run.

    .venv/bin/python bench/threads.py [--splits 1:1,1:2,2:1,2:2] [--rounds 2] [--max-tokens 200]

Each run is a fresh `mfact check --lang L --entity E --offline --max-tokens N --json` process (the
embedded default, the bundled articles, the offline verifier; imports and model loads included)
with MFACT_GEN_THREADS and MFACT_EMBED_THREADS set to the split. The same people for every split;
the order of the splits rotates every round so the machine's load hits all alike. Generation
overlaps checking (sentences are checked while the model writes), so the fastest split is the one
with the least end-to-end time, not the fastest generation alone. The last line is
`best_split: G:E` (generation threads : checking threads).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEOPLE = [("Marie Curie", "en"), ("Albert Einstein", "es"), ("Isaac Newton", "en")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", default="1:1,1:2,2:1,2:2")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--people", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=200)
    args = ap.parse_args()
    splits = [tuple(int(x) for x in s.split(":")) for s in args.splits.split(",")]

    from mfact.core.models.embedded import cache_root, gguf_path

    gguf_path()
    env = dict(os.environ)
    env["MFACT_MODEL_CACHE"] = str(cache_root())
    env.setdefault("HF_HUB_OFFLINE", "1")
    home = Path(tempfile.mkdtemp(prefix="mfact-bench-threads-"))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"{args.people} checks per split and round, {args.max_tokens} max tokens, offline")
    walls: dict[tuple, list[float]] = {s: [] for s in splits}
    people = PEOPLE[: args.people]
    for r in range(args.rounds):
        order = splits[r % len(splits):] + splits[: r % len(splits)]
        for split in order:
            g, e = split
            for name, lang in people:
                run_env = dict(env, MFACT_GEN_THREADS=str(g), MFACT_EMBED_THREADS=str(e),
                               MFACT_HOME=str(home / f"{g}-{e}-{r}"))
                t0 = time.perf_counter()
                p = subprocess.run([sys.executable, "-m", "mfact.core.cli", "check", "--lang", lang,
                                    "--entity", name, "--offline", "--max-tokens", str(args.max_tokens),
                                    "--json"], capture_output=True, text=True, env=run_env, cwd=str(ROOT))
                wall = time.perf_counter() - t0
                if p.returncode != 0:
                    print(p.stderr[-2000:], file=sys.stderr)
                    return 1
                s = json.loads(p.stdout)
                walls[split].append(wall)
                print(f"round {r + 1}, split {g}:{e}, {name} [{lang}]: {wall:.1f} s, {s.get('tokens')} tokens,"
                      f" {len(s.get('facts', []))} facts", flush=True)
    print("| generation threads | checking threads | median check s | mean check s |")
    print("|---:|---:|---:|---:|")
    for split in splits:
        print(f"| {split[0]} | {split[1]} | {statistics.median(walls[split]):.1f} |"
              f" {statistics.mean(walls[split]):.1f} |")
    best = min(splits, key=lambda s: statistics.median(walls[s]))
    print(f"best_split: {best[0]}:{best[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
