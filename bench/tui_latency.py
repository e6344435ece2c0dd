"""Key latency of the terminal app while a model streams and the verifier runs.

Runs `mfact-tui` headless (Textual's test harness) against the fake pipeline: a generator streaming
a biography of about 500 tokens and 45 facts at `--delay` seconds per token, a verifier taking
`--verify-delay` seconds per fact on 2 workers, and `r` regenerating whenever a text is finished,
so keys are always pressed while the model writes. Key events enter the app exactly as the
terminal driver delivers them; the latency of one key is the time from its arrival to the first
frame composed after its action finished (the frame's screen update included). Keys: fact
navigation (j, k, down) and relabels (s, n, i, u), about every 30 ms.

(Pilot's `press` is not used for timing: it waits for the whole process to go idle, which never
happens while a stream runs.)

    .venv/bin/python bench/tui_latency.py [--keys 300] [--delay 0.02]
    .venv/bin/python bench/tui_latency.py --model embedded     # the embedded model through llama.cpp

`--model embedded` streams from the real embedded default (llama.cpp in-process, its token loop
in the pipeline's thread) instead of the fake generator; checking stays fake (`--verify-delay`).

The last line is `tui_key_latency_p95_ms: <value>` (goal: <= 30).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time

KEYS = [("j", "j"), ("j", "j"), ("k", "k"), ("s", "s"), ("n", "n"), ("u", "u"), ("down", None),
        ("i", "i"), ("u", "u"), ("j", "j")]


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[i]


async def run(n_keys: int, delay: float, verify_delay: float, size: tuple[int, int],
              gap: float, model: str = "") -> dict:
    from textual import events

    from mfact.core.config import Config
    from mfact.core.fake import fake_pipeline
    from mfact.tui.app import MfactApp
    from mfact.tui.screens.check import CheckScreen

    text = " ".join(f"In {1890 + i} Marie Curie wrote paper number {i} on radioactivity."
                    for i in range(45))
    cfg = Config(workers=2)
    factory = lambda c, p=None: fake_pipeline(text=text, cfg=c, delay=delay, verify_delay=verify_delay)  # noqa: E731
    if model:
        from mfact.core.fake import FakeEmbedder, FakeExtractor, FakeRetriever, FakeVerifier
        from mfact.core.models import load_generator
        from mfact.core.pipeline import CheckPipeline

        real = load_generator(Config(model=model))
        cfg.max_tokens = 300

        def factory(c, p=None):
            return CheckPipeline(real, FakeExtractor(), FakeRetriever(), FakeVerifier(delay=verify_delay),
                                 c, embedder=FakeEmbedder())
    app = MfactApp(cfg, lang="en", entity="Marie Curie", pipeline_factory=factory)
    frames: list[float] = []
    actions_done: list[float] = []
    lat: list[float] = []
    lost = 0
    async with app.run_test(size=size) as pilot:
        display = app._display
        run_action = app.run_action

        def timed_display(screen, renderable):
            display(screen, renderable)
            if renderable is not None:
                frames.append(time.perf_counter())

        async def timed_run_action(*a, **kw):
            result = await run_action(*a, **kw)
            actions_done.append(time.perf_counter())
            return result

        app._display = timed_display
        app.run_action = timed_run_action

        t0 = time.monotonic()
        while not (isinstance(app.screen, CheckScreen) and len(app.screen.session.facts) >= 3):
            await pilot.pause(0.01)
            if time.monotonic() - t0 > 30:
                raise SystemExit("the fake pipeline produced no facts in 30 s")
        scr = app.screen
        regenerations = 0
        tokens_done = 0
        t_start = time.monotonic()
        threads0 = thread_cpu()
        ui0 = time.thread_time()
        ui_key: list[float] = []
        for i in range(n_keys):
            if not scr.running:
                tokens_done += scr.session.tokens
                scr.action_regenerate()
                regenerations += 1
                await asyncio.sleep(0.05)
            key, char = KEYS[i % len(KEYS)]
            n_actions = len(actions_done)
            c = time.thread_time()
            t = time.perf_counter()
            app.post_message(events.Key(key, char))
            deadline = t + 5.0
            while time.perf_counter() < deadline:
                await asyncio.sleep(0.0005)
                if len(actions_done) > n_actions:
                    done_at = actions_done[n_actions]
                    frame = next((f for f in reversed(frames) if f >= done_at), None)
                    if frame is not None:
                        lat.append((frame - t) * 1000)
                        ui_key.append((time.thread_time() - c) * 1000)
                        break
            else:
                lost += 1
            await asyncio.sleep(gap)
        elapsed = time.monotonic() - t_start
        ui_cpu = time.thread_time() - ui0
        threads1 = thread_cpu()
        tokens_done += scr.session.tokens
        facts = len(scr.session.facts)
        app.shutdown()
    cpu_by_name: dict[str, float] = {}
    for tid, (name, c1) in threads1.items():
        c0 = threads0.get(tid, (name, 0.0))[1]
        key = "ui (the app's loop)" if tid == threading.get_native_id() else name
        cpu_by_name[key] = cpu_by_name.get(key, 0.0) + c1 - c0
    return {"regenerations": regenerations, "lat": lat, "lost": lost, "elapsed": elapsed,
            "tokens": tokens_done, "facts": facts, "ui_cpu": ui_cpu, "ui_key": ui_key,
            "threads": cpu_by_name}


def thread_cpu() -> dict[int, tuple[str, float]]:
    """CPU seconds so far of each thread of this process, by native id (Linux /proc), with the
    Python name of the thread where it has one (llama.cpp's own threads are named by the kernel)."""
    names = {t.native_id: t.name.split("_")[0].rstrip("-0123456789") for t in threading.enumerate()}
    out: dict[int, tuple[str, float]] = {}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return out
    for t in tids:
        try:
            with open(f"/proc/self/task/{t}/stat") as fh:
                stat = fh.read()
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2:].split()
            cpu = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, ValueError, IndexError):
            continue
        out[int(t)] = (names.get(int(t), comm), cpu)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=300)
    ap.add_argument("--delay", type=float, default=0.02, help="seconds per streamed token")
    ap.add_argument("--verify-delay", type=float, default=0.02, help="seconds per verification")
    ap.add_argument("--gap", type=float, default=0.03, help="seconds between keys")
    ap.add_argument("--no-gc-tuning", action="store_true",
                    help="measure without the garbage-collector tuning mfact-tui applies")
    ap.add_argument("--model", default="", help="a real model instead of the fake generator (e.g. embedded)")
    ap.add_argument("--width", type=int, default=160)
    ap.add_argument("--height", type=int, default=45)
    args = ap.parse_args()
    os.environ["MFACT_HOME"] = tempfile.mkdtemp(prefix="mfact-bench-")
    if not args.no_gc_tuning:
        from mfact.tui.app import tune_gc
        tune_gc()                     # as `mfact-tui` does before it starts
    r = asyncio.run(run(args.keys, args.delay, args.verify_delay, (args.width, args.height),
                        args.gap, args.model))
    lat = r["lat"]
    print(f"keys pressed while streaming: {len(lat)} measured, {r['lost']} without a frame in 5 s,"
          f" {r['regenerations']} regenerations")
    print(f"stream during the measurement: {r['tokens']} tokens in {r['elapsed']:.1f} s "
          f"({r['tokens'] / max(r['elapsed'], 1e-9):.0f} tok/s)")
    print(f"key latency ms: p50 {statistics.median(lat):.1f}  p90 {percentile(lat, 0.90):.1f}  "
          f"p95 {percentile(lat, 0.95):.1f}  p99 {percentile(lat, 0.99):.1f}  max {max(lat):.1f}")
    ui = r["ui_key"]
    print(f"UI-thread CPU: {1000 * r['ui_cpu'] / max(r['elapsed'], 1e-9):.0f} ms per second of streaming; "
          f"per key (key to frame, whatever else the loop did meanwhile) median {statistics.median(ui):.1f} ms, "
          f"p95 {percentile(ui, 0.95):.1f} ms")
    busy = sorted(r["threads"].items(), key=lambda kv: -kv[1])
    print("CPU seconds per thread during the measurement: " + ", ".join(
        f"{name} {sec:.1f}" for name, sec in busy if sec >= 0.05) + f" (load average {os.getloadavg()[0]:.1f})")
    print(f"goal: p95 <= 30 ms -> {'met' if percentile(lat, 0.95) <= 30 else 'NOT met'}")
    print(f"ui_cpu_ms_per_s: {1000 * r['ui_cpu'] / max(r['elapsed'], 1e-9):.1f}")
    print(f"ui_cpu_per_key_ms: {statistics.mean(ui):.2f}")
    print(f"tui_key_latency_p95_ms: {percentile(lat, 0.95):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
