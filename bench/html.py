"""A 20,000-fact session as a web page: export time, page weight, time to open in Chromium.

Two shapes of session, each with labels S, S, NS in turn, each NS fact with a wrong word marked,
every fact citing two of 60 evidence passages of about 1.2 KB with a reason, one fact in 50
relabelled by a person, the CaLM checks stored (as a checked session has them):

- `bio`: three facts to a sentence, about 45 characters of text per fact (the embedded model's
  Marie Curie biography has 44.5, FActScore's ChatGPT biographies about 35): a 0.9 MB text;
- `sentence`: one fact to a sentence of about 76 characters: a 1.5 MB text (the shape of
  bench/tui_big_sessions.py's 20k-facts session, with longer sentences).

Each is imported into a fresh MFACT_HOME and then:

- `mfact export ID --format html -o page.html` is timed end to end (a fresh process: reading the
  session from the store, the figures, the page, the write), and `session_page` alone in-process;
- the page is opened in headless Chromium (tests/_chromium.py) and timed from navigation to the
  load event, and to the first paint after it;
- the page's weight is printed.

Goals (issue 24): export <= 3 s, open <= 3 s, page <= 2 MB.

    .venv/bin/python bench/html.py [--facts 20000] [--rounds 3] [--shape bio|sentence|both]

The last lines are the `bio` shape's `html_open_20k_s`, `html_page_20k_mb` and, last,
`html_export_20k_s: <median seconds of the CLI export>`.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# this file's name is the standard library's `html`: its folder must not stand first on the path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT / "tests"))       # the DevTools client of the browser tests


def _sentences(n: int, shape: str) -> list[list[str]]:
    """The text's sentences, each as its facts' texts (joined by ", " or " and ")."""
    if shape == "sentence":
        return [[f"In {1800 + i % 200} Marie Curie wrote paper number {i} on radioactivity and chemistry"]
                for i in range(n)]
    out = []
    for k in range(0, n, 3):
        parts = [f"Marie Curie wrote her paper number {k} on radioactivity in {1800 + k % 200}",
                 f"studied radium and polonium in Paris in {1801 + k % 200}", f"won the chemistry prize {k + 2}"]
        out.append(parts[:n - k])
    return out


def make(n: int, shape: str = "bio") -> dict:
    from mfact.core.checks import calm_checks

    words = ("radioactivity chemistry physics polonium radium laboratory Sorbonne Warsaw Paris Nobel "
             "prize research element isotope uranium thorium").split()
    passages = [{"id": f"e{k}", "source": "wikipedia", "lang": "en", "title": "Marie Curie",
                 "section": f"Section {k}", "url": f"https://en.wikipedia.org/wiki/Marie_Curie#s{k}",
                 "text": " ".join(f"In {1860 + (k * 7 + j) % 70} Marie Curie studied {words[(k + j) % len(words)]}."
                                  for j in range(30)), "score": 0.5} for k in range(60)]
    text = " ".join(", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] + "."
                    for parts in _sentences(n, shape))
    facts, pos = [], 0
    for i, s in enumerate(p for parts in _sentences(n, shape) for p in parts):
        pos = text.index(s, pos)
        label = "NS" if i % 3 == 0 else "S"
        auto = {"label": label, "confidence": 0.8, "verifier": "offline/3",
                "evidence": [f"e{i % 60}", f"e{(i * 7 + 1) % 60}"],
                "reason": "p(supported)=0.31; best window similarity 0.84"}
        if label == "NS":
            y = next(j for j in range(len(s)) if s[j:j + 2] in ("18", "19"))
            auto["marks"] = [[y, y + 4]]                 # the year
        human = {"label": "S", "time": "2026-01-01T00:00:00+00:00"} if i % 50 == 7 else None
        facts.append({"id": f"f{i}", "text": s, "sentence": i // (1 if shape == "sentence" else 3),
                      "span": [pos, pos + len(s)], "auto": auto, "human": human})
        pos += len(s)
    return {"schema": "mfact.session/1", "id": f"big-html-{shape}-{n}", "language": "en",
            "entity": {"name": "Marie Curie"}, "text": text, "facts": facts, "evidence": passages,
            "stop_reason": "eos", "checks": calm_checks(text, "en").to_dict(),
            "generator": {"backend": "llamacpp", "model": "gemma-3-270m-q4_k_m", "seed": 0}}


CPU: list[float] = []      # CPU seconds of each `mfact` run (a loaded machine stretches wall time more)


def mfact(home: Path, *args: str) -> float:
    import resource

    env = dict(os.environ, MFACT_HOME=str(home))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "mfact.core.cli", *args], capture_output=True, text=True,
                       env=env, timeout=600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if p.returncode:
        raise SystemExit(f"mfact {' '.join(args)}: {p.stderr.strip()}")
    return wall


def in_process(doc: dict) -> float:
    from mfact.core.html_session import session_page
    from mfact.core.session import Session

    s = Session.from_dict(doc)
    session_page(s)                                      # warm: imports, caches
    t0 = time.perf_counter()
    session_page(s)
    return time.perf_counter() - t0


def open_times(page_path: Path, rounds: int) -> tuple[list[float], list[float], list[float]]:
    """Seconds to the load event, to the next frame, and the renderer's main-thread busy time
    (DevTools' TaskDuration: the work itself, which a loaded machine stretches less)."""
    from _chromium import Chromium, find_chromium

    if find_chromium() is None:
        print("chromium not found: the open time is not measured (sudo apt-get install -y chromium)")
        return [], [], []
    loads, paints, busy = [], [], []
    with Chromium() as browser:
        for _ in range(rounds):
            page = browser.page()
            page.call("Performance.enable")
            loads.append(page.open(page_path.resolve().as_uri()))
            t0 = time.perf_counter()
            page.evaluate("new Promise(r=>requestAnimationFrame(()=>requestAnimationFrame(r)))")
            paints.append(loads[-1] + time.perf_counter() - t0)
            metrics = {m["name"]: m["value"] for m in page.call("Performance.getMetrics")["metrics"]}
            busy.append(metrics.get("TaskDuration", float("nan")))
            assert page.errors == [], page.errors
            page.close()
    return loads, paints, busy


def measure(n: int, shape: str, rounds: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="mfact-bench-html-"))
    doc = make(n, shape)
    src = work / "session.json"
    src.write_text(json.dumps(doc), encoding="utf-8")
    home = work / "home"
    mfact(home, "import", str(src))
    page = work / "page.html"
    del CPU[:]
    cli = [mfact(home, "export", doc["id"], "--format", "html", "-o", str(page)) for _ in range(rounds)]
    cpu = list(CPU)
    loads, paints, busy = open_times(page, rounds)
    return {"text_mb": len(doc["text"].encode()) / 1e6, "page_mb": page.stat().st_size / 1e6, "cli": cli,
            "cpu": cpu, "inner": in_process(doc), "loads": loads, "paints": paints, "busy": busy,
            "cards": page.read_text(encoding="utf-8").count('<li class="card ')}


