"""Generation speed: mfact's streaming Generator against bare `model.generate`, and load time.

    .venv/bin/python bench/generation.py [--model embedded|ID|DIR|FILE.gguf] [--device auto]
                                         [--tokens 48] [--rounds 7] [--lang es] [--entity "Marie Curie"]

Same model, prompt, decoding settings, seed and CPU threads for all; bare generate is timed in the
caller's thread and in a worker thread (where the stream runs it), alternating the order every round
so that the machine's load hits all alike; the ratio is the stream's tokens/s over the mean of the
two bare runs in the same round. The ratio of CPU time per token is printed too: on a shared
machine it is steadier than wall-clock speed.
Reports per round tokens/s, the stream's time to first token, peak memory, and the embedded
default's load time once its cache exists (in a fresh process, imports included, and warm in this
process). The last line is the headline `stream_vs_generate_ratio: <median ratio>` (goal >= 0.97).
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOAD_SNIPPET = """
import time, sys
t0 = time.perf_counter()
from mfact.core.config import Config
from mfact.core.models import load_generator
t1 = time.perf_counter()
gen = load_generator(Config(model=sys.argv[1], device=sys.argv[2]))
t2 = time.perf_counter()
print(f"{t2 - t0:.3f} {t2 - t1:.3f}")
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
    import torch

    gpu = ""
    if torch.cuda.is_available():
        gpu = ", GPU " + torch.cuda.get_device_name(0)
    load = ""
    try:
        load = ", load average %.1f" % os.getloadavg()[0]
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores{gpu}{load}; Python {platform.python_version()},"
            f" torch {torch.__version__}, {torch.get_num_threads()} torch threads")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="embedded")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--tokens", type=int, default=48)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--lang", default="es")
    ap.add_argument("--entity", default="Marie Curie")
    ap.add_argument("--load-runs", type=int, default=2, help="fresh-process loads to time (0: skip)")
    args = ap.parse_args()

    import torch

    from mfact.core.config import Config
    from mfact.core.models import embedded, load_generator
    from mfact.core.protocols import DecodingParams

    print(f"machine: {machine()}")
    if args.model == "embedded" and not embedded.is_prepared():
        t0 = time.perf_counter()
        embedded.prepare(lambda p: print(f"  {p.message}", flush=True))
        print(f"first-run preparation of the embedded model: {time.perf_counter() - t0:.1f} s")

    # load time in a fresh process (imports included), once the cache exists
    fresh = []
    for _ in range(max(0, args.load_runs)):
        r = subprocess.run([sys.executable, "-c", LOAD_SNIPPET, args.model, args.device],
                           capture_output=True, text=True, cwd=str(ROOT))
        if r.returncode != 0:
            print(r.stderr[-2000:], file=sys.stderr)
            return 1
        total, model_only = (float(x) for x in r.stdout.split()[-2:])
        fresh.append((total, model_only))
    if fresh:
        print(f"load in a fresh process: {min(t for t, _ in fresh):.2f} s with imports,"
              f" {min(m for _, m in fresh):.2f} s load_generator alone (best of {len(fresh)})")

    t0 = time.perf_counter()
    gen = load_generator(Config(model=args.model, device=args.device))
    print(f"load_generator in this process: {time.perf_counter() - t0:.2f} s")
    model, tok = gen.module, gen.tokenizer
    prompt = gen.default_prompt(args.entity, args.lang)
    params = DecodingParams(max_tokens=args.tokens)
    kwargs = gen.generate_kwargs(params)
    enc = gen.encode_prompt(prompt)
    n_prompt = enc["input_ids"].shape[1]
    print(f"generation threads on CPU: {gen.cpu_threads or torch.get_num_threads()}"
          f" ({'MFACT_GEN_THREADS / small machine' if gen.cpu_threads else 'torch default'})")
    print(f"model: {gen.model} ({gen.backend}) on {model.device}, {model.dtype}; prompt {n_prompt} tokens;"
          f" {args.tokens} new tokens, T={params.temperature}, top-p={params.top_p}, seed={params.seed}")

    def bare() -> tuple[int, float, float]:
        if gen.cpu_threads:                 # the same CPU threads as the stream uses
            torch.set_num_threads(gen.cpu_threads)
        torch.manual_seed(params.seed)
        c, t = time.process_time(), time.perf_counter()
        out = model.generate(**enc, **kwargs)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        return out.shape[1] - n_prompt, time.perf_counter() - t, time.process_time() - c

    def bare_in_thread() -> tuple[int, float, float]:
        """bare generate in a worker thread, where mfact's stream runs it."""
        box: list = []
        th = threading.Thread(target=lambda: box.append(bare()))
        th.start()
        th.join()
        return box[0]

    def streamed() -> tuple[int, float, float, float]:
        c, t = time.process_time(), time.perf_counter()
        first = None
        n = 0
        for ch in gen.stream(prompt, params):
            if first is None and ch.text:
                first = time.perf_counter() - t
            n += ch.tokens
        return n, time.perf_counter() - t, time.process_time() - c, first or float("nan")

    bare()                      # warm-up (first call allocates caches)
    bare_in_thread()
    streamed()
    ratios, cpu_ratios, ttfts, main_tps, thread_tps, stream_tps = [], [], [], [], [], []
    print("| round | bare generate tok/s (caller thread) | bare generate tok/s (worker thread) |"
          " mfact stream tok/s | ratio | ratio of CPU time per token | stream first token (s) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in range(args.rounds):
        runs = [("main", bare), ("thread", bare_in_thread), ("stream", streamed)]
        order = runs if r % 2 == 0 else runs[::-1]
        res = {name: fn() for name, fn in order}
        bm = res["main"][0] / res["main"][1]
        bt = res["thread"][0] / res["thread"][1]
        s = res["stream"][0] / res["stream"][1]
        bare_cpu = (res["main"][2] / res["main"][0] + res["thread"][2] / res["thread"][0]) / 2
        stream_cpu = res["stream"][2] / res["stream"][0]
        main_tps.append(bm)
        thread_tps.append(bt)
        stream_tps.append(s)
        ratios.append(s / ((bm + bt) / 2))
        cpu_ratios.append(bare_cpu / stream_cpu)
        ttfts.append(res["stream"][3])
        print(f"| {r + 1} | {bm:.2f} | {bt:.2f} | {s:.2f} | {ratios[-1]:.3f} | {cpu_ratios[-1]:.3f} |"
              f" {res['stream'][3]:.3f} |", flush=True)
    bare_tps = [(a + b) / 2 for a, b in zip(main_tps, thread_tps)]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"bare generate: median {statistics.median(bare_tps):.2f} tok/s;"
          f" mfact stream: median {statistics.median(stream_tps):.2f} tok/s")
    print(f"time to first token (stream): median {statistics.median(ttfts):.3f} s")
    print(f"peak memory (RSS): {peak_mb:.0f} MB")
    if torch.cuda.is_available():
        print(f"peak GPU memory: {torch.cuda.max_memory_allocated() / 2**20:.0f} MB")
    print(f"stream/generate ratio (tokens/s): median {statistics.median(ratios):.3f},"
          f" mean {statistics.mean(ratios):.3f} (goal >= 0.97)")
    print(f"stream/generate ratio (CPU time per token, less sensitive to other jobs): median"
          f" {statistics.median(cpu_ratios):.3f}")
    print(f"stream_vs_generate_ratio: {statistics.median(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
