"""Batch throughput: biographies per hour of `mfact run` with the embedded default, offline, with
llama.cpp (the default backend) and transformers side by side in one run.

    .venv/bin/python bench/batch.py                 # 8 people x en, 200 tokens: llama.cpp B=8,
                                                    # transformers B=8 (the previous default), llama.cpp B=1
    .venv/bin/python bench/batch.py --runs llamacpp:8,llamacpp:8:serial   # this version vs the previous
    .venv/bin/python bench/batch.py --runs llamacpp:8,llamacpp:4,llamacpp:1 --max-tokens 120

Runs the BatchRunner over the real pipeline (embedded Gemma 3 270M, bundled vital articles, the
trained offline verifier) once per `backend:batch size[:options]` with the same people and
settings. Every run starts cold, as a first `mfact run` over these people does: its own scratch
MFACT_HOME (page and embedding caches empty), the retriever's and embedder's memory emptied, the
verdict cache off, its own store. Options: `serial` (no preparing of the checking while generating:
nor checking of the rows that ended while the others are generated: the behaviour before these),
`embedN` (N embedder threads instead of the default), `genN` (N llama.cpp threads for the batch).

Each run's line splits the wall time into generation and the rest, and the CPU time into generation,
preparing (while generating) and checking, per biography: CPU-seconds per biography are what
machine load disturbs least. On a shared machine the absolute figures follow its load (printed);
ratios of runs in one invocation are steadier. The last lines are `llamacpp_over_transformers:
<ratio of the first llamacpp and the first transformers run>` (when both ran), `over_baseline:
<the first run / 354, transformers' batched figure before llama.cpp>` and `biographies_per_hour:
<the first run's value>`.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PEOPLE = ["Marie Curie", "Albert Einstein", "Isaac Newton", "Charles Darwin", "William Shakespeare",
          "Leonardo da Vinci", "Mahatma Gandhi", "Abraham Lincoln", "Wolfgang Amadeus Mozart",
          "Galileo Galilei"]
BASELINE = 354.0    # biographies/hour, transformers batched (batch size 8), before llama.cpp (docs/batch.md)


def process_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8, help="people (from a fixed list)")
    ap.add_argument("--langs", default="en")
    ap.add_argument("--max-tokens", type=int, default=200)
    ap.add_argument("--runs", default="llamacpp:8,transformers:8,llamacpp:1",
                    help="comma-separated backend:batch-size[:option...] runs, in this order"
                         " (options: serial, embedN, genN)")
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
        backend, _, rest = item.strip().partition(":")
        size, *opts = rest.split(":") if rest else [""]
        runs.append((backend, int(size or DEFAULT_BATCH_SIZE), tuple(o for o in opts if o)))
    cfg = load_config({"offline": True, "max_tokens": args.max_tokens})
    pipelines: dict[str, tuple] = {}
    for backend in dict.fromkeys(b for b, _, _ in runs):
        bcfg = load_config({"offline": True, "max_tokens": args.max_tokens, "backend": backend})
        t_load = time.monotonic()
        p = build_pipeline(bcfg)
        p.cache = None          # every verdict computed in every run
        pipelines[backend] = (p, bcfg, time.monotonic() - t_load)

    def cold(pipeline, n: int) -> None:
        """A first run's state: fresh caches on disk (a new MFACT_HOME), none in memory."""
        os.environ["MFACT_HOME"] = str(home / f"home-{n}")
        pipeline.retriever._pages.clear()
        pipeline.retriever._cands.clear()
        for emb in {id(e): e for e in (pipeline.embedder, getattr(pipeline.verifier, "_embedder", None))
                    if e is not None}.values():
            emb._queries.clear()

    def measure(n: int, backend: str, batch_size: int, opts: tuple[str, ...]) -> dict:
        pipeline, cfg, _ = pipelines[backend]
        cold(pipeline, n)
        gen = pipeline.generator
        timing = {"gen_s": 0.0, "tokens": 0, "gen_cpu": 0.0, "prep_s": 0.0, "prep_cpu": 0.0}
        lock = threading.Lock()
        backend_emb = getattr(pipeline.embedder, "_backend", None)
        saved_threads = getattr(backend_emb, "threads", None)
        saved_gen_threads = getattr(gen, "threads", None)
        for o in opts:
            if o.startswith("embed") and o[5:].isdigit() and backend_emb is not None:
                backend_emb.threads = int(o[5:])
            elif o.startswith("gen") and o[3:].isdigit() and backend == "llamacpp":
                gen.set_threads(int(o[3:]))       # llama.cpp threads of the batch's context
            elif o != "serial":
                raise SystemExit(f"unknown run option {o!r} (serial, embedN, genN)")

        class TimedGenerator:
            """The generator, its batched calls timed (streamed runs are timed from the events)."""

            def __getattr__(self, name):
                return getattr(gen, name)

            def generate_batch(self, prompts, params, stop=None, on_row=None, **kw):
                if on_row is not None and "serial" not in opts:    # every backend takes on_row
                    kw["on_row"] = on_row
                t, c = time.monotonic(), time.thread_time()   # llama.cpp's one thread is this one
                out = gen.generate_batch(prompts, params, stop, **kw)
                with lock:
                    timing["gen_s"] += time.monotonic() - t
                    timing["gen_cpu"] += time.thread_time() - c
                    timing["tokens"] += sum(r.tokens for r in out)
                return out

        class Timed:
            """The pipeline, the span of its token events (streamed generation) measured."""
            generator = TimedGenerator() if batch_size > 1 else gen

            def prepare(self, *a, **kw):
                t, c = time.monotonic(), time.thread_time()
                try:
                    return pipeline.prepare(*a, **kw)
                finally:
                    with lock:
                        timing["prep_s"] += time.monotonic() - t
                        timing["prep_cpu"] += time.thread_time() - c

            if "serial" in opts:
                del prepare

            def run(self, *a, **kw):
                first = last = None
                generation = kw.get("generation")
                streamed = generation is None or generation.generated is None
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
        store = Store(home / f"store-{n}-{backend}-b{batch_size}.sqlite3")
        runner = BatchRunner(store, Timed, cfg, batch_size=batch_size)
        t0, c0 = time.monotonic(), process_cpu()
        try:
            summary = runner.run(jobs)
        finally:
            if backend_emb is not None:
                backend_emb.threads = saved_threads
            if saved_gen_threads is not None and gen.threads != saved_gen_threads:
                gen.set_threads(saved_gen_threads)
        wall = time.monotonic() - t0
        cpu = process_cpu() - c0
        store.close()
        done = len(summary.done)
        for label, reason in summary.failed[:3]:
            print(f"failed ({backend}, batch size {batch_size}): {label}: {reason}")
        return {"backend": backend, "batch": batch_size, "opts": opts, "load": os.getloadavg()[0], "done": done,
                "failed": len(summary.failed), "wall": wall, "cpu": cpu,
                "per_hour": done / wall * 3600 if wall else 0.0, **timing}

    results = []
    for n, (backend, size, opts) in enumerate(runs):
        load0 = os.getloadavg()[0]
        results.append(measure(n, backend, size, opts))
        r = results[-1]
        per = max(r["done"], 1)
        check_cpu = r["cpu"] - r["gen_cpu"] if size > 1 else None
        split = (f"CPU per biography: generation {r['gen_cpu'] / per:.2f} s, preparing {r['prep_cpu'] / per:.2f} s,"
                 f" checking and the rest {(check_cpu - r['prep_cpu']) / per:.2f} s"
                 f" (all checking {check_cpu / per:.2f} s)" if check_cpu is not None
                 else f"CPU per biography {r['cpu'] / per:.2f} s (streamed: not split)")
        name = f"{r['backend']}, batch size {r['batch']}" + (f" ({', '.join(opts)})" if opts else "")
        print(f"{name}: {r['done']} done, {r['failed']} failed;"
              f" wall {r['wall']:.1f} s: generation {r['gen_s']:.1f} s ({r['tokens']} tokens,"
              f" {r['tokens'] / max(r['gen_s'], 1e-9):.1f} tok/s), preparing {r['prep_s']:.1f} s alongside,"
              f" checking and the rest after it {r['wall'] - r['gen_s']:.1f} s; {split};"
              f" {r['per_hour']:.1f} biographies/hour"
              f" (load average {load0:.1f} before, {r['load']:.1f} after)", flush=True)
    loads = ", ".join(f"{b} {v[2]:.1f} s" for b, v in pipelines.items())
    print(f"machine: {os.cpu_count()} cores; pipeline loads: {loads}; {args.n} people, langs {args.langs},"
          f" {args.max_tokens} max tokens, temperature {cfg.temperature}, seed {cfg.seed}")
    main_r = results[0]
    other = next((r for r in results if r["backend"] == "transformers"), None)
    first_llama = next((r for r in results if r["backend"] == "llamacpp"), None)
    if other is not None and first_llama is not None and other["done"] and first_llama["done"]:
        print(f"llamacpp_over_transformers: {first_llama['per_hour'] / max(other['per_hour'], 1e-9):.2f}"
              f" (batch size {first_llama['batch']} vs {other['batch']})")
    print(f"over_baseline: {main_r['per_hour'] / BASELINE:.2f} ({main_r['per_hour']:.1f} / {BASELINE:.0f})")
    print(f"biographies_per_hour: {main_r['per_hour']:.1f}")
    return 0 if main_r["done"] else 1

if __name__ == "__main__":
    sys.exit(main())
