"""`mfact-tui --open` on big sessions: time to the first drawn frame and key latency.

Three sessions, written to a file and opened the way `mfact-tui --open FILE` does (read, validate,
mount the check screen) in Textual's headless harness:

- `1mb-text`: a 1 MB biography in sentences with 200 facts;
- `1mb-line`: a 1 MB text on one line (no spaces for 1000 characters at a time) with 50 facts;
- `20k-facts`: 20,000 facts over a 1.2 MB text.

For each: seconds from the start of `load_session_arg` to the first frame with the check screen
(goal <= 2 s), then key latency (j, k, s, n, u, G-style jumps) from the key's arrival to the first
frame after its action (goal: p95 <= 50 ms).

    .venv/bin/python bench/tui_big_sessions.py [--keys 200]

The last line is `tui_big_session_key_p95_ms: <worst p95 of the three>`.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

KEYS = [("j", "j"), ("j", "j"), ("k", "k"), ("s", "s"), ("n", "n"), ("u", "u"), ("u", "u"), ("down", None),
        ("j", "j"), ("end", None), ("home", None)]


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))] if xs else float("nan")


def make(kind: str) -> dict:
    facts = []
    if kind == "small":
        sent = [f"In {1890 + i} Marie Curie wrote paper number {i} on radioactivity." for i in range(45)]
        text = " ".join(sent)
        spans, pos = [], 0
        for x in sent:
            spans.append((pos, pos + len(x)))
            pos += len(x) + 1
    elif kind == "1mb-line":
        word = "x" * 999 + " "
        text = (word * 1000)[:1_000_000].replace(" ", "y")     # one line, no spaces
        n = 50
        step = len(text) // n
        spans = [(i * step, i * step + 40) for i in range(n)]
    else:
        n = 200 if kind == "1mb-text" else 20_000
        sent = [f"In {1800 + i % 200} Marie Curie wrote paper number {i} on radioactivity and chemistry."
                for i in range(n)]
        pad = "" if kind == "20k-facts" else " ".join(["She kept working in the laboratory every day."] * 110)
        parts, spans, pos = [], [], 0
        for s in sent:
            spans.append((pos, pos + len(s)))
            chunk = s + " " + (pad + " " if pad else "")
            parts.append(chunk)
            pos += len(chunk)
        text = "".join(parts)
    for i, (a, b) in enumerate(spans):
        facts.append({"id": f"f{i}", "text": text[a:b][:200], "sentence": i, "span": [a, b],
                      "auto": {"label": "S" if i % 3 else "NS", "confidence": 0.8, "evidence": ["e1"]},
                      "human": None})
    return {"schema": "mfact.session/1", "id": f"big-{kind}", "language": "en",
            "entity": {"name": "Marie Curie"}, "text": text, "facts": facts, "stop_reason": "eos",
            "evidence": [{"id": "e1", "source": "wikipedia", "lang": "en", "title": "Marie Curie",
                          "text": "Marie Curie was a physicist and chemist."}]}


async def measure(path: Path, n_keys: int, size=(160, 45)) -> dict:
    from textual import events

    from mfact.core.config import Config
    from mfact.tui.app import MfactApp, load_session_arg
    from mfact.tui.screens.check import CheckScreen

    cpu: list[float] = []
    t0 = time.perf_counter()
    session = load_session_arg(str(path))
    t_load = time.perf_counter() - t0
    app = MfactApp(Config(workers=1), session=session)
    frames: list[float] = []
    done: list[float] = []
    lat: list[float] = []
    display, run_action = app._display, app.run_action

    def timed_display(screen, renderable):
        display(screen, renderable)
        if renderable is not None:
            frames.append(time.perf_counter())

    async def timed_run_action(*a, **kw):
        r = await run_action(*a, **kw)
        done.append(time.perf_counter())
        return r

    app._display = timed_display
    app.run_action = timed_run_action
    async with app.run_test(size=size) as pilot:
        while not (isinstance(app.screen, CheckScreen) and frames):
            await pilot.pause(0.005)
            if time.perf_counter() - t0 > 60:
                raise SystemExit(f"{path.name}: nothing drawn in 60 s")
        t_first = frames[-1] - t0
        await pilot.pause(0.2)
        for i in range(n_keys):
            key, char = KEYS[i % len(KEYS)]
            k = len(done)
            c = time.process_time()
            t = time.perf_counter()
            app.post_message(events.Key(key, char))
            deadline = t + 5
            while time.perf_counter() < deadline:
                await asyncio.sleep(0.0005)
                if len(done) > k:
                    f = next((x for x in reversed(frames) if x >= done[k]), None)
                    if f is not None:
                        lat.append((f - t) * 1000)
                        cpu.append((time.process_time() - c) * 1000)
                        break
            await asyncio.sleep(0.01)
        app.shutdown()
    return {"load": t_load, "first": t_first, "lat": lat, "cpu": cpu}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=200)
    args = ap.parse_args()
    os.environ["MFACT_HOME"] = tempfile.mkdtemp(prefix="mfact-bench-")
    from mfact.tui.app import tune_gc
    tune_gc()
    tmp = Path(tempfile.mkdtemp(prefix="mfact-big-"))
    worst = 0.0
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    base = None
    for kind in ("small", "1mb-text", "1mb-line", "20k-facts"):
        path = tmp / f"{kind}.json"
        path.write_text(json.dumps(make(kind)), encoding="utf-8")
        r = asyncio.run(measure(path, args.keys))
        lat = r["lat"]
        p95 = percentile(lat, 0.95)
        cpu = statistics.median(r["cpu"])
        if kind == "small":
            base = (p95, cpu)
        else:
            worst = max(worst, p95)
        print(f"{kind:10s} file {path.stat().st_size / 1e6:.2f} MB: read+validate {r['load']:.2f} s, first frame "
              f"{r['first']:.2f} s (goal <= 2); keys {len(lat)}: p50 {statistics.median(lat):.1f} ms, "
              f"p95 {p95:.1f} ms, max {max(lat):.1f} ms (goal p95 <= 50); CPU per key median {cpu:.1f} ms"
              + (f" ({cpu / base[1]:.2f}x the small session's)" if base and kind != "small" else ""))
    print(f"tui_big_session_key_p95_ms: {worst:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
