"""Ray executor overhead: `mfact run` in-process against Ray with 2 local workers, side by side in
one run, and where the time goes per stage.

    .venv/bin/python bench/scale.py                  # 8 people x en,es, 100 tokens, batch 4, 2 workers
    .venv/bin/python bench/scale.py --n 8 --langs en,es --max-tokens 100 --batch-size 4 --workers 2
    .venv/bin/python bench/scale.py --fake           # fake stages: a smoke run of the script

Both runs check the same jobs with the same settings through the real pipeline (embedded Gemma 3
270M on the CPU, the bundled offline articles, the trained offline verifier, the verdict cache
off), each into its own store, in one scratch MFACT_HOME. The models are loaded before the clock
starts in both: in-process one pipeline, Ray one per actor (`RayExecutor.wait_ready`); Ray's own
start-up and the actors' model loading are printed apart. The Ray run goes first, so whatever it
warms (the passage-embedding cache, the OS file cache) favours the in-process run: the ratio is
conservative. On 2 cores two workers cannot be faster than one process that already uses both
cores (generation on one, checking on the other): the ratio shows the executor's overhead, it is
not a speed-up claim.

Per-stage time shares come from the in-process run: every call of a stage is timed (generation,
extraction, retrieval, verification; summed over threads, so they are shares of busy time, not of
wall time) and the driver's store writes are timed in both runs.

The last line is `ray_over_local: <throughput ratio>` (target >= 0.9).
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PEOPLE = ["Marie Curie", "Albert Einstein", "Isaac Newton", "Charles Darwin", "William Shakespeare",
          "Leonardo da Vinci", "Mahatma Gandhi", "Abraham Lincoln", "Wolfgang Amadeus Mozart",
          "Galileo Galilei", "Ada Lovelace", "Nikola Tesla"]

STAGES = ("generation", "extraction", "retrieval", "verification")
TIMES: dict[str, float] = {s: 0.0 for s in STAGES}
_LOCK = threading.Lock()


def _add(stage: str, dt: float) -> None:
    with _LOCK:
        TIMES[stage] += dt


class _Timed:
    """A stage with its methods timed (a generator's stream: the time spent producing chunks)."""

    def __init__(self, inner, stage: str):
        self._inner, self._stage = inner, stage

    def __getattr__(self, name):
        attr = getattr(self._inner, name)
        if not callable(attr) or name.startswith("_") or name in ("default_prompt", "render_prompt", "describe"):
            return attr
        if name == "stream":
            def stream(*a, **kw):
                it = iter(attr(*a, **kw))
                while True:
                    t = time.perf_counter()
                    try:
                        chunk = next(it)
                    except StopIteration:
                        _add(self._stage, time.perf_counter() - t)
                        return
                    _add(self._stage, time.perf_counter() - t)
                    yield chunk
            return stream

        def timed(*a, **kw):
            t = time.perf_counter()
            try:
                return attr(*a, **kw)
            finally:
                _add(self._stage, time.perf_counter() - t)
        return timed


def make_pipeline(cfg, fake: bool = False):
    """The pipeline of one worker, the verdict cache off. Defined in this script (__main__), so
    Ray's cloudpickle sends it to the actors by value; it must not refer to locks (the timing)."""
    if fake:
        from mfact.core.fake import FakeStages, fake_pipeline
        p = fake_pipeline(stages=FakeStages(delay=0.02), cfg=cfg)
    else:
        from mfact.core.pipeline import build_pipeline
        p = build_pipeline(cfg)
    p.cache = None
    return p


def timed_pipeline(cfg, fake: bool = False):
    p = make_pipeline(cfg, fake)
    for attr, stage in (("generator", "generation"), ("extractor", "extraction"),
                        ("retriever", "retrieval"), ("verifier", "verification")):
        setattr(p, attr, _Timed(getattr(p, attr), stage))
    return p


class TimedStore:
    def __init__(self, store):
        self.store = store
        self.seconds = 0.0
        self.writes = 0

    def save_session(self, s):
        t = time.perf_counter()
        self.store.save_session(s)
        self.seconds += time.perf_counter() - t
        self.writes += 1

    def __getattr__(self, name):
        return getattr(self.store, name)


def store_write_cost(template, path: Path, n: int = 200) -> tuple[float, float]:
    """(ms, KiB) per save of a full-size session (30 facts, 120 evidence passages of 600
    characters) built from a finished session of the run, into a fresh store file."""
    import copy

    from mfact.core.store import Store

    big = copy.deepcopy(template)
    if not big.facts or not big.evidence:
        return float("nan"), float("nan")
    big.facts = [copy.deepcopy(big.facts[i % len(big.facts)]) for i in range(30)]
    for i, f in enumerate(big.facts):
        f.id = f"f{i}"
    big.evidence = [copy.deepcopy(big.evidence[i % len(big.evidence)]) for i in range(120)]
    for i, e in enumerate(big.evidence):
        e.id, e.text = f"e{i}", (e.text * 20)[:600]
    many = []
    for i in range(n):
        s = copy.deepcopy(big)
        s.id = f"bench-{i}"
        many.append(s)
    store = Store(path)
    t = time.perf_counter()
    for s in many:
        store.save_session(s)
    dt = time.perf_counter() - t
    store.close()
    return dt / n * 1000, path.stat().st_size / n / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8, help="people (from a fixed list)")
    ap.add_argument("--langs", default="en,es")
    ap.add_argument("--max-tokens", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2, help="Ray actors")
    ap.add_argument("--fake", action="store_true", help="fake stages (checks the script itself)")
    args = ap.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not args.fake:
        from mfact.core.models.embedded import cache_root
        os.environ["MFACT_MODEL_CACHE"] = str(cache_root())   # the converted model is the user's
    home = Path(tempfile.mkdtemp(prefix="mfact-bench-scale-"))
    os.environ["MFACT_HOME"] = str(home)

    from mfact.core.batch import EntitySpec, plan_jobs
    from mfact.core.config import load_config
    from mfact.core.executors import ExecutorOptions, LocalExecutor
    from mfact.core.executors.ray_executor import RayExecutor, connect
    from mfact.core.store import Store

    cfg = load_config({"offline": True, "max_tokens": args.max_tokens})
    people = [EntitySpec(n) for n in (PEOPLE * (args.n // len(PEOPLE) + 1))[:args.n]]
    langs = [x.strip() for x in args.langs.split(",") if x.strip()]
    jobs = plan_jobs(people, langs, 1, cfg)
    print(f"# {len(jobs)} jobs ({args.n} people x {','.join(langs)}), {args.max_tokens} max tokens, "
          f"batch size {args.batch_size}, {'fake stages' if args.fake else 'embedded model, offline'}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}", flush=True)

    results: dict[str, dict] = {}

    # ---------------------------------------------------------------- Ray, 2 local workers
    t = time.monotonic()
    connect(num_cpus=max(os.cpu_count() or 1, args.workers), object_store_memory=128 * 1024 * 1024)
    ray_start = time.monotonic() - t
    store = TimedStore(Store(home / "ray.sqlite3"))
    ex = RayExecutor(store, functools.partial(make_pipeline, cfg, args.fake), cfg,
                     options=ExecutorOptions(workers=args.workers, batch_size=args.batch_size))
    t = time.monotonic()
    info = ex.wait_ready()
    ray_load = time.monotonic() - t
    bad = [w["error"] for w in info if w.get("error")]
    if bad:
        print(f"error: a Ray worker could not build its pipeline: {bad[0]}", file=sys.stderr)
        return 1
    t = time.monotonic()
    summary = ex.run(jobs)
    results["ray"] = {"wall": time.monotonic() - t, "done": len(summary.done), "failed": summary.failed,
                      "store_s": store.seconds}
    ex.close()
    import ray
    ray.shutdown()
    print(f"# ray: started in {ray_start:.1f} s, {args.workers} actors loaded their models in {ray_load:.1f} s "
          f"(in parallel; peak memory per actor after loading "
          f"{', '.join(str(w.get('peak_rss_mb')) + ' MB' for w in info)})", flush=True)

    # ---------------------------------------------------------------- in-process
    t = time.monotonic()
    pipeline = timed_pipeline(cfg, args.fake)
    local_load = time.monotonic() - t
    for k in TIMES:
        TIMES[k] = 0.0
    store = TimedStore(Store(home / "local.sqlite3"))
    runner = LocalExecutor(store, lambda: pipeline, cfg, workers=1, batch_size=args.batch_size)
    t = time.monotonic()
    summary = runner.run(jobs)
    results["local"] = {"wall": time.monotonic() - t, "done": len(summary.done), "failed": summary.failed,
                        "store_s": store.seconds}
    print(f"# in-process: models loaded in {local_load:.1f} s", flush=True)

    for name in ("ray", "local"):
        r = results[name]
        if r["failed"]:
            print(f"error: {name}: {len(r['failed'])} jobs failed, e.g. {r['failed'][0]}", file=sys.stderr)
            return 1
        r["per_hour"] = r["done"] / r["wall"] * 3600

    print()
    print(f"| {len(jobs)} biographies | in-process (1 pipeline) | Ray, {args.workers} local workers |")
    print("|---|---|---|")
    print(f"| wall time (models loaded) | {results['local']['wall']:.1f} s | {results['ray']['wall']:.1f} s |")
    print(f"| biographies per hour | {results['local']['per_hour']:.0f} | {results['ray']['per_hour']:.0f} |")
    print(f"| store writes (driver) | {results['local']['store_s'] * 1000:.0f} ms | "
          f"{results['ray']['store_s'] * 1000:.0f} ms |")
    print()
    busy = sum(TIMES.values()) + results["local"]["store_s"]
    print("| stage (in-process run) | busy seconds | share |")
    print("|---|---|---|")
    for stage in STAGES:
        print(f"| {stage} | {TIMES[stage]:.1f} | {100 * TIMES[stage] / busy:.1f}% |")
    print(f"| store writes | {results['local']['store_s']:.2f} | {100 * results['local']['store_s'] / busy:.1f}% |")
    print(f"| (wall time) | {results['local']['wall']:.1f} | |")
    template = next(iter(Store(home / "local.sqlite3").iter_sessions()))
    ms, kib = store_write_cost(template, home / "store-cost.sqlite3")
    print()
    print(f"store write, a full-size session (30 facts, 120 passages): {ms:.1f} ms, {kib:.0f} KiB "
          f"-> one driver saves at most {1000 / ms:.0f} sessions/s")
    print()
    ratio = results["ray"]["per_hour"] / results["local"]["per_hour"]
    print(f"local_per_hour: {results['local']['per_hour']:.0f}")
    print(f"ray_per_hour: {results['ray']['per_hour']:.0f}")
    print(f"ray_over_local: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
