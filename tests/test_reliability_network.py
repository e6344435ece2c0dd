"""Every network fault mode, for the model server, Wikipedia and SearXNG, ends in bounded time with one
clear line. Servers run on 127.0.0.1; deadlines are short here (idle 0.5 s, total 2 s) so the suite is
fast; bench/network_faults.py measures the same modes under the default deadlines."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _faults import MODES, FaultServer, clients, timed
from mfact.core.errors import MfactError

MFACT = str(Path(sys.executable).with_name("mfact"))
IDLE, TOTAL = 0.5, 2.0


@pytest.mark.parametrize("mode", MODES)
def test_each_fault_mode_ends_in_bounded_time_for_each_service(mode):
    with FaultServer(mode) as server:
        for name, call in clients(server, idle=IDLE, total=TOTAL):
            took, res = timed(call)
            assert took < TOTAL + 3.0, (name, mode, took)     # the bound, plus slack for a busy machine
            if mode == "endless" and name == "model server":
                # the server ignores max_tokens: mfact cuts it off at 20 tokens
                assert not isinstance(res, Exception), res
                assert sum(c.tokens for c in res) == 20 and res[-1].stop_reason == "max_tokens"
                continue
            assert isinstance(res, MfactError), (name, mode, res)
            line = f"{res.message} ({res.hint})"
            assert "\n" not in line and name.split()[0].lower() in line.lower(), line
            if mode in ("stall-headers", "stall-after", "keepalive", "trickle"):
                assert "in time" in line or "nothing useful" in line or "nothing for" in line \
                    or "within" in line, line


def test_429_tells_how_long_the_server_asked_us_to_wait():
    with FaultServer("429") as server:
        for name, call in clients(server, idle=IDLE, total=TOTAL):
            took, res = timed(call)
            assert isinstance(res, MfactError) and "3600 s" in res.message, (name, res)
            assert took < 3.0


@pytest.mark.parametrize("days,words", [(0.1, "2 h"), (30, "30 days"), (3650, "more than a year")])
def test_429_with_an_http_date_says_the_wait_in_words(days, words):
    """Retry-After may be an HTTP date; a far one printed "wait 2.3e+09 s"."""
    import email.utils

    when = email.utils.formatdate(time.time() + days * 86400 + 60, usegmt=True)
    with FaultServer("429", retry_after=when) as server:
        for name, call in clients(server, idle=IDLE, total=TOTAL):
            took, res = timed(call)
            assert isinstance(res, MfactError) and f"asked us to wait {words}" in res.message, (name, res)
            assert "e+" not in res.message and took < 3.0


def test_wikipedia_429_blocks_the_host_for_later_lookups_without_waiting():
    from mfact.core.knowledge.wikipedia import WaitPolicy, WikipediaClient
    from mfact.core.net import Deadlines

    waits: list[float] = []
    with FaultServer("429") as server:
        c = WikipediaClient(base_url=server.wiki_url,
                            waits=WaitPolicy(Deadlines(idle=IDLE, total=TOTAL), sleep=waits.append))
        with pytest.raises(MfactError, match="asked us to wait 3600 s"):
            c.page_info("X", "en")
        with pytest.raises(MfactError, match="asked us to wait"):
            c.page_info("Y", "en")
        assert waits == [] and server.requests == 1


def test_wikipedia_url_is_used_for_requests_and_the_offline_probe():
    from mfact.core.knowledge.wikipedia import WikipediaClient, probe_target

    assert probe_target("") == ("en.wikipedia.org", 443)
    assert probe_target("http://127.0.0.1:8080") == ("127.0.0.1", 8080)
    assert WikipediaClient(base_url="https://{lang}.wikipedia.org").endpoint("es") == \
        "https://es.wikipedia.org/w/api.php"
    assert WikipediaClient(base_url="http://127.0.0.1:8080/api.php").endpoint("es") == \
        "http://127.0.0.1:8080/api.php"
    with FaultServer("ok") as server:
        info = WikipediaClient(base_url=server.wiki_url).page_info("Marie Curie", "en")
        assert info["qid"] == "Q7186" and server.requests == 1
    with pytest.raises(MfactError, match="not an http"):
        WikipediaClient(base_url="ftp://x")


def _mfact(*args, timeout=60, env=None):
    return subprocess.run([MFACT, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


_START: list[float] = []


def startup() -> float:
    """Seconds `mfact generate` takes to fail at once (a refused connection): the start-up cost of
    the command on this machine, which bounds below are measured from."""
    if not _START:
        t = time.monotonic()
        _mfact("generate", "--lang", "en", "--entity", "X", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
        _START.append(time.monotonic() - t)
    return _START[0]


def test_cli_generate_endless_server_stops_at_max_tokens_within_5_s():
    with FaultServer("endless") as server:
        t = time.monotonic()
        p = _mfact("generate", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.model_url,
                   "--model", "m", "--max-tokens", "20", "--json")
        took = time.monotonic() - t
    assert p.returncode == 0, p.stderr
    import json
    session = json.loads(p.stdout.strip().splitlines()[-1])
    assert session["tokens"] == 20 and session["stop_reason"] == "max_tokens"
    assert took < max(5.0, startup() + 3.0)


def test_cli_generate_keepalive_server_ends_in_one_line_after_the_idle_deadline():
    with FaultServer("keepalive", tick=0.1) as server:
        t = time.monotonic()
        p = _mfact("generate", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.model_url,
                   "--model", "m", "--idle-timeout", "1")
        took = time.monotonic() - t
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and server.model_url in lines[0] and "nothing useful for 1 s" in lines[0], lines
    assert "--idle-timeout" in lines[0]
    assert took < startup() + 1 + 4


@pytest.mark.slow
def test_cli_generate_keepalive_server_with_the_default_deadline_ends_within_40_s():
    with FaultServer("keepalive", tick=1.0) as server:
        t = time.monotonic()
        p = _mfact("generate", "--lang", "en", "--entity", "Marie Curie", "--base-url", server.model_url,
                   "--model", "m", timeout=60)
        took = time.monotonic() - t
    assert p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "nothing useful for 30 s" in p.stderr
    assert 29 < took < 40


def test_cli_connect_and_first_byte_timeouts_match_the_docs():
    # nothing listening: refused at once (within the 3 s connect timeout, after start-up)
    p = _mfact("generate", "--lang", "en", "--entity", "X", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
    assert p.returncode == 1 and "cannot reach the model server" in p.stderr
    base = startup()
    # accepts but never answers: the first-byte deadline is the idle deadline
    with FaultServer("stall-headers") as server:
        t = time.monotonic()
        p = _mfact("generate", "--lang", "en", "--entity", "X", "--base-url", server.model_url, "--model", "m",
                   "--idle-timeout", "1")
        took = time.monotonic() - t
    assert p.returncode == 1 and "sent nothing for 1 s" in p.stderr, p.stderr
    assert 1 <= took < base + 1 + 3