def report(n: int, shape: str, r: dict) -> None:
    med = statistics.median
    print(f"== {shape}: {n:,} facts, text {r['text_mb']:.2f} MB; load average {os.getloadavg()[0]:.1f}")
    print(f"page weight: {r['page_mb']:.2f} MB (goal <= 2 MB); fact cards: {r['cards']:,} of {n:,}")
    print(f"export, mfact export end to end: median {med(r['cli']):.2f} s of "
          f"{', '.join(f'{x:.2f}' for x in r['cli'])} (goal <= 3 s); CPU {med(r['cpu']):.2f} s; "
          f"session_page in-process {r['inner']:.2f} s")
    if r["loads"]:
        print(f"open in chromium, to the load event: median {med(r['loads']):.2f} s of "
              f"{', '.join(f'{x:.2f}' for x in r['loads'])}; to the next frame {med(r['paints']):.2f} s "
              f"(goal <= 3 s); renderer main thread busy {med(r['busy']):.2f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shape", choices=["bio", "sentence", "both"], default="both")
    args = ap.parse_args()
    shapes = ["bio", "sentence"] if args.shape == "both" else [args.shape]
    results = {shape: measure(args.facts, shape, args.rounds) for shape in shapes}
    for shape, r in results.items():
        report(args.facts, shape, r)
    first = results[shapes[0]]
    if first["paints"]:
        print(f"html_open_20k_s: {statistics.median(first['paints']):.2f}")
    print(f"html_page_20k_mb: {first['page_mb']:.2f}")
    print(f"html_export_20k_s: {statistics.median(first['cli']):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
