"""No printed line of any command carries ESC, BEL or a bidi control, whatever the input or the
server sends: entity lists, server error bodies, streamed text, session files (real subprocesses)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from _loopback import Handler, LoopbackServer

MFACT = str(Path(sys.executable).with_name("mfact"))
EVIL = "\x1b]0;pwned\x07Marie Curie\x1b[2J\u202e\x9b31m"
UNSAFE = re.compile("[\x07\x1b\x9b\u202a-\u202e\u2066-\u2069\u200e\u200f]")


def _clean(p) -> None:
    both = p.stdout + p.stderr
    assert not UNSAFE.search(both), repr(both[:500])


class EvilServer(LoopbackServer):
    """An OpenAI-compatible server whose answers and errors are full of escape codes."""

    def __init__(self, status: int = 200):
        self.status = status
        super().__init__()

    def post(self, h: Handler) -> None:
        h.rfile.read(int(h.headers.get("Content-Length") or 0))
        if self.status != 200:          # no Content-Length: the body ends with the connection
            h.send_json(self.status, {"error": {"message": EVIL}}, length=False)
            return
        h.start_events()
        for word in (EVIL, " was a physicist.", "\x1b[31m red\x1b[0m"):
            h.event({"choices": [{"delta": {"content": word}}]})
        h.wfile.write(b'data: {"choices": [{"delta": {}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n')


def _run(*args, **kw):
    return subprocess.run([MFACT, *args], capture_output=True, text=True, timeout=120, **kw)


def test_run_with_an_entity_list_of_escape_codes_prints_no_esc(tmp_path):
    e = tmp_path / "e.txt"
    e.write_bytes(b"\x1b]0;pwned\x07Marie Curie\x1b[2J\n")
    p = _run("run", "--lang", "en", "--entities", str(e), "--offline", "--base-url", "http://127.0.0.1:9/v1",
             "--no-progress")
    _clean(p)
    assert p.returncode == 1 and "e.txt:1: the name holds a control character (U+001B)" in p.stderr
    p = _run("run", "--lang", "en", "--entity", EVIL, "--offline", "--base-url", "http://127.0.0.1:9/v1",
             "--no-progress")
    _clean(p)
    assert p.returncode == 1


@pytest.mark.parametrize("status", [500, 401])
def test_server_errors_full_of_escape_codes_print_clean_lines(status):
    server = EvilServer(status)
    try:
        p = _run("generate", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.url, "--model", "m")
        _clean(p)
        assert p.returncode == 1 and f"HTTP {status}" in p.stderr and "Marie Curie" in p.stderr
        p = _run("run", "--lang", "en", "--entity", "Marie Curie", "--offline", "--base-url", server.url,
                 "--model", "m", "--no-progress", "--json")
        _clean(p)
        assert "failed" in p.stderr and f"HTTP {status}" in p.stderr
    finally:
        server.close()


def test_streamed_text_with_escape_codes_prints_clean(tmp_path):
    server = EvilServer()
    try:
        p = _run("generate", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.url, "--model", "m")
        _clean(p)
        assert "Marie Curie" in p.stdout and "physicist" in p.stdout
        p = _run("generate", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.url, "--model", "m",
                 "--json")
        _clean(p)
        session = json.loads(p.stdout.strip().splitlines()[-1])
        f = tmp_path / "s.json"
        f.write_text(json.dumps(session), encoding="utf-8")
    finally:
        server.close()
    for args in (["import", str(f)], ["score", str(f)], ["score", str(f), "--json"], ["sessions", "list"],
                 ["export", "--all", "-o", str(tmp_path / "all.json")], ["report"]):
        _clean(_run(*args))


def test_score_json_escapes_bidi_controls(tmp_path):
    d = {"schema": "mfact.session/1", "id": "s1", "language": "en", "entity": {"name": "Ada \u202eecalevol"},
         "text": "Ada wrote notes.", "facts": [], "evidence": []}
    f = tmp_path / "s.json"
    f.write_text(json.dumps(d, ensure_ascii=False), encoding="utf-8")
    p = _run("score", str(f), "--json")
    assert p.returncode == 0, p.stderr
    _clean(p)
    assert "\\u202e" in p.stdout and json.loads(p.stdout)["entity"] == "Ada \u202eecalevol"
