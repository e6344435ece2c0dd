"""mfact's own files (the adaptation file, config.toml) damaged, swapped for special files, or
written by two learns at once, driven as the probe drove them: the file put in mfact's data folder,
then the commands a user types (docs/reliability.md, "Probe groups: before and after": 1, 2, 8).

Every bad file is one line naming it and what to do; `learn --reset` recovers whatever it holds; a
FIFO or a link to /dev/zero is never read (no hang, no memory eaten); three `learn --lang` at once
keep each other's languages, each with a version of its own."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mfact.core.adapt import adaptation as A
from mfact.core.errors import MfactError
from mfact.core.store import Store
from test_adapt import labelled_session

MFACT = str(Path(sys.executable).with_name("mfact"))


def mfact(*args: str, timeout: float = 60, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([MFACT, *args], capture_output=True, text=True, timeout=timeout, **kw)


@pytest.fixture
def labelled(mfact_home) -> Path:
    """A store with 200 labels in each of en, es, fr, and the adaptation file `mfact learn` wrote."""
    with Store() as st:
        st.save_sessions([labelled_session("a", "en", 200, 2.5), labelled_session("b", "es", 200, -2.5, seed=1),
                          labelled_session("c", "fr", 200, 2.5, seed=2)])
    r = mfact("learn")
    assert r.returncode == 0, r.stderr
    return mfact_home / "data" / "adaptation.json"


def _good(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _damage(kind: str, good: dict) -> bytes:
    d = json.loads(json.dumps(good))
    if kind == "png":
        return b"\x89PNG garbage"
    if kind == "infinity":
        return b"Infinity"
    if kind == "deep":
        return b"[" * 100_000 + b"]" * 100_000
    if kind == "nan-weight":
        return json.dumps(d).replace('"w": [', '"w": [NaN, ', 1).encode()
    if kind == "future-schema":
        d["schema"] = "mfact.adaptation/9"
    elif kind == "languages-list":
        d["languages"] = list(d["languages"])
    elif kind == "adopted-string":
        d["languages"]["en"]["adopted"] = "false"
    elif kind == "score-string":
        d["languages"]["en"]["before"]["accuracy"] = "high"
    elif kind == "no-number":
        del d["number"]
    elif kind == "empty":
        return b""
    elif kind == "null":
        return b"null"
    return json.dumps(d).encode()


KINDS = ("png", "infinity", "deep", "nan-weight", "future-schema", "languages-list", "adopted-string",
         "score-string", "no-number", "empty", "null")


def test_each_kind_of_damage_is_one_line_naming_the_file_and_what_to_do(labelled):
    good = _good(labelled)
    for kind in KINDS:
        labelled.write_bytes(_damage(kind, good))
        with pytest.raises(MfactError) as exc:
            A.load_adaptation(labelled)
        line = exc.value.line()
        assert str(labelled) in line and "mfact learn --reset" in line and "\n" not in line, (kind, line)
        assert "UnicodeDecodeError" not in line and "RecursionError" not in line, (kind, line)


@pytest.mark.parametrize("kind", ["png", "nan-weight", "future-schema"])
def test_verifying_commands_go_on_unadapted_and_say_so_once(labelled, tmp_path, kind):
    """Before: `verify-pairs` ended in UnicodeDecodeError (png), or adapted nothing without a word
    (NaN, a future schema)."""
    labelled.write_bytes(_damage(kind, _good(labelled)))
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(json.dumps({"id": "1", "lang": "en", "claim": "Marie Curie was a physicist.",
                                 "evidence": ["Marie Curie was a physicist."]}) + "\n", encoding="utf-8")
    r = mfact("verify-pairs", str(pairs))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("1\t")
    warn = [x for x in r.stderr.splitlines() if "adaptation file" in x]
    assert len(warn) == 1 and str(labelled) in warn[0] and "not adapted" in warn[0] and "learn --reset" in warn[0], \
        r.stderr


def test_check_with_a_damaged_file_saves_a_done_session_and_says_so(labelled, tmp_path):
    labelled.write_bytes(b"\x89PNG garbage")
    text = tmp_path / "t.txt"
    text.write_text("Marie Curie was a Polish physicist. She won the Nobel Prize.", encoding="utf-8")
    r = mfact("check", "--lang", "en", "--entity", "Marie Curie", "--text-file", str(text), "--offline", timeout=120)
    assert r.returncode == 0, r.stderr
    assert sum("adaptation file" in x for x in r.stderr.splitlines()) == 1, r.stderr
    with Store() as st:
        newest = st.list_sessions(limit=1)[0]
        assert newest.id not in ("a", "b", "c") and st.get_session(newest.id).status == "done"


def test_learn_reset_recovers_whatever_the_file_holds(labelled):
    good = _good(labelled)
    for kind in KINDS:
        labelled.write_bytes(_damage(kind, good))
        r = mfact("learn", "--reset")
        assert r.returncode == 0, (kind, r.stderr)
        assert "unadapted verifier" in r.stdout
        assert r.stderr.count("\n") == 1 and "replaced" in r.stderr, (kind, r.stderr)   # said, once
        a = A.load_adaptation(labelled)
        assert a is not None and a.reset


def test_learn_replaces_a_damaged_file_and_says_what_was_lost(labelled):
    labelled.write_bytes(b"Infinity")
    r = mfact("learn", "--lang", "en")
    assert r.returncode == 0, r.stderr
    assert "replaced" in r.stderr and "other languages" in r.stderr and r.stderr.count("\n") == 1
    assert set(A.load_adaptation(labelled).languages) == {"en"}


# --------------------------------------------------------------------------- special files (group 8)


def _special(path: Path, kind: str) -> None:
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("kind", ["fifo", "zero", "folder"])
def test_a_special_adaptation_file_is_never_read_and_learn_reset_replaces_it(labelled, tmp_path, kind):
    _special(labelled, kind)
    t0 = time.monotonic()
    r = mfact("learn", "--dry-run", timeout=30)
    assert r.returncode == 0 and "would be replaced" in r.stderr, r.stderr
    if kind == "folder":
        r = mfact("learn", "--reset", timeout=30)
        assert r.returncode == 1 and str(labelled) in r.stderr and r.stderr.count("\n") == 1, r.stderr
        return
    r = mfact("learn", "--reset", timeout=30)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t0 < 20
    assert labelled.is_file() and not labelled.is_symlink() and A.load_adaptation(labelled).reset
    assert Path("/dev/zero").exists() and not Path("/dev/zero").is_file()        # the device untouched


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("kind", ["fifo", "zero", "folder"])
def test_a_special_config_file_is_one_line_not_a_hang(mfact_home, kind):
    path = mfact_home / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    _special(path, kind)
    t0 = time.monotonic()
    r = mfact("config", "show", timeout=30)
    assert time.monotonic() - t0 < 20
    assert r.returncode == 1 and r.stderr.startswith(f"mfact: error: config file {path}: "), r.stderr
    assert "not a regular file" in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_export_to_a_fifo_with_no_reader_is_refused_at_once(mfact_home, tmp_path):
    with Store() as st:
        st.save_session(labelled_session("a", "en", 3, 0.0))
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    r = mfact("export", "a", "-o", str(fifo), timeout=30)
    assert time.monotonic() - t0 < 20
    assert r.returncode == 1 and "no process reads" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert fifo.exists() and not fifo.is_file()                         # still the FIFO, not replaced


# --------------------------------------------------------------------------- learns at once (group 2)


def test_three_learns_at_once_keep_every_language_with_versions_of_their_own(labelled):
    """Before: `learn --lang en`, `es`, `fr` at once each said "written" and the file kept one
    language in 2 of 6 trials; all three had the same version number."""
    A.save_adaptation(A.reset_adaptation(A.next_number(labelled), "offline"), labelled)
    for trial in range(3):
        procs = [subprocess.Popen([MFACT, "learn", "--lang", lang], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for lang in ("en", "es", "fr")]
        outs = [p.communicate(timeout=120) for p in procs]
        assert all(p.returncode == 0 for p in procs), outs
        versions = [o.strip().splitlines()[-1].split()[1] for o, _e in outs]
        assert len(set(versions)) == 3 and len({v.split("-")[0] for v in versions}) == 3, versions
        a = A.load_adaptation(labelled)
        assert set(a.languages) == {"en", "es", "fr"}, (trial, sorted(a.languages))
        assert a.version in versions


def test_learn_reset_lang_resets_only_that_language(labelled):
    before = _good(labelled)
    r = mfact("learn", "--reset", "--lang", "en")
    assert r.returncode == 0, r.stderr
    assert "en unadapted from now on, the others kept (es, fr" in r.stdout
    after = _good(labelled)
    assert set(after["languages"]) == {"es", "fr"} and after["number"] == before["number"] + 1
    assert after["languages"]["es"] == before["languages"]["es"]
    assert not after["reset"]


def test_versions_stay_unique_after_the_file_was_lost(labelled):
    """The lock file remembers the last number: a damaged file does not make the next write "1-..." again."""
    first = _good(labelled)["number"]
    labelled.write_bytes(b"\x00garbage")
    assert mfact("learn").returncode == 0
    assert _good(labelled)["number"] == first + 1
