"""`mfact-tui --open` on big sessions: time to the first drawn frame and key latency.

Three sessions, written to a file and opened the way `mfact-tui --open FILE` does (read, validate,
mount the check screen) in Textual's headless harness:

- `1mb-text`: a 1 MB biography in sentences with 200 facts;
- `1mb-line`: a 1 MB text on one line (no spaces for 1000 characters at a time) with 50 facts;
- `20k-facts`: 20,000 facts over a 1.2 MB text.

For each: seconds from the start of `load_session_arg` to the first frame with the check screen
(goal <= 2 s), then key latency (j, k, s, n, u, G-style jumps) from the key's arrival to the first
frame after its action (goal: p95 <= 50 ms). The first label (the fourth key, `s`) is also shown
apart: the session is not in the store yet, so that key saves it whole (on the UI thread before
the save moved to a thread worker: about 0.35 s for 20,000 facts).

    .venv/bin/python bench/tui_big_sessions.py [--keys 200]

Each session is measured in a fresh process; besides wall-clock figures it prints CPU seconds
(all threads) to the first frame and per key, and the UI thread's own CPU per key (without the
metrics worker's), which a loaded machine disturbs less. `--against
CHECKOUT` measures the same sessions with another checkout of mfact (imported through a folder of
links first on PYTHONPATH, as bench/side_by_side.py does: same interpreter, same packages) in the
same run, alternating, and prints both side by side with the CPU ratios:

    git worktree add /tmp/mfact-old 2ffd2ec
    .venv/bin/python bench/tui_big_sessions.py --against /tmp/mfact-old

The last line is `tui_big_session_key_p95_ms: <worst p95 of the three>`.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import clock_frames, first_at_or_after, percentile, shim

KEYS = [("j", "j"), ("j", "j"), ("k", "k"), ("s", "s"), ("n", "n"), ("u", "u"), ("u", "u"), ("down", None),
        ("j", "j"), ("end", None), ("home", None)]


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
    ui: list[float] = []          # the UI thread's own CPU (workers left out)
    first_label: dict = {}        # the first label's key: it saves the session opened from the file
    c0 = time.process_time()
    t0 = time.perf_counter()
    session = load_session_arg(str(path))
    t_load = time.perf_counter() - t0
    cpu_load = time.process_time() - c0
    app = MfactApp(Config(workers=1), session=session)
    lat: list[float] = []
    frames, done = clock_frames(app)
    async with app.run_test(size=size) as pilot:
        while not (isinstance(app.screen, CheckScreen) and frames):
            await pilot.pause(0.005)
            if time.perf_counter() - t0 > 60:
                raise SystemExit(f"{path.name}: nothing drawn in 60 s")
        t_first = frames[-1] - t0
        cpu_first = time.process_time() - c0
        await pilot.pause(0.2)
        for i in range(n_keys):
            key, char = KEYS[i % len(KEYS)]
            k = len(done)
            c = time.process_time()
            u = time.thread_time()
            t = time.perf_counter()
            app.post_message(events.Key(key, char))
            deadline = t + 5
            while time.perf_counter() < deadline:
                await asyncio.sleep(0.0005)
                if len(done) > k:
                    f = first_at_or_after(frames, done[k])
                    if f is not None:
                        lat.append((f - t) * 1000)
                        cpu.append((time.process_time() - c) * 1000)
                        ui.append((time.thread_time() - u) * 1000)
                        if char in ("s", "n") and not first_label:
                            first_label = {"lat": lat[-1], "ui": ui[-1], "action": (done[k] - t) * 1000}
                        break
            await asyncio.sleep(0.01)
        app.shutdown()
    return {"load": t_load, "cpu_load": cpu_load, "first": t_first, "cpu_first": cpu_first,
            "lat": lat, "cpu": cpu, "ui": ui, "first_label": first_label}


KINDS = ("small", "1mb-text", "1mb-line", "20k-facts")


def one(kind: str, n_keys: int) -> dict:
    """Measure one session kind in this process (a fresh one: `--one KIND`)."""
    os.environ["MFACT_HOME"] = tempfile.mkdtemp(prefix="mfact-bench-")
    from mfact.tui.app import tune_gc
    tune_gc()
    tmp = Path(tempfile.mkdtemp(prefix="mfact-big-"))
    path = tmp / f"{kind}.json"
    path.write_text(json.dumps(make(kind)), encoding="utf-8")
    r = asyncio.run(measure(path, n_keys))
    r["mb"] = path.stat().st_size / 1e6
    return r


def run_in(path: Path | None, kind: str, n_keys: int) -> dict:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, __file__, "--one", kind, "--keys", str(n_keys)],
                         capture_output=True, text=True, check=False, env=env)
    if out.returncode != 0:
        raise SystemExit(f"{path or 'this checkout'} {kind}: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def line(kind: str, r: dict) -> str:
    lat = r["lat"]
    return (f"read+validate {r['load']:.2f} s (CPU {r['cpu_load']:.2f}), first frame {r['first']:.2f} s "
            f"(CPU {r['cpu_first']:.2f}; goal <= 2); keys {len(lat)}: p50 {statistics.median(lat):.1f} ms, "
            f"p95 {percentile(lat, 0.95):.1f} ms, p99 {percentile(lat, 0.99):.1f} ms (goal p95 <= 50); "
            f"CPU per key median {statistics.median(r['cpu']):.1f} ms, mean {statistics.mean(r['cpu']):.1f} ms "
            f"(UI thread alone: median {statistics.median(r['ui']):.1f}, mean {statistics.mean(r['ui']):.1f})"
            f"; first label (saves the session): {first_label_line(r)}")


def first_label_line(r: dict) -> str:
    fl = r.get("first_label") or {}
    if not fl:
        return "not measured"
    return (f"key to frame {fl['lat']:.1f} ms, its action {fl['action']:.1f} ms, "
            f"UI thread CPU {fl['ui']:.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=200)
    ap.add_argument("--only", choices=KINDS, action="append", help="measure only these sessions")
    ap.add_argument("--against", metavar="CHECKOUT", type=Path,
                    help="also measure another checkout of mfact (a git worktree), side by side")
    ap.add_argument("--one", choices=KINDS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.keys)))
        return 0
    worst = 0.0
    other = shim(args.against) if args.against else None
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for kind in args.only or KINDS:
        r = run_in(None, kind, args.keys)
        p95 = percentile(r["lat"], 0.95)
        if kind != "small":
            worst = max(worst, p95)
        print(f"{kind:10s} file {r['mb']:.2f} MB: {line(kind, r)}")
        if args.against:
            o = run_in(other, kind, args.keys)
            print(f"{'':10s} {args.against.name}: {line(kind, o)}")
            print(f"{'':10s} CPU ratio (this / against): first frame "
                  f"{r['cpu_first'] / max(o['cpu_first'], 1e-9):.2f}, per key (mean) "
                  f"{statistics.mean(r['cpu']) / max(statistics.mean(o['cpu']), 1e-9):.2f}, UI thread per key "
                  f"(median) {statistics.median(r['ui']) / max(statistics.median(o['ui']), 1e-9):.2f}; "
                  f"load average now {os.getloadavg()[0]:.1f}")
            if r.get("first_label") and o.get("first_label"):
                print(f"{'':10s} first label, UI thread CPU ms (this / against): "
                      f"{r['first_label']['ui']:.1f} / {o['first_label']['ui']:.1f}; key to frame ms "
                      f"{r['first_label']['lat']:.1f} / {o['first_label']['lat']:.1f}")
        tag = kind.replace("-", "_")
        print(f"first_frame_cpu_s_{tag}: {r['cpu_first']:.3f}")
        print(f"key_cpu_ms_{tag}: {statistics.mean(r['cpu']):.2f}")
        print(f"key_ui_cpu_ms_{tag}: {statistics.median(r['ui']):.2f}")
        if r.get("first_label"):
            print(f"first_label_ui_cpu_ms_{tag}: {r['first_label']['ui']:.2f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print(f"tui_big_session_key_p95_ms: {worst:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
