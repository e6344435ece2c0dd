"""Large given evidence (issue 25, F5): 5,000 passages of 1 KB in one `run --texts` line are checked in
bounded time, with progress lines while it runs; beyond the documented size the line is refused
(tests/test_reliability_inputs.py). bench/given_evidence.py measures it against another checkout."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _evidence import text_line

MFACT = str(Path(sys.executable).with_name("mfact"))


@pytest.mark.timeout(400)
def test_f5_5000_passages_of_1_kb_are_checked_with_progress(tmp_path):
    # the time it takes is bench/given_evidence.py's figure (timed tests flake on shared cores)
    line = text_line(5000, 1000, ident="big")
    texts = tmp_path / "t.jsonl"
    texts.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    env = dict(os.environ, MFACT_HOME=str(tmp_path / "home"))
    r = subprocess.run([MFACT, "run", "--texts", str(texts), "--offline"], capture_output=True, text=True,
                       env=env, timeout=380)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "progress: line 1 (big) [en]: indexing 5,000 given passages (5.0 M characters)" in r.stderr, r.stderr
    counts = [(int(a), int(b)) for a, b in re.findall(r"progress: line 1 \(big\) \[en\]: (\d+) of (\d+) facts checked",
                                                      r.stderr)]
    assert all(a <= b for a, b in counts) and counts == sorted(counts)
    doc = json.loads(subprocess.run([MFACT, "export", "--all", "-o", "-"], capture_output=True, env=env).stdout)
    session = doc["sessions"][0]
    assert session["config"]["evidence"] == {"given": 5000}
    assert len(session["facts"]) >= 5 and all(f["auto"] for f in session["facts"])
    own = {e["id"] for e in session["evidence"] if e["title"] == "passage 2501"}      # her own lead
    chem = next(f for f in session["facts"] if "Chemistry" in f["text"])
    assert own & set(chem["auto"]["evidence"]), chem


def test_a_running_job_reports_each_checked_fact_and_the_indexing_of_big_evidence(tmp_path, monkeypatch):
    from mfact.core.batch import BatchRunner, JobProgress
    from mfact.core.config import Config
    from mfact.core.pipeline import build_pipeline
    from mfact.core.texts import plan_text_jobs, read_text_lines
    monkeypatch.setenv("MFACT_HOME", str(tmp_path / "home"))

    texts = tmp_path / "t.jsonl"
    small = {**text_line(20, 300, ident="small"), "text": "Marie Curie won the Nobel Prize in Chemistry in 1911. "
             "She was born in Warsaw."}
    big = {**text_line(1000, 100, ident="big"), "text": "Marie Curie discovered radium."}
    texts.write_text("".join(json.dumps(x) + "\n" for x in (small, big)), encoding="utf-8")
    specs, bad = read_text_lines(texts)
    cfg = Config(offline=True)
    events: list = []
    from mfact.core.store import Store
    with Store() as store:
        BatchRunner(store, lambda: build_pipeline(cfg, need_generator=False), cfg,
                    on_event=events.append).run(plan_text_jobs(specs, cfg))
    got = [(e.job.text.id, e.message, e.start) for e in events if isinstance(e, JobProgress)]
    assert got[0][0] == "small" and got[0][1].startswith("1 of ") and not got[0][2]
    n_small = int(got[0][1].split()[2])
    assert [m for i, m, _ in got if i == "small"][-1] == f"{n_small} of {n_small} facts checked"
    assert ("big", "indexing 1,000 given passages (0.1 M characters)", True) in got
    assert [m for i, m, _ in got if i == "big"][-1] == "1 of 1 facts checked"


def test_progress_lines_without_the_bar_come_at_most_every_5_s(monkeypatch, capsys):
    from rich.console import Console

    from mfact.core.batch import EntitySpec, Job, JobProgress, JobStarted
    from mfact.core.commands import run as run_cmd

    now = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    show = run_cmd._RunProgress(Console(stderr=True), False, 1, None)
    job = Job(EntitySpec("Ada"), "en", 0, "s1")
    show(JobStarted(job))
    for t, message, start in [(0, "indexing 5,000 given passages", True), (1, "1 of 9 facts checked", False),
                              (6, "2 of 9 facts checked", False), (7, "3 of 9 facts checked", False),
                              (11.5, "4 of 9 facts checked", False)]:
        now[0] = 100.0 + t
        show(JobProgress(job, message, start))
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["progress: Ada [en] #0: indexing 5,000 given passages (0 s)",
                     "progress: Ada [en] #0: 2 of 9 facts checked (6 s)",
                     "progress: Ada [en] #0: 4 of 9 facts checked (12 s)"]
