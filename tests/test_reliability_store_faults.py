"""Store faults name their real cause, and an intact store is never called unreadable: a full disk
(a 300 KB tmpfs, when this user may mount one), a read-only home, another process holding the write
lock, and damaged pages (an import into a store failing `PRAGMA quick_check` is refused). Real CLI
runs on real SQLite files."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

MFACT = str(Path(sys.executable).with_name("mfact"))
BAD_ADVICE = ("not a readable mfact store", "move the file away", "cannot rollback", "Traceback")


def _run(*args: str, home: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "MFACT_HOME": str(home)}
    return subprocess.run([MFACT, *args], capture_output=True, text=True, timeout=timeout, env=env)


def _sessions_file(path: Path, n: int, chars: int, prefix: str = "s") -> Path:
    text = ("Marie Curie was a Polish physicist. " * (chars // 36 + 1))[:chars]
    sessions = [{"schema": "mfact.session/1", "id": f"{prefix}{i}", "language": "en",
                 "entity": {"name": "Marie Curie"}, "text": text, "facts": [], "evidence": []} for i in range(n)]
    path.write_text(json.dumps(sessions), encoding="utf-8")
    return path


def _store(home: Path) -> Path:
    found = list(home.rglob("sessions.sqlite3"))
    assert found, list(home.rglob("*"))
    return found[0]


def _sane(p: subprocess.CompletedProcess) -> None:
    assert not any(bad in p.stderr for bad in BAD_ADVICE), p.stderr
    assert len(p.stderr.strip().splitlines()) <= 2, p.stderr


@pytest.fixture
def small_disk(tmp_path):
    """A 300 KB tmpfs at tmp_path/disk, or a skip where mounting is not allowed."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode(errors='replace').strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_import_on_a_full_disk_says_the_disk_is_full(small_disk, tmp_path):
    home = small_disk / "home"
    p = _run("import", str(_sessions_file(tmp_path / "one.json", 1, 2000, "a")), home=home)
    assert p.returncode == 0, p.stderr
    p = _run("import", str(_sessions_file(tmp_path / "big.json", 40, 40_000)), home=home)
    assert p.returncode == 1
    _sane(p)
    assert "is full" in p.stderr and "intact" in p.stderr, p.stderr
    # the store kept what it had, and reads
    p = _run("sessions", "list", home=home)
    assert p.returncode == 0 and "a0" in p.stdout, p.stderr


def test_listing_and_exporting_on_a_full_disk_never_advise_moving_the_store(small_disk, tmp_path):
    home = small_disk / "home"
    assert _run("import", str(_sessions_file(tmp_path / "one.json", 1, 2000, "a")), home=home).returncode == 0
    filler = small_disk / "filler"
    try:                                # fill the disk to the last byte
        with open(filler, "wb", buffering=0) as f:
            while True:
                f.write(b"\0" * 4096)
    except OSError:
        pass
    for args in (["sessions", "list"], ["export", "--all", "-o", "-"], ["report"]):
        p = _run(*args, home=home)
        _sane(p)
        if p.returncode != 0:
            assert "full" in p.stderr or "failed to read or write" in p.stderr, (args, p.stderr)


def test_a_read_only_home_is_named_read_only(small_disk, tmp_path):
    home = small_disk / "home"
    assert _run("import", str(_sessions_file(tmp_path / "one.json", 1, 2000, "a")), home=home).returncode == 0
    r = subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot remount the tmpfs read-only")
    p = _run("import", str(_sessions_file(tmp_path / "two.json", 1, 2000, "b")), home=home)
    assert p.returncode == 1
    _sane(p)
    assert "read-only" in p.stderr, p.stderr
    p = _run("sessions", "list", home=home)
    _sane(p)
    assert p.returncode == 0 or "read-only" in p.stderr, p.stderr


def test_a_write_lock_held_by_another_process_is_said_in_seconds(tmp_path):
    home = tmp_path / "home"
    assert _run("import", str(_sessions_file(tmp_path / "one.json", 1, 2000, "a")), home=home).returncode == 0
    holder = sqlite3.connect(str(_store(home)), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        t = time.monotonic()
        p = _run("import", str(_sessions_file(tmp_path / "two.json", 1, 2000, "b")), home=home)
        took = time.monotonic() - t
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert p.returncode == 1
    _sane(p)
    assert "locked: another mfact process is writing to it" in p.stderr, p.stderr
    assert took < 20, took          # the busy timeout is 5 s (it was 30)
    p = _run("import", str(tmp_path / "two.json"), home=home)       # and once it is free, it works
    assert p.returncode == 0, p.stderr


def test_an_import_into_a_damaged_store_is_refused(tmp_path):
    home = tmp_path / "home"
    assert _run("import", str(_sessions_file(tmp_path / "many.json", 30, 20_000, "a")), home=home).returncode == 0
    db = _store(home)
    size = db.stat().st_size
    assert size > 64 * 4096, size
    with open(db, "r+b") as f:           # garbage over pages in the middle of the file
        for page in range(8, 40, 3):
            f.seek(page * 4096 + 100)
            f.write(os.urandom(1500))
    before = db.read_bytes()
    p = _run("import", str(_sessions_file(tmp_path / "two.json", 1, 2000, "b")), home=home)
    assert p.returncode == 1
    assert "damaged" in p.stderr and "quick_check" in p.stderr and "refused the import" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    assert db.read_bytes() == before          # nothing written
    for args in (["export", "--all", "-o", str(tmp_path / "out.json")], ["report"]):
        p = _run(*args, home=home)
        assert "Traceback" not in p.stderr and "DatabaseError" not in p.stderr, p.stderr
        if p.returncode != 0:
            assert "is damaged" in p.stderr, p.stderr
