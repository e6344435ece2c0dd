"""Run a benchmark script against two checkouts of mfact in one run, alternating, and print each
figure for both and their ratio (for refactors: the figures must not move beyond noise).

    git worktree add /tmp/mfact-old 12d9890            # the code to compare with
    .venv/bin/python bench/side_by_side.py --old /tmp/mfact-old --rounds 3 -- bench/tui_latency.py --keys 150
    .venv/bin/python bench/side_by_side.py --old /tmp/mfact-old -- bench/pipeline.py --n 3 --max-tokens 120

Each checkout is imported as `mfact` through a folder of links placed first on PYTHONPATH, so the
same interpreter and packages run both; `--new` defaults to this checkout. The script of each
checkout is run (its own copy of the benchmark). Runs alternate old, new, new, old, ... so a slow
drift in the machine's load falls on both. Figures are the script's `name: number` lines; the
table shows the median of the rounds. The last line is `worst_ratio: <new/old furthest from 1>`.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import shim

FIGURE = re.compile(r"^([A-Za-z0-9_]+):\s*(-?[0-9.]+(?:e-?\d+)?|nan)\s*$")


def run_once(checkout: Path, path: Path, script: list[str], timeout: float) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, str(checkout / script[0]), *script[1:]]
    out = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise SystemExit(f"{checkout}: {' '.join(script)} failed:\n{out.stderr[-2000:]}")
    figures = {}
    for line in out.stdout.splitlines():
        m = FIGURE.match(line.strip())
        if m:
            figures[m.group(1)] = float(m.group(2))
    return figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, type=Path, help="the checkout to compare with")
    ap.add_argument("--new", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--rounds", type=int, default=2, help="runs of each (default 2)")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("script", nargs=argparse.REMAINDER, help="-- SCRIPT [ARGS]")
    args = ap.parse_args()
    script = args.script[1:] if args.script[:1] == ["--"] else args.script
    if not script:
        ap.error("name the benchmark script after --")
    trees = {"old": args.old.resolve(), "new": args.new.resolve()}
    results: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory(prefix="mfact-sbs-") as tmp:
        paths = {k: shim(v, Path(tmp) / k) for k, v in trees.items()}
        for r in range(args.rounds):
            for which in (("old", "new") if r % 2 == 0 else ("new", "old")):
                figs = run_once(trees[which], paths[which], script, args.timeout)
                results[which].append(figs)
                print(f"# round {r + 1} {which}: " + ", ".join(f"{k} {v:g}" for k, v in figs.items()), flush=True)
    names = [k for k in results["new"][0] if all(k in f for f in results["old"] + results["new"])]
    print(f"# {' '.join(script)}: median of {args.rounds} rounds")
    print(f"# {'figure':<40} {'old':>10} {'new':>10} {'new/old':>8}")
    worst = 1.0
    for k in names:
        old = statistics.median(f[k] for f in results["old"])
        new = statistics.median(f[k] for f in results["new"])
        ratio = new / old if old else float("nan")
        if ratio == ratio and abs(ratio - 1) > abs(worst - 1):
            worst = ratio
        print(f"# {k:<40} {old:>10.3f} {new:>10.3f} {ratio:>8.3f}")
    print(f"worst_ratio: {worst:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
