"""What several bench scripts share: percentiles, a folder that imports another checkout as
`mfact`, the frame/action clocks of the TUI benches, and the detector's articles pickle. (A bench script run as
`python bench/NAME.py` finds this module beside it.)"""
from __future__ import annotations

import bisect
import os
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


def measure(argv: list[str], pythonpath: str | None, kill_mb: float, kill_s: float,
            home: str | None = None) -> dict:
    """Runs `python -m mfact.core.cli ARGV` (the checkout of `pythonpath`, a `shim`, or this one) in
    MFACT_HOME `home` (default: a new one), stopped past `kill_mb` MB or `kill_s` s, through
    tests/_peak.py (a small wrapper, so the peak memory is the command's own). Returns rc, s, mb
    (peak), cpu (user + system seconds, all threads: less disturbed by a loaded machine than s),
    killed ("" or why), out, err and last (stderr's last line)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from _peak import run_peak

    env = dict(os.environ, MFACT_HOME=home or tempfile.mkdtemp(prefix="mfact-bench-home-"))
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return run_peak([sys.executable, "-m", "mfact.core.cli", *argv], env=env, kill_mb=kill_mb, kill_s=kill_s)


def articles_pickle(given: str = "") -> Path | None:
    """The detector's sentence-split articles pickle: `given`, else the newest in mfact's cache dir;
    None (and what to do, on stderr) when there is none."""
    from mfact.core.paths import cache_dir
    path = Path(given) if given else max((cache_dir() / "detector").glob("articles-*.pkl"),
                                        key=lambda p: p.stat().st_mtime, default=None)
    if path is None or not path.is_file():
        print("no articles pickle: build it with `python bench/corruption_verdicts.py --wiki DIR --silver DIR` "
              "(DIR: the wiki_references*.csv files of WorldHellow/mHallucinations-LLM "
              "datasets/hallucination_evaluation/; the mFAVA silver files, whose articles are left out)",
              file=sys.stderr)
        return None
    return path


def build_articles(wiki: str, silver: str) -> Path | None:
    """The articles pickle made from `wiki`'s wiki_references*.csv files and the bundled leads (less
    the articles of the mFAVA silver files in `silver`), as `python -m mfact.core.training.train_detector
    --wiki` reads them; kept in mfact's cache dir under a digest of the files' names and sizes, so a
    second run reads it back. None (and why, on stderr) when `wiki` holds no such file."""
    import hashlib
    import pickle
    from mfact.core.paths import cache_dir
    from mfact.core.training import detector_data as dd
    folder = Path(wiki).expanduser()
    files = sorted(folder.glob("wiki_references*.csv"))
    if not files:
        print(f"no wiki_references*.csv in {wiki}", file=sys.stderr)
        return None
    key = hashlib.sha256(repr([(p.name, p.stat().st_size) for p in files] + [str(silver)]).encode()).hexdigest()
    path = cache_dir() / "detector" / f"articles-wiki-{key[:12]}.pkl"
    if path.is_file():
        return path
    arts, rep = dd.load_articles(folder, leads=True, silver_dir=Path(silver).expanduser(), cache=None)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps((arts, rep)))
    print(f"articles: {len(arts)} from {len(files)} files and the bundled leads, "
          f"{sum(rep.get('dropped_silver', {}).values())} left out as silver's -> {path}", file=sys.stderr)
    return path
