"""`mfact run --executor ray`: jobs on Ray actors, the driver alone writes the store.

One small local Ray (2 CPUs, no dashboard, a 100 MB object store) is started once for this module.
The pipelines are the fake ones of core/fake.py (real CheckPipeline, fake stages), except in the
slow test of the real command."""
from __future__ import annotations

import functools
import json
import os
import signal
import sys
import threading

import pytest

ray = pytest.importorskip("ray")

from mfact.core.batch import EntitySpec, JobDone, plan_jobs  # noqa: E402
from mfact.core.config import Config  # noqa: E402
from mfact.core.executors import ExecutorOptions, make_executor  # noqa: E402
from mfact.core.executors.ray_executor import RayExecutor, connect  # noqa: E402
from mfact.core.fake import FakeStages, fake_pipeline  # noqa: E402
from mfact.core.errors import MfactError
from mfact.core.store import Store  # noqa: E402

PEOPLE = [EntitySpec(n) for n in ("Marie Curie", "Albert Einstein", "Ada Lovelace")]


@pytest.fixture(scope="module")
def local_ray():
    started = connect(num_cpus=2, object_store_memory=100 * 1024 * 1024)
    yield
    if started:
        ray.shutdown()


def _events():
    seen: list[tuple[str, str]] = []
    lock = threading.Lock()

    def on_event(ev):
        with lock:
            seen.append((ev.kind, ev.job.session_id))
    return seen, on_event


def test_cli_ray_address_without_a_cluster_is_one_clear_line(tmp_path, capsys):
    from mfact.core.cli import main

    if ray.is_initialized():
        pytest.skip("a Ray is running in this process")
    rc = main(["run", "--ray-address", "127.0.0.1:1", "--lang", "en", "--entity", "Marie Curie",
               "--offline", "--no-progress"])
    err = capsys.readouterr().err
    assert rc != 0
    assert "cannot reach the Ray cluster at 127.0.0.1:1" in err or "Ray did not start" in err
    assert "Traceback" not in err


def test_cli_executor_ray_without_ray_installed_says_how_to_install(monkeypatch, capsys):
    from mfact.core.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)       # `import ray` raises ImportError
    rc = main(["run", "--executor", "ray", "--lang", "en", "--entity", "Marie Curie", "--offline",
               "--no-progress"])
    err = capsys.readouterr().err
    assert rc != 0 and "needs Ray, which is not installed" in err and "mfact[ray]" in err


def test_ray_executor_runs_every_job_once_and_a_rerun_skips_them(local_ray):
    cfg = Config()
    jobs = plan_jobs(PEOPLE, ["en", "es"], 1, cfg)
    store = Store()
    seen, on_event = _events()
    ex = make_executor("ray", store, functools.partial(fake_pipeline, stages=FakeStages(delay=0.001)), cfg,
                       on_event=on_event, options=ExecutorOptions(workers=2))
    summary = ex.run(jobs)
    assert not summary.failed
    assert sorted(summary.done) == sorted(j.session_id for j in jobs)
    done = [sid for kind, sid in seen if kind == "done"]
    assert sorted(done) == sorted(j.session_id for j in jobs)          # one event per session
    # the driver wrote every session; they look like local ones (id, status, run fingerprint)
    sessions = {s.id: s for s in store.iter_sessions()}
    assert set(sessions) == {j.session_id for j in jobs}
    for job in jobs:
        s = sessions[job.session_id]
        assert s.status == "done" and s.language == job.lang and s.entity.name == job.entity.name
        assert s.facts and s.config["run"]["sample"] == 0
    # both actors loaded their pipeline and ran in their own process
    pids = {w["pid"] for w in ex.worker_info}
    assert len(pids) == 2 and os.getpid() not in pids
    # again: everything is skipped, without asking Ray for anything
    seen2, on_event2 = _events()
    again = make_executor("ray", store, functools.partial(fake_pipeline), cfg,
                          on_event=on_event2, options=ExecutorOptions(workers=2)).run(jobs)
    assert again.done == [] and sorted(again.skipped) == sorted(j.session_id for j in jobs)
    assert {k for k, _ in seen2} == {"skipped"}


def test_ray_workers_that_cannot_build_their_pipeline_fail_each_job_with_the_reason(local_ray):
    cfg = Config()
    jobs = plan_jobs(PEOPLE[:2], ["en"], 1, cfg)
    store = Store()
    summary = RayExecutor(store, functools.partial(fake_pipeline, no_such_option=1), cfg,
                          options=ExecutorOptions(workers=1)).run(jobs)
    assert summary.done == [] and len(summary.failed) == 2
    assert all("unknown config option 'no_such_option'" in reason for _, reason in summary.failed)
    assert store.count() == 0


