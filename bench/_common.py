"""What several bench scripts share: percentiles, a folder that imports another checkout as
`mfact`, and the frame/action clocks of the TUI benches. (A bench script run as
`python bench/NAME.py` finds this module beside it.)"""
from __future__ import annotations

import bisect
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def percentile(xs: list[float], q: float) -> float:
    """The value at rank round(q * (n - 1)) of the sorted `xs` (nan when empty)."""
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))]


def shim(checkout: Path, where: Path | None = None) -> Path:
    """A folder (`where`, else a new temporary one) whose `mfact` package is `checkout`'s core, tui
    and themes: first on PYTHONPATH, it runs that checkout with this interpreter and packages."""
    where = where or Path(tempfile.mkdtemp(prefix="mfact-shim-"))
    pkg = where / "mfact"
    pkg.mkdir(parents=True)
    for part in ("core", "tui", "themes"):
        (pkg / part).symlink_to(checkout.resolve() / part)
    return where


def clock_frames(app) -> tuple[list[float], list[float]]:
    """From now on, the perf_counter time of each frame `app` draws and of each action it finishes
    (two lists that grow as the app runs)."""
    frames: list[float] = []
    actions_done: list[float] = []
    display, run_action = app._display, app.run_action

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
    return frames, actions_done


def first_at_or_after(times: list[float], t: float) -> float | None:
    """The first of the ascending `times` at or after `t` (None when none is yet): the frame that
    first shows what happened at `t`."""
    i = bisect.bisect_left(times, t)
    return times[i] if i < len(times) else None


def _rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def measure(argv: list[str], pythonpath: str | None, kill_mb: float, kill_s: float,
            home: str | None = None) -> dict:
    """Runs `python -m mfact.core.cli ARGV` (the checkout of `pythonpath`, a `shim`, or this one) in
    MFACT_HOME `home` (default: a new one), polling its resident memory every 50 ms and stopping it
    past `kill_mb` MB or `kill_s` s. Returns rc, s, mb (the peak, also from the kernel's ru_maxrss),
    cpu (user + system seconds, all threads: less disturbed by a loaded machine than s), killed (""
    or why), out, err and last (stderr's last line)."""
    env = dict(os.environ, MFACT_HOME=home or tempfile.mkdtemp(prefix="mfact-bench-home-"))
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.monotonic()
        p = subprocess.Popen([sys.executable, "-m", "mfact.core.cli", *argv], stdout=out, stderr=err, env=env)
        peak, killed = 0, ""
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _rss(p.pid))
            if not killed and peak > kill_mb * 2**20:
                killed = f"stopped at {kill_mb:.0f} MB"
            elif not killed and time.monotonic() - t > kill_s:
                killed = f"stopped at {kill_s:.0f} s"
            if killed:
                p.kill()
            time.sleep(0.05)
        took = time.monotonic() - t
        err.seek(0)
        out.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        stdout = out.read().decode("utf-8", "replace")
    return {"rc": os.waitstatus_to_exitcode(status), "s": took, "mb": max(peak, usage.ru_maxrss * 1024) / 2**20,
            "cpu": usage.ru_utime + usage.ru_stime, "killed": killed, "out": stdout, "err": stderr,
            "last": (stderr.strip().splitlines() or [""])[-1], "how": killed}
