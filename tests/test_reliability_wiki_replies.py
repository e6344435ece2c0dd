"""MediaWiki replies are checked by their kind and shape: each bad one is its own line in `kb add`'s
output and in the log (not "no page found"), one bad reply never aborts a `check` (the source is
skipped and the session keeps the warning), and `--lookup-timeout` bounds the whole lookup. Real
CLI runs against a fault server on 127.0.0.1 (tests/_faults.py)."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _faults import FaultServer, _bomb

MFACT = str(Path(sys.executable).with_name("mfact"))

# each fault and the words of its line
KINDS = {
    "bad-json": "sent malformed JSON",
    "html": "sent an HTML page",
    "redirect-loop": "redirects in a loop",
    "redirect-file": "redirected mfact to a file: URL",
    "huge-page": "sent a reply of more than 20 MB",
    "gzip-bomb": "more than 20 MB once decompressed",
    "null-pages": "wrong shape: query.pages is null",
    "null-page": "wrong shape: query.pages[0] is null",
    "stall-headers": "did not answer in time",
}


def _run(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([MFACT, *args], capture_output=True, text=True, timeout=timeout)


def _log(home: Path) -> str:
    logs = list(home.rglob("mfact.log"))
    return "".join(p.read_text(encoding="utf-8", errors="replace") for p in logs)


@pytest.mark.parametrize("mode", list(KINDS))
def test_kb_add_names_each_kind_of_bad_reply_and_logs_it(mode, mfact_home):
    if mode == "gzip-bomb":
        _bomb()                 # built once before the server answers with it
    with FaultServer(mode) as server:
        t = time.monotonic()
        p = _run("kb", "add", "--entity", "Marie Curie", "--lang", "en", "--source", "wikipedia",
                 "--wikipedia-url", server.wiki_url, "--lookup-timeout", "2")
        took = time.monotonic() - t
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and KINDS[mode] in lines[0], p.stderr
    assert "no page about" not in p.stderr and "Traceback" not in p.stderr
    assert KINDS[mode] in _log(mfact_home)
    if mode == "stall-headers":
        # a server that never answers: the whole lookup takes about --lookup-timeout, not idle's 30 s
        assert took < 2 + 6, took
        assert "sent nothing for 2 s" in p.stderr


@pytest.mark.parametrize("mode", ["null-page", "bad-json"])
def test_a_bad_reply_skips_the_source_and_the_check_goes_on(mode, tmp_path):
    bio = tmp_path / "bio.txt"
    bio.write_text("Marie Curie was a Polish physicist. She won the Nobel Prize in Physics.\n", encoding="utf-8")
    with FaultServer(mode) as server:
        p = _run("check", "--lang", "en", "--entity", "Marie Curie", "--text-file", str(bio),
                 "--wikipedia-url", server.wiki_url, "--lookup-timeout", "2", "--json")
    assert p.returncode == 0, p.stderr
    assert "AttributeError" not in p.stderr and "failed" not in p.stderr
    session = json.loads(p.stdout)
    assert session["status"] == "done" and session["facts"]
    assert all(f["auto"] for f in session["facts"])          # every fact has its verdict
    warned = [w for w in session["checks"]["warnings"] if w.startswith("wikipedia:")]
    assert warned and KINDS[mode] in warned[0] and "evidence is skipped" in warned[0]
    # stored: the saved session says so too
    out = _run("export", session["id"], "-o", "-")
    assert KINDS[mode] in " ".join(json.loads(out.stdout)["checks"]["warnings"])
