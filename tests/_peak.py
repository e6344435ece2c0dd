"""Run a command and measure its peak memory truly: through a small Python wrapper.

The kernel's peak resident size of a child (`ru_maxrss`) starts from its parent's size when it is
forked, even when it execs at once: a test process that holds 1.6 GB of models would make every
child it starts look 1.6 GB big. The wrapper is small (about 10 MB), so the figure it reads for its
own child is the child's. It also stops the child past a memory or time cap, and reports its CPU
time. Used by tests/test_reliability_streams.py and bench/_common.py `measure`.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

_WRAPPER = r"""
import resource, subprocess, sys, time
report, limit_kb, limit_s = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
p = subprocess.Popen(sys.argv[4:])
t, killed, peak = time.monotonic(), "", 0
while p.poll() is None:
    try:
        with open(f"/proc/{p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    peak = max(peak, int(line.split()[1]))
    except OSError:
        pass
    if not killed and limit_kb and peak > limit_kb:
        killed = f"stopped at {limit_kb / 1024:.0f} MB"
    elif not killed and limit_s and time.monotonic() - t > limit_s:
        killed = f"stopped at {limit_s:.0f} s"
    if killed:
        p.kill()
        p.wait()
        break
    time.sleep(0.05)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(report, "w") as f:
    f.write(f"{max(peak, ru.ru_maxrss)} {ru.ru_utime + ru.ru_stime}\n{killed}")
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)
"""


def run_peak(argv: list[str], env: dict | None = None, kill_mb: float = 0, kill_s: float = 0) -> dict:
    """Runs `argv`; a dict of rc, s (wall seconds), mb (peak resident memory), cpu (user + system
    seconds), killed ("" or why it was stopped), out, err and last (stderr's last line)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".peak") as report:
        t = time.monotonic()
        rc = subprocess.call([sys.executable, "-c", _WRAPPER, report.name, str(kill_mb * 1024), str(kill_s), *argv],
                             stdout=out, stderr=err, env=env if env is not None else dict(os.environ))
        took = time.monotonic() - t
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
        head, _, killed = report.read().partition("\n")
    kb, cpu = head.split() if head else ("0", "0")
    return {"rc": rc, "s": took, "mb": int(kb) / 1024, "cpu": float(cpu), "killed": killed, "out": stdout,
            "err": stderr, "last": (stderr.strip().splitlines() or [""])[-1], "how": killed}
