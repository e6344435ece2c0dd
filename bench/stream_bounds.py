"""Streams bounded in size: time and peak memory of mfact against a model server that sends too much
at once (issue 25, F4b and F8), this checkout and another side by side in one run.

Cases (servers of tests/_faults.py on 127.0.0.1, default deadlines):

    huge-event         `mfact check --offline --max-tokens 500` against one streamed event of 10 MB
    endless-line       `mfact generate` against 1 GB sent without a line break
    endless-line-gzip  the same 1 GB gzip-compressed (about 1 MB on the wire)

Each command runs in a fresh process and MFACT_HOME; its resident memory is polled every 50 ms (and
taken from the kernel's peak at the end). A run is stopped when it passes --kill-mb of memory or
--kill-s seconds (the old code held a line without end in memory until the idle deadline, or
until its end: 1 GB), and the table says so.

    .venv/bin/python bench/stream_bounds.py --against /tmp/mfact-old      # git archive OLD | tar -x -C ...

Prints one row per case and checkout: exit code, seconds, peak memory (MB), how it ended.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from _common import measure, shim  # noqa: E402
from _faults import FaultServer  # noqa: E402

CASES = {
    "huge-event": ["check", "--lang", "en", "--entity", "Marie Curie", "--offline", "--max-tokens", "500"],
    "endless-line": ["generate", "--lang", "en", "--entity", "Marie Curie"],
    "endless-line-gzip": ["generate", "--lang", "en", "--entity", "Marie Curie"],
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", type=Path, help="another checkout (e.g. the previous main), measured the same way")
    ap.add_argument("--only", choices=sorted(CASES), action="append", help="these cases only")
    ap.add_argument("--kill-mb", type=float, default=1536, help="stop a run past this much memory (default 1536)")
    ap.add_argument("--kill-s", type=float, default=180, help="stop a run after this long (default 180)")
    args = ap.parse_args()
    sides = [("this", None)]
    if args.against:
        sides.append((f"{args.against.name}", str(shim(args.against))))
    print(f"{'case':18s} {'checkout':14s} {'rc':>4s} {'seconds':>8s} {'peak MB':>8s}  how it ended")
    worst = {}
    for case in args.only or list(CASES):
        for side, path in sides:
            with FaultServer(case) as server:
                r = measure([*CASES[case], "--base-url", server.model_url, "--model", "m"], path,
                            args.kill_mb, args.kill_s)
            r["how"] = r["how"] if r["killed"] else next(
                (ln for ln in r["out"].splitlines() if ln.startswith("facts:")), r["last"])
            print(f"{case:18s} {side:14s} {r['rc']:4d} {r['s']:8.1f} {r['mb']:8.0f}  {r['how'][:110]}", flush=True)
            if path is None:
                worst[case] = r
    print("stream_bounds_max_s: %.1f" % max(r["s"] for r in worst.values()))
    print("stream_bounds_max_mb: %.0f" % max(r["mb"] for r in worst.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
