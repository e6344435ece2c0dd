"""Generation speed of the embedded GGUF: llama.cpp (the default backend) against transformers, side
by side in one run, plus llama.cpp's streaming overhead and load times.

    .venv/bin/python bench/generation.py [--tokens 100] [--rounds 5] [--lang en] [--entity "Marie Curie"]

Both backends run the same GGUF (Gemma 3 270M Q4_K_M from its PyPI package), the same prompt
(`This is a Wikipedia article about Marie Curie. Marie Curie` by default), the same decoding
settings (T 0.6, top-p 0.9, seed 0) and their default CPU threads, through mfact's streaming
Generator (what a user gets). Each round times, in an order that alternates every round so the
machine's load hits all alike:

- transformers: `stream` of the transformers backend (its de-quantized copy of the GGUF);
- llama.cpp bare: the binding's own loop (decode, sample, nothing else);
- llama.cpp stream: mfact's `stream` (incremental decoding, stop checks, chunks).

Tokens/s are wall-clock; CPU seconds per token are printed too (steadier on a shared machine).
Then the embedded default's load in fresh processes (imports included): the first run with an
empty model cache (assembling the GGUF from the package, no conversion) and later runs.
The last line is `llamacpp_over_transformers: <median of the rounds' stream tok/s ratios>`
(goal >= 3.0); before it `stream_over_bare: <median>` (goal >= 0.97).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOAD_SNIPPET = """
import resource, sys, time
t0 = time.perf_counter()
from mfact.core.config import Config
from mfact.core.models import load_generator
t1 = time.perf_counter()
gen = load_generator(Config(backend=sys.argv[1]))
t2 = time.perf_counter()
ru = resource.getrusage(resource.RUSAGE_SELF)
print(f"{t2 - t0:.3f} {t2 - t1:.3f} {ru.ru_utime + ru.ru_stime:.3f} {gen.backend}")
"""


def machine() -> str:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ""
    try:
        load = ", load average %.1f" % os.getloadavg()[0]
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores{load}; Python {platform.python_version()}"


def fresh_load(backend: str, env: dict[str, str]) -> tuple[float, float, float, str]:
    r = subprocess.run([sys.executable, "-c", LOAD_SNIPPET, backend], capture_output=True, text=True,
                       cwd=str(ROOT), env=env)
    if r.returncode != 0:
        raise SystemExit(r.stderr[-2000:])
    total, model_only, cpu, name = r.stdout.split()[-4:]
    return float(total), float(model_only), float(cpu), name


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--entity", default="Marie Curie")
    ap.add_argument("--load-runs", type=int, default=3, help="fresh-process loads to time (0: skip)")
    args = ap.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from mfact.core.config import Config
    from mfact.core.models import embedded, load_generator
    from mfact.core.models import llamacpp
    from mfact.core.models.llamacpp import binding, binding_version
    from mfact.core.protocols import DecodingParams

    print(f"machine: {machine()}")
    print(f"binding: {binding_version()}")

    # ---- load times in fresh processes, imports included
    if args.load_runs:
        env = dict(os.environ)
        with tempfile.TemporaryDirectory(prefix="mfact-bench-gen-") as scratch:
            env["MFACT_MODEL_CACHE"] = scratch           # empty: the real first run
            total, model_only, cpu, name = fresh_load("auto", env)
            converted = embedded.NAME + "-v" in " ".join(os.listdir(scratch))
            print(f"first run, empty model cache ({name}): {total:.2f} s with imports, {cpu:.2f} s CPU"
                  f" (assembling the GGUF from the package); conversion step: {'yes' if converted else 'none'}")
        env["MFACT_MODEL_CACHE"] = str(embedded.cache_root())
        embedded.gguf_path()
        runs = [fresh_load("auto", env) for _ in range(args.load_runs)]
        print(f"load of the embedded default in a fresh process (llama.cpp): best {min(r[0] for r in runs):.2f} s,"
              f" median {statistics.median(r[0] for r in runs):.2f} s with imports"
              f" ({min(r[1] for r in runs):.2f} s load_generator alone; {min(r[2] for r in runs):.2f} s CPU)"
              f" over {len(runs)} runs (goal <= 1.5 s)")
        if not embedded.is_prepared():
            t0 = time.perf_counter()
            embedded.prepare(lambda p: None)
            print(f"transformers' one-time conversion of the GGUF: {time.perf_counter() - t0:.1f} s")
        hf = fresh_load("transformers", env)
        print(f"for comparison, transformers from its converted cache: {hf[0]:.2f} s with imports, {hf[2]:.2f} s CPU")

    # ---- speed, side by side
    llama = load_generator(Config(backend="llamacpp"))
    hf_gen = load_generator(Config(backend="transformers"))
    prompt = llama.default_prompt(args.entity, args.lang)
    params = DecodingParams(max_tokens=args.tokens)
    ll = binding()
    ids = llama.encode_prompt(prompt)
    print(f"prompt: {prompt!r} ({len(ids)} tokens); {args.tokens} new tokens, T={params.temperature},"
          f" top-p={params.top_p}, seed={params.seed}; threads: llama.cpp {llama.threads},"
          f" transformers {hf_gen.cpu_threads or 'torch default'}")

    def timed(fn):
        c, t = time.process_time(), time.perf_counter()
        n = fn()
        return n, time.perf_counter() - t, time.process_time() - c

    def hf_stream() -> int:
        return sum(ch.tokens for ch in hf_gen.stream(prompt, params))

    def llama_stream() -> int:
        return sum(ch.tokens for ch in llama.stream(prompt, params))

    def llama_bare() -> int:
        with llama._lock:
            ctx = llama._contexts.single(len(ids) + args.tokens + 1)
            sampler = llamacpp._sampler(params)
            ctx.decode(ll.llama_batch_get_one(ids, 0))
            pos, n = len(ids), 0
            while n < args.tokens:
                tid = sampler.sample(ctx, -1)
                n += 1
                if llama.vocab.is_eog(tid) or n >= args.tokens:
                    break
                ctx.decode(ll.llama_batch_get_one([tid], pos))
                pos += 1
            return n

    runs = [("transformers", hf_stream), ("bare", llama_bare), ("stream", llama_stream)]
    for _, fn in runs:      # warm-up
        fn()
    print("| round | transformers stream tok/s | llama.cpp bare tok/s | llama.cpp stream tok/s |"
          " llama.cpp / transformers | stream / bare | CPU ms/token (transformers, bare, stream) |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    speedups, overheads, cpu_speedups, cpu_overheads = [], [], [], []
    for r in range(args.rounds):
        order = runs if r % 2 == 0 else runs[::-1]
        res = {name: timed(fn) for name, fn in order}
        tps = {k: v[0] / v[1] for k, v in res.items()}
        cpt = {k: 1000 * v[2] / v[0] for k, v in res.items()}
        speedups.append(tps["stream"] / tps["transformers"])
        overheads.append(tps["stream"] / tps["bare"])
        cpu_speedups.append(cpt["transformers"] / cpt["stream"])
        cpu_overheads.append(cpt["bare"] / cpt["stream"])
        print(f"| {r + 1} | {tps['transformers']:.1f} | {tps['bare']:.1f} | {tps['stream']:.1f} |"
              f" {speedups[-1]:.2f} | {overheads[-1]:.3f} | {cpt['transformers']:.0f}, {cpt['bare']:.1f},"
              f" {cpt['stream']:.1f} |", flush=True)
    print(f"CPU time per token, transformers / llama.cpp stream: median {statistics.median(cpu_speedups):.2f}")
    print(f"stream / bare by CPU time per token (steadier under load): median"
          f" {statistics.median(cpu_overheads):.3f}")
    print(f"stream_over_bare: {statistics.median(overheads):.3f} (goal >= 0.97)")
    print(f"llamacpp_over_transformers: {statistics.median(speedups):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