def test_unknown_executor_is_refused():
    with pytest.raises(MfactError, match="unknown executor 'dask'"):
        make_executor("dask", None, lambda: None, Config())


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_killed_ray_worker_loses_nothing_and_every_session_is_saved_once(local_ray):
    """SIGKILL one actor's process after the first session came back: Ray restarts the actor and
    re-runs its unit; every session ends up in the store exactly once."""
    cfg = Config()
    people = [EntitySpec(f"Person {i}") for i in range(8)]
    jobs = plan_jobs(people, ["en", "es"], 1, cfg)
    store = Store()
    seen, record = _events()
    killed: list[int] = []
    saves: list[str] = []
    real_save = store.save_session

    def save(session):
        saves.append(session.id)
        real_save(session)
    store.save_session = save

    def on_event(ev):
        record(ev)
        if isinstance(ev, JobDone) and not killed:
            pid = ex.worker_info[0].get("pid") or ray.get(ex_actor_pid())
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    def ex_actor_pid():
        raise AssertionError("the first worker did not report its pid")

    ex = RayExecutor(store, functools.partial(fake_pipeline, stages=FakeStages(delay=0.01)), cfg, on_event=on_event,
                     options=ExecutorOptions(workers=2))
    summary = ex.run(jobs)
    assert killed, "no worker was killed"
    assert not summary.failed
    ids = sorted(j.session_id for j in jobs)
    assert sorted(summary.done) == ids
    assert sorted(saves) == ids                                   # each saved exactly once
    assert sorted(sid for k, sid in seen if k == "done") == ids
    assert sorted(s.id for s in store.iter_sessions()) == ids


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_cli_run_on_ray_with_the_embedded_model_writes_four_sessions_then_skips_them(tmp_path, capsys):
    """The issue's command: 2 people x 2 languages on 2 local Ray workers, then the same again."""
    from mfact.core.cli import main

    if ray.is_initialized():
        ray.shutdown()
    out = tmp_path / "out"
    argv = ["run", "--executor", "ray", "--lang", "en,es", "--entity", "Marie Curie", "--entity",
            "Albert Einstein", "--offline", "--max-tokens", "60", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["done"] == 4 and summary["failed"] == []
    assert len(list(out.glob("run-*.json"))) == 4
    capsys.readouterr()
    assert main(argv) == 0
    again = json.loads((out / "summary.json").read_text())
    assert again["done"] == 0 and again["skipped"] == 4
    assert "skipped 4" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_cli_joins_a_cluster_started_with_ray_start_head(tmp_path, monkeypatch):
    """`ray start --head` (in the foreground, so that stopping it stops its processes only), then
    `mfact run --ray-address HOST:PORT` runs its jobs on that cluster and leaves it running."""
    import socket
    import subprocess
    import time

    if ray.is_initialized():
        ray.shutdown()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    host = ray.util.get_node_ip_address()      # where `ray start` listens
    ray_bin = os.path.join(os.path.dirname(sys.executable), "ray")
    # a throwaway cluster on this machine only: Ray's token authentication off for the head and
    # the driver alike (a real cluster keeps it on and gives the driver the token, docs/scale.md)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    head = subprocess.Popen([ray_bin, "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
                             "--include-dashboard=false", "--disable-usage-stats",
                             f"--object-store-memory={100 * 1024 * 1024}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})  # with the token
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                socket.create_connection((host, port), timeout=1).close()
                break
            except OSError:
                time.sleep(1)
        time.sleep(5)                                   # the raylet registers after the GCS listens
        from test_models_pool import Server     # a loopback OpenAI-compatible server

        server = Server("the server")
        out = tmp_path / "out"
        argv = ["run", "--ray-address", f"{host}:{port}", "--workers", "2", "--lang", "en",
                "--entity", "Marie Curie", "--entity", "Ada Lovelace", "--base-url", server.url, "--model", "m",
                "--prompt-style", "completion", "--offline", "--extractor", "rules", "--max-tokens", "20",
                "--out", str(out), "--no-progress"]
        # the driver in its own process, as a user runs it: a second Ray driver in this test
        # process (after the local-cluster tests) was refused its actors by the new cluster
        mfact_bin = os.path.join(os.path.dirname(sys.executable), "mfact")
        try:
            done = subprocess.run([mfact_bin, *argv], capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr
        finally:
            server.close()
        summary = json.loads((out / "summary.json").read_text())
        assert summary["done"] == 2 and summary["failed"] == [] and server.posts == 2
        assert head.poll() is None                      # the driver left the cluster running
        assert not ray.is_initialized()
    finally:
        head.terminate()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
