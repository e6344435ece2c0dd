"""A model server that drops the connection mid-stream (no `[DONE]`, no finish_reason) is not a
normal end: `generate` and `check` say `stop: connection lost`, exit 1, the session is
`interrupted` and its metrics say the text is incomplete (real subprocesses, a server on 127.0.0.1)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from _loopback import Handler, LoopbackServer

MFACT = str(Path(sys.executable).with_name("mfact"))
WORDS = ("Marie Curie was a Polish physicist.", " She was born")


class CutServer(LoopbackServer):
    """Streams two events, then closes the connection: `end` says what comes before the close
    (nothing, a finish_reason, or [DONE] alone)."""

    def __init__(self, end: str = "cut"):
        self.end = end
        super().__init__()

    def post(self, h: Handler) -> None:
        h.rfile.read(int(h.headers.get("Content-Length") or 0))
        h.start_events({"Connection": "close"})
        for word in WORDS:
            h.event({"choices": [{"delta": {"content": word}}]})
        if self.end == "finish":
            h.event({"choices": [{"delta": {}, "finish_reason": "stop"}]})
        elif self.end == "done":
            h.event("[DONE]")
        h.close_connection = True       # the socket closes with the handler: the body just ends


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([MFACT, *args], capture_output=True, text=True, timeout=180)


def test_generate_says_connection_lost_and_exits_1():
    with CutServer() as server:
        p = _run("generate", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.url, "--model", "m")
        assert p.returncode == 1, p.stderr
        assert "stopped: connection lost" in p.stderr and "the text is incomplete" in p.stderr
        assert "She was born" in p.stdout          # the text so far is kept
        p = _run("generate", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.url, "--model", "m",
                 "--json")
        session = json.loads(p.stdout.strip().splitlines()[-1])
        assert session["stop_reason"] == "connection_lost" and session["status"] == "interrupted"


@pytest.mark.parametrize("end", ["finish", "done"])
def test_a_stream_with_its_end_marker_is_a_normal_end(end):
    with CutServer(end) as server:
        p = _run("generate", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.url, "--model", "m")
    assert p.returncode == 0, p.stderr
    assert "stopped: eos" in p.stderr and "incomplete" not in p.stderr


def test_check_stores_an_interrupted_session_marked_incomplete():
    with CutServer() as server:
        p = _run("check", "--lang", "en", "--entity", "Marie Curie", "--offline", "--base-url", server.url,
                 "--model", "m", "--extractor", "rules")
    assert p.returncode == 1, p.stderr
    assert "stop: connection lost" in p.stdout and "text: INCOMPLETE" in p.stdout
    assert "connection was lost" in p.stderr
    sid = p.stdout.split("session ", 1)[1].split()[0]
    out = _run("export", sid, "-o", "-")
    assert out.returncode == 0, out.stderr
    session = json.loads(out.stdout)
    assert session["status"] == "interrupted" and session["stop_reason"] == "connection_lost"
    assert session["metrics"]["text_incomplete"] is True
    # the unfinished last sentence is not scored as a fact
    assert not any("born" in f["text"] for f in session["facts"])
