"""Foundation figures: metrics after a verdict, a relabel's commit, import and report throughput.

    .venv/bin/python bench/foundation.py [--shared ../shared]

Uses FActScore's labelled data (ChatGPT, InstructGPT, PerplexityAI: 549 biographies) in a
temporary store. Prints a Markdown table and last `session_metrics_ms: <value>` (the cost the
pipeline pays after every verdict, without the permutation test).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(fn, repeat: int) -> float:
    """Median milliseconds of `repeat` calls."""
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    args = ap.parse_args()
    data = Path(args.shared) / "data" / "factscore"
    files = [data / f"{n}.jsonl" for n in ("ChatGPT", "InstructGPT", "PerplexityAI")]
    if not all(f.exists() for f in files):
        print(f"FActScore data not found under {data}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as home:
        os.environ["MFACT_HOME"] = home
        from mfact.core import metrics as M
        from mfact.core.formats import read_sessions
        from mfact.core.report import build_report
        from mfact.core.store import Store

        t = time.perf_counter()
        sessions = [s for f in files for s in read_sessions(f)]
        read_s = time.perf_counter() - t
        store = Store()
        t = time.perf_counter()
        store.save_sessions(sessions)
        save_s = time.perf_counter() - t
        n_facts = sum(len(s.facts) for s in sessions)

        big = max(sessions, key=lambda s: len(s.facts))
        typical = sorted(sessions, key=lambda s: len(s.facts))[len(sessions) // 2]
        M.session_metrics(typical)                      # warm up (langid, o200k, numpy)
        fast = timed(lambda: M.session_metrics(typical, p_value=False), 50)
        full = timed(lambda: M.session_metrics(typical, p_value=True), 20)
        fast_big = timed(lambda: M.session_metrics(big, p_value=False), 20)

        ids = [(typical.id, f.id) for f in typical.facts]
        labels = ["S", "NS", "IR"]
        i = [0]

        def relabel():
            sid, fid = ids[i[0] % len(ids)]
            store.set_human_label(sid, fid, labels[i[0] % 3])
            i[0] += 1

        relabel_ms = timed(relabel, 200)
        t = time.perf_counter()
        loaded = list(store.iter_sessions())
        load_s = time.perf_counter() - t
        t = time.perf_counter()
        build_report(loaded, p_value=True)
        report_s = time.perf_counter() - t
        store.close()

    rows = [
        ("read + validate 549 FActScore biographies", f"{read_s:.2f} s", f"{len(sessions) / read_s:.0f} bios/s"),
        (f"save them ({n_facts} facts) in one transaction", f"{save_s:.2f} s", ""),
        ("load every session from the store", f"{load_s:.2f} s", ""),
        ("`build_report` over them (with p-values)", f"{report_s:.2f} s", ""),
        (f"session_metrics, {len(typical.facts)} facts, no p-value", f"{fast:.2f} ms", "after every verdict"),
        (f"session_metrics, {len(typical.facts)} facts, 1000-shuffle p-value", f"{full:.2f} ms", "final"),
        (f"session_metrics, {len(big.facts)} facts, no p-value", f"{fast_big:.2f} ms", ""),
        ("set_human_label (committed, WAL)", f"{relabel_ms:.2f} ms", "median of 200"),
    ]
    print("| operation | time | note |")
    print("|---|---:|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    print(f"session_metrics_ms: {fast:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
