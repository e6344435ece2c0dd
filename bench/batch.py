"""Batch throughput: biographies per hour of `mfact run` with the embedded default, offline,
streamed one by one (batch size 1) and batched (`--batch-size B`), side by side in one run.

    .venv/bin/python bench/batch.py                     # 8 people x en, 200 tokens, B = 8
    .venv/bin/python bench/batch.py --n 8 --batch-size 8 --max-tokens 120 --langs en,es

Runs the BatchRunner over the real pipeline (embedded Gemma 3 270M, bundled vital articles, the
trained offline verifier) in a scratch MFACT_HOME, once per batch size with the same people and
settings (each into its own store; the verdict cache off), and splits the wall time into
generation and the rest, to say what limits throughput. The batched run goes first, so whatever
the first run warms (the passage-embedding cache, the OS file cache) favours batch size 1: the
ratio is conservative. The last line is `biographies_per_hour: <value at the batch size B>`.
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
    ap.add_argument("--n", type=int, default=8, help="people (from a fixed list)")
    ap.add_argument("--langs", default="en")
    ap.add_argument("--max-tokens", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=None,
                    help="the batched run's batch size (default: mfact run's default)")
    args = ap.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from mfact.core.models.embedded import cache_root

    # the sessions go to a scratch home; the converted model is the user's, converted once
    os.environ["MFACT_MODEL_CACHE"] = str(cache_root())
    home = Path(tempfile.mkdtemp(prefix="mfact-bench-batch-"))
    os.environ["MFACT_HOME"] = str(home)

    from mfact.core.batch import BatchRunner, EntitySpec, plan_jobs
    from mfact.core.commands.run import DEFAULT_BATCH_SIZE
    from mfact.core.config import load_config
    from mfact.core.events import StopEvent, TokenEvent
    from mfact.core.pipeline import build_pipeline
    from mfact.core.store import Store

    batch = args.batch_size or DEFAULT_BATCH_SIZE
    cfg = load_config({"offline": True, "max_tokens": args.max_tokens})
    t_load = time.monotonic()
    pipeline = build_pipeline(cfg)
    pipeline.cache = None          # every verdict computed in both runs
    load_s = time.monotonic() - t_load
    gen = pipeline.generator

    def measure(batch_size: int) -> dict:
        timing = {"gen_s": 0.0, "tokens": 0}

        class TimedGenerator:
            """The generator, its batched calls timed (streamed runs are timed from the events)."""

            def __getattr__(self, name):
                return getattr(gen, name)

            def generate_batch(self, prompts, params, stop=None, **kw):
                t = time.monotonic()
                out = gen.generate_batch(prompts, params, stop, **kw)
                timing["gen_s"] += time.monotonic() - t
                timing["tokens"] += sum(r.tokens for r in out)
                return out

        class Timed:
            """The pipeline, the span of its token events (streamed generation) measured."""
            generator = TimedGenerator() if batch_size > 1 else gen

            def run(self, *a, **kw):
                first = last = None
                streamed = "generated" not in kw
                for ev in pipeline.run(*a, **kw):
                    if streamed and isinstance(ev, TokenEvent):
                        now = time.monotonic()
                        first = first or now
                        last = now
                        timing["tokens"] += ev.tokens
                    if isinstance(ev, StopEvent) and first is not None:
                        timing["gen_s"] += last - first
                    yield ev

        langs = [x.strip() for x in args.langs.split(",") if x.strip()]
        jobs = plan_jobs([EntitySpec(p) for p in PEOPLE[: args.n]], langs, 1, cfg)
        store = Store(home / f"store-b{batch_size}.sqlite3")
        runner = BatchRunner(store, Timed, cfg, batch_size=batch_size)
        t0 = time.monotonic()
        summary = runner.run(jobs)
        wall = time.monotonic() - t0
        store.close()
        done = len(summary.done)
        for label, reason in summary.failed[:3]:
            print(f"failed (batch size {batch_size}): {label}: {reason}")
        return {"batch": batch_size, "done": done, "failed": len(summary.failed), "wall": wall,
                "per_hour": done / wall * 3600 if wall else 0.0, **timing}

    results = [measure(batch), measure(1)] if batch > 1 else [measure(1)]
    print(f"machine: {os.cpu_count()} cores; model load (cached) {load_s:.1f} s; "
          f"{args.n} people, langs {args.langs}, {args.max_tokens} max tokens, "
          f"temperature {cfg.temperature}, seed {cfg.seed}")
    for r in sorted(results, key=lambda r: r["batch"]):
        print(f"batch size {r['batch']}: {r['done']} done, {r['failed']} failed; wall {r['wall']:.1f} s; "
              f"generation {r['gen_s']:.1f} s ({r['tokens']} tokens, "
              f"{r['tokens'] / max(r['gen_s'], 1e-9):.1f} tok/s), checking and the rest "
              f"{r['wall'] - r['gen_s']:.1f} s; {r['per_hour']:.1f} biographies/hour")
    main_r = results[0]
    if len(results) == 2:
        print(f"ratio batch {batch} / batch 1: {main_r['per_hour'] / max(results[1]['per_hour'], 1e-9):.2f}x")
    print(f"biographies_per_hour: {main_r['per_hour']:.1f}")
    return 0 if main_r["done"] else 1


if __name__ == "__main__":
    sys.exit(main())
