"""Batch throughput: biographies per hour of `mfact run` with the embedded default, offline, with
llama.cpp (the default backend) and transformers side by side in one run.

    .venv/bin/python bench/batch.py                 # 8 people x en, 200 tokens: llama.cpp B=8 and B=1,
                                                    # transformers B=8 (the previous default)
    .venv/bin/python bench/batch.py --runs llamacpp:8,llamacpp:4,llamacpp:1 --max-tokens 120

Runs the BatchRunner over the real pipeline (embedded Gemma 3 270M, bundled vital articles, the
trained offline verifier) in a scratch MFACT_HOME, once per `backend:batch size` with the same
people and settings (each into its own store; the verdict cache off), and splits the wall time into
generation and the rest, to say what limits throughput. On a shared machine absolute figures follow
its load (printed); the ratio of two runs in one invocation is the steadier figure. The last lines
are `llamacpp_over_transformers: <ratio of the first llamacpp and the first transformers run>`
(when both ran) and `biographies_per_hour: <the first run's value>`.
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
    ap.add_argument("--runs", default="llamacpp:8,transformers:8,llamacpp:1",
                    help="comma-separated backend:batch-size runs, in this order")
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

    runs = []
    for item in args.runs.split(","):
        backend, _, size = item.strip().partition(":")
        runs.append((backend, int(size or DEFAULT_BATCH_SIZE)))
    cfg = load_config({"offline": True, "max_tokens": args.max_tokens})
    pipelines: dict[str, tuple] = {}
    for backend in dict.fromkeys(b for b, _ in runs):
        bcfg = load_config({"offline": True, "max_tokens": args.max_tokens, "backend": backend})
        t_load = time.monotonic()
        p = build_pipeline(bcfg)
        p.cache = None          # every verdict computed in every run
        pipelines[backend] = (p, bcfg, time.monotonic() - t_load)

    def measure(backend: str, batch_size: int) -> dict:
        pipeline, cfg, _ = pipelines[backend]
        gen = pipeline.generator
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
        store = Store(home / f"store-{backend}-b{batch_size}.sqlite3")
        runner = BatchRunner(store, Timed, cfg, batch_size=batch_size)
        t0 = time.monotonic()
        summary = runner.run(jobs)
        wall = time.monotonic() - t0
        store.close()
        done = len(summary.done)
        for label, reason in summary.failed[:3]:
            print(f"failed ({backend}, batch size {batch_size}): {label}: {reason}")
        return {"backend": backend, "batch": batch_size, "load": os.getloadavg()[0], "done": done, "failed": len(summary.failed), "wall": wall,
                "per_hour": done / wall * 3600 if wall else 0.0, **timing}

    results = []
    for backend, size in runs:
        results.append(measure(backend, size))
        r = results[-1]
        print(f"{r['backend']}, batch size {r['batch']}: {r['done']} done, {r['failed']} failed;"
              f" wall {r['wall']:.1f} s; generation {r['gen_s']:.1f} s ({r['tokens']} tokens,"
              f" {r['tokens'] / max(r['gen_s'], 1e-9):.1f} tok/s), checking and the rest"
              f" {r['wall'] - r['gen_s']:.1f} s; {r['per_hour']:.1f} biographies/hour"
              f" (load average {r['load']:.1f} at the end)", flush=True)
    loads = ", ".join(f"{b} {v[2]:.1f} s" for b, v in pipelines.items())
    print(f"machine: {os.cpu_count()} cores; pipeline loads: {loads}; {args.n} people, langs {args.langs},"
          f" {args.max_tokens} max tokens, temperature {cfg.temperature}, seed {cfg.seed}")
    main_r = results[0]
    other = next((r for r in results if r["backend"] == "transformers"), None)
    first_llama = next((r for r in results if r["backend"] == "llamacpp"), None)
    if other is not None and first_llama is not None:
        print(f"llamacpp_over_transformers: {first_llama['per_hour'] / max(other['per_hour'], 1e-9):.2f}"
              f" (batch size {first_llama['batch']} vs {other['batch']})")
    print(f"biographies_per_hour: {main_r['per_hour']:.1f}")
    return 0 if main_r["done"] else 1

if __name__ == "__main__":
    sys.exit(main())
