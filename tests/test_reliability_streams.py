"""Streams bounded in size, not only in time (issue 25, F4b and F8), against misbehaving servers on
127.0.0.1 (tests/_faults.py): one 10 MB event is cut at what --max-tokens allows and the session is
saved; a line that never ends (1 GB, plain or gzip) is refused at 16 MB with the memory of the
process bounded. bench/stream_bounds.py measures the same against another checkout, side by side."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _faults import FaultServer, clients, timed
from _peak import run_peak
from mfact.core.errors import MfactError

pytestmark = pytest.mark.timeout(240)
MFACT = str(Path(sys.executable).with_name("mfact"))


def run_measured(args: list[str], home: Path, timeout: float = 200) -> tuple[int, str, str, float, int]:
    """(exit code, stdout, stderr, seconds, peak resident memory in bytes) of `mfact ARGS`."""
    r = run_peak([MFACT, *args], env=dict(os.environ, MFACT_HOME=str(home)), kill_s=timeout)
    return r["rc"], r["out"], r["err"], r["s"], int(r["mb"] * 2**20)


def test_one_huge_event_is_cut_at_16_characters_a_token():
    from mfact.core.models.openai import MAX_TOKEN_CHARS, OpenAIGenerator
    from mfact.core.net import Deadlines
    from mfact.core.protocols import DecodingParams

    with FaultServer("huge-event") as server:
        gen = OpenAIGenerator(server.model_url, model="m", deadlines=Deadlines(idle=10, total=60))
        try:
            took, chunks = timed(lambda: list(gen.stream("p", DecodingParams(max_tokens=100))))
        finally:
            gen.close()
    assert not isinstance(chunks, Exception), chunks
    text = "".join(c.text for c in chunks)
    assert len(text) == 100 * MAX_TOKEN_CHARS and text.startswith("Marie Curie Marie")
    assert sum(c.tokens for c in chunks) == 100 and chunks[-1].stop_reason == "max_tokens"
    assert took < 20


@pytest.mark.parametrize("mode", ["endless-line", "endless-line-gzip"])
def test_a_line_that_never_ends_is_refused_at_the_bound_by_each_service(mode):
    with FaultServer(mode) as server:
        for name, call in clients(server, idle=10, total=60):
            took, res = timed(call)
            assert isinstance(res, MfactError), (name, res)
            line = f"{res.message} ({res.hint})"
            assert "\n" not in line and name.split()[0].lower() in line.lower(), line
            if name == "model server":
                assert "a line of more than 16 MB without a line break" in line, line
            assert took < 20, (name, took)


def test_f4b_check_against_one_10_mb_event_ends_with_the_session_saved(tmp_path):
    home = tmp_path / "home"
    with FaultServer("huge-event") as server:
        rc, out, err, took, _rss = run_measured(
            ["check", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.model_url, "--model", "m",
             "--offline", "--max-tokens", "500"], home)
    assert rc == 0, err[-2000:]
    assert "stop: max_tokens   tokens: 500" in out and "saved" in out
    assert took <= 35, took
    listed = subprocess.run([MFACT, "sessions", "list"], capture_output=True, text=True,
                            env=dict(os.environ, MFACT_HOME=str(home))).stdout
    assert len([ln for ln in listed.splitlines() if "Marie Curie" in ln]) == 1, listed


@pytest.mark.parametrize("mode", ["endless-line", "endless-line-gzip"])
def test_f8_memory_stays_bounded_against_a_1_gb_line_without_end(tmp_path, mode):
    with FaultServer(mode) as server:
        rc, out, err, took, rss = run_measured(
            ["generate", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.model_url, "--model", "m"],
            tmp_path / "home", timeout=120)
    assert rss < 512 * 2**20, f"peak memory {rss / 2**20:.0f} MB"
    lines = err.strip().splitlines()
    assert rc == 1 and len(lines) == 1, err[-2000:]
    assert "a line of more than 16 MB without a line break" in lines[0], lines
    assert took < 35, took


def test_lines_end_at_cr_lf_and_crlf_only_even_across_reads():
    from mfact.core.net import LineReader

    r = LineReader(max_line=100)
    got = [x for piece in ("data: a\u2028b\x0c".encode(), "\u2028".encode(), b"c\r", b"\ndata: d\r", b"\r\n", b"e")
           for x in r.feed(piece)] + list(r.close())
    assert got == ["data: a\u2028b\x0c\u2028c", "data: d", "", "e"]


def test_a_line_over_the_bound_is_refused_before_it_is_held():
    from mfact.core.net import LineReader, StreamError

    r = LineReader(max_line=10)
    assert list(r.feed(b"0123456789\n")) == ["0123456789"]
    with pytest.raises(StreamError, match="without a line break"):
        list(r.feed(b"01234567890"))


@pytest.mark.parametrize("wbits", [16 + 15, 15, -15], ids=["gzip", "zlib-deflate", "raw-deflate"])
def test_compressed_bodies_inflate_in_bounded_pieces(wbits):
    import zlib

    from mfact.core.net import DECODE_PIECE, Decoder, StreamError

    z = zlib.compressobj(9, zlib.DEFLATED, wbits)
    body = z.compress(b"x" * (50 * DECODE_PIECE)) + z.flush()
    d = Decoder("gzip" if wbits > 16 else "deflate")
    pieces = [p for i in range(0, len(body), 7) for p in d.feed(body[i:i + 7])]
    assert b"".join(pieces) == b"x" * (50 * DECODE_PIECE) and max(map(len, pieces)) <= DECODE_PIECE
    with pytest.raises(StreamError, match="does not read"):
        Decoder("br")
    with pytest.raises(StreamError, match="corrupt"):
        list(Decoder("gzip").feed(b"\x1f\x8b\x08\x00garbage-garbage"))


def test_a_raw_line_separator_inside_an_event_is_text_not_a_line_end():
    """httpx's iter_lines ended lines at U+2028 too, so an event holding one raw was 'malformed'."""
    import json

    from _loopback import LoopbackServer
    from mfact.core.models.openai import OpenAIGenerator
    from mfact.core.protocols import DecodingParams

    class Server(LoopbackServer):
        def post(self, h):
            h.rfile.read(int(h.headers.get("Content-Length") or 0))
            h.start_events()
            ev = json.dumps({"choices": [{"delta": {"content": "Lyon\u2028is in France."}}]}, ensure_ascii=False)
            h.wfile.write(f"data: {ev}\r\n\r\ndata: [DONE]\r\n\r\n".encode())

    with Server() as server:
        gen = OpenAIGenerator(server.url, model="m")
        try:
            chunks = list(gen.stream("p", DecodingParams(max_tokens=50)))
        finally:
            gen.close()
    assert "".join(c.text for c in chunks) == "Lyon\u2028is in France." and chunks[-1].stop_reason == "eos"
