"""Batch throughput: biographies per hour of `mfact run` with the embedded default, offline.

    .venv/bin/python bench/batch.py                     # 6 people x en, 200 tokens
    .venv/bin/python bench/batch.py --n 3 --max-tokens 120 --langs en,es

Runs the BatchRunner over the real pipeline (embedded Gemma 3 270M, bundled vital articles, the
trained offline verifier) in a scratch MFACT_HOME, and splits the wall time into generation (tokens
streamed by the model) and the rest, to say what limits throughput. The last line is `name: value`.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PEOPLE = ["Marie Curie", "Albert Einstein", "Isaac Newton", "Charles Darwin", "William Shakespeare",
          "Leonardo da Vinci", "Mahatma Gandhi", "Abraham Lincoln", "Wolfgang Amadeus Mozart",
          "Galileo Galilei"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=6, help="people (from a fixed list)")
    ap.add_argument("--langs", default="en")
    ap.add_argument("--max-tokens", type=int, default=200)
    args = ap.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from mfact.core.models.embedded import cache_root

    # the sessions go to a scratch home; the converted model is the user's, converted once
    os.environ["MFACT_MODEL_CACHE"] = str(cache_root())
    os.environ["MFACT_HOME"] = tempfile.mkdtemp(prefix="mfact-bench-batch-")

    from mfact.core.batch import BatchRunner, EntitySpec, plan_jobs
    from mfact.core.config import load_config
    from mfact.core.events import StopEvent, TokenEvent
    from mfact.core.pipeline import build_pipeline
    from mfact.core.store import Store

    cfg = load_config({"offline": True, "max_tokens": args.max_tokens})
    t_load = time.monotonic()
    pipeline = build_pipeline(cfg)
    load_s = time.monotonic() - t_load

    gen_time = {"s": 0.0, "tokens": 0}

    class Timed:
        """Wraps the pipeline to measure the span of token events (generation) per biography."""

        def run(self, *a, **kw):
            first = last = None
            for ev in pipeline.run(*a, **kw):
                if isinstance(ev, TokenEvent):
                    now = time.monotonic()
                    first = first or now
                    last = now
                    gen_time["tokens"] += ev.tokens
                if isinstance(ev, StopEvent) and first is not None:
                    gen_time["s"] += last - first
                yield ev

    langs = [x.strip() for x in args.langs.split(",") if x.strip()]
    jobs = plan_jobs([EntitySpec(p) for p in PEOPLE[: args.n]], langs, 1, cfg)
    store = Store()
    runner = BatchRunner(store, Timed, cfg)
    t0 = time.monotonic()
    summary = runner.run(jobs)
    wall = time.monotonic() - t0
    store.close()
    done = len(summary.done)
    per_hour = done / wall * 3600 if wall else 0.0
    print(f"machine: {os.cpu_count()} cores; model load (cached) {load_s:.1f} s")
    print(f"biographies: {done} done, {len(summary.failed)} failed, {args.max_tokens} max tokens, langs {args.langs}")
    print(f"wall: {wall:.1f} s; generation {gen_time['s']:.1f} s ({gen_time['tokens']} tokens, "
          f"{gen_time['tokens'] / max(gen_time['s'], 1e-9):.1f} tok/s); "
          f"share of wall time spent generating: {gen_time['s'] / max(wall, 1e-9):.0%}")
    print(f"biographies_per_hour: {per_hour:.1f}")
    return 0 if done else 1


if __name__ == "__main__":
    sys.exit(main())
