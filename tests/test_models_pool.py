"""`--base-url` repeated: generation balanced over several loopback OpenAI-compatible servers; a
server that fails is taken out of rotation with a notice and comes back after its cool-down."""
from __future__ import annotations

import json
import threading
import time

import pytest

from _loopback import Handler, LoopbackServer, free_port
from mfact.core.config import Config
from mfact.core.options import config_from_args
from mfact.core.models import load_generator
from mfact.core.models.openai import OpenAIGenerator
from mfact.core.models.pool import ServerPool, split_urls
from mfact.core.errors import MfactError
from mfact.core.protocols import DecodingParams


class Server(LoopbackServer):
    """Streams "Hello from <name>." word by word; `mode` switches it to fail: "500" answers HTTP
    500, "break" sends one word and then an error event."""

    def __init__(self, name: str, delay: float = 0.0):
        self.name, self.delay, self.mode = name, delay, "ok"
        self.posts = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        super().__init__()

    def get(self, h: Handler) -> None:
        h.send_json(200, {"data": [{"id": "m"}]})

    def post(self, h: Handler) -> None:
        h.rfile.read(int(h.headers["Content-Length"]))
        with self.lock:
            self.posts += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.mode == "500":      # no Content-Length: the body ends with the connection
                h.send_json(500, {"error": {"message": "engine dead"}}, length=False)
                return
            h.start_events()
            words = f"Hello from {self.name}.".split(" ")
            for i, w in enumerate(words):
                piece = w if i == 0 else " " + w
                h.event({"choices": [{"index": 0, "text": piece}]})
                if self.mode == "break":      # as vLLM reports an engine failure mid-stream
                    h.event({"error": {"message": "engine died mid-request"}})
                    return
                time.sleep(self.delay)
            end = {"choices": [{"index": 0, "text": "", "finish_reason": "stop"}]}
            h.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
        finally:
            with self.lock:
                self.in_flight -= 1


def dead_url() -> str:
    return f"http://127.0.0.1:{free_port()}/v1"      # nothing listens there: connection refused


@pytest.fixture
def servers():
    made: list[Server] = []

    def make(name, delay=0.0):
        made.append(Server(name, delay))
        return made[-1]
    yield make
    for s in made:
        s.close()


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def pool(urls, **kw) -> tuple[ServerPool, list[str]]:
    notices: list[str] = []
    gens = [OpenAIGenerator(u, model="m", prompt_style="completion") for u in urls]
    return ServerPool(gens, on_notice=notices.append, shared=False, **kw), notices


def text_of(gen, prompt="Tell me about Ada.") -> str:
    return "".join(c.text for c in gen.stream(prompt, DecodingParams(max_tokens=20)))


def test_requests_are_spread_over_the_servers(servers):
    a, b, c = servers("a"), servers("b"), servers("c")
    p, notices = pool([a.url, b.url, c.url])
    texts = [text_of(p) for _ in range(9)]
    assert (a.posts, b.posts, c.posts) == (3, 3, 3)
    assert {t for t in texts} == {"Hello from a.", "Hello from b.", "Hello from c."}
    assert notices == []


def test_concurrent_requests_go_to_the_least_busy_server(servers):
    a, b = servers("a", delay=0.05), servers("b", delay=0.05)
    p, _ = pool([a.url, b.url])
    threads = [threading.Thread(target=text_of, args=(p,)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert a.posts + b.posts == 6
    assert a.posts == b.posts == 3
    assert a.max_in_flight <= 3 and b.max_in_flight <= 3


def test_an_unreachable_server_is_taken_out_with_a_notice_and_tried_again_after_the_cooldown(servers):
    good = servers("good")
    bad = dead_url()
    clock = Clock()
    p, notices = pool([bad, good.url], cooldown=30.0, clock=clock)
    # every request succeeds: the first one that met the dead server went on to the good one
    assert [text_of(p) for _ in range(4)] == ["Hello from good."] * 4
    assert good.posts == 4
    assert len(notices) == 1
    assert notices[0].startswith(f"model server {bad} failed (cannot reach the model server")
    assert "taken out of rotation for 30 s, 1 of 2 left" in notices[0]
    assert p.healthy() == [good.url]
    # after the cool-down it is tried again (still dead: no second notice, the request still succeeds)
    clock.t += 31
    assert text_of(p) == "Hello from good."
    assert len(notices) == 1 and good.posts == 5


def test_a_server_that_comes_back_is_back_in_rotation(servers):
    a, b = servers("a"), servers("b")
    a.mode = "500"
    clock = Clock()
    p, notices = pool([a.url, b.url], cooldown=10.0, clock=clock)
    assert text_of(p) == "Hello from b."
    assert "HTTP 500" in notices[0] and "engine dead" in notices[0]
    a.mode = "ok"
    assert {text_of(p) for _ in range(3)} == {"Hello from b."}       # still cooling down
    clock.t += 11
    assert "Hello from a." in {text_of(p) for _ in range(2)}
    assert notices[-1] == f"model server {a.url} answers again; back in rotation"
    assert p.healthy() == [a.url, b.url]


def test_when_every_server_fails_the_error_says_so(servers):
    a = servers("a")
    a.mode = "500"
    p, notices = pool([dead_url(), a.url])
    with pytest.raises(MfactError, match=r"all 2 model servers failed \(last: the model server at .* HTTP 500"):
        text_of(p)
    assert len(notices) == 2


def test_a_failure_after_text_was_streamed_is_not_hidden(servers):
    a, b = servers("a"), servers("b")
    a.mode = "break"
    p, notices = pool([a.url, b.url])
    with pytest.raises(MfactError, match="reported an error: engine died mid-request"):
        text_of(p)                      # a's first word was already streamed: cannot go on at b
    assert len(notices) == 1 and a.url in notices[0]
    assert text_of(p) == "Hello from b."   # a is out of rotation now


def test_repeated_flag_env_and_file_all_give_a_pool(monkeypatch, tmp_path):
    import argparse

    from mfact.core.config import load_config
    from mfact.core.options import add_model_options

    parser = argparse.ArgumentParser()
    add_model_options(parser)
    args = parser.parse_args(["--base-url", "http://a:8000/v1", "--base-url", "http://b:8000/v1"])
    cfg = config_from_args(args)
    assert cfg.base_url == "http://a:8000/v1,http://b:8000/v1"
    gen = load_generator(cfg)
    assert isinstance(gen, ServerPool) and gen.urls == ["http://a:8000/v1", "http://b:8000/v1"]
    one = load_generator(Config(base_url="http://a:8000/v1"))
    assert isinstance(one, OpenAIGenerator)
    monkeypatch.setenv("MFACT_BASE_URL", "http://a:8000/v1, http://c:8000/v1")
    assert split_urls(load_config().base_url) == ["http://a:8000/v1", "http://c:8000/v1"]
    monkeypatch.delenv("MFACT_BASE_URL")
    f = tmp_path / "c.toml"
    f.write_text('base_url = ["http://a:8000/v1", "http://d:8000/v1"]\n')
    assert split_urls(load_config(path=f).base_url) == ["http://a:8000/v1", "http://d:8000/v1"]
    with pytest.raises(MfactError, match="is not an http"):
        load_generator(Config(base_url="http://a:8000/v1,ftp://b"))


def test_session_ids_do_not_depend_on_the_order_of_the_servers():
    from mfact.core.batch import EntitySpec, plan_jobs

    ents = [EntitySpec("Ada Lovelace")]
    ab = plan_jobs(ents, ["en"], 1, Config(base_url="http://a/v1,http://b/v1"))
    ba = plan_jobs(ents, ["en"], 1, Config(base_url="http://b/v1,http://a/v1"))
    a = plan_jobs(ents, ["en"], 1, Config(base_url="http://a/v1"))
    assert ab[0].session_id == ba[0].session_id != a[0].session_id


@pytest.mark.timeout(300)
def test_mfact_run_over_two_servers_one_of_them_down(servers, capsys):
    """The command as a user runs it: one server of two is down; every session is finished by the
    other, with one notice."""
    from mfact.core.cli import main
    from mfact.core.store import Store

    live = servers("live")
    bad = dead_url()
    rc = main(["run", "--lang", "en", "--entity", "Ada Lovelace", "--entity", "Alan Turing",
               "--entity", "Grace Hopper", "--base-url", bad, "--base-url", live.url, "--model", "m",
               "--prompt-style", "completion", "--offline", "--extractor", "rules", "--max-tokens", "20",
               "--workers", "2", "--no-progress", "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    summary = json.loads(out.out)
    assert summary["done"] == 3 and summary["failed"] == []
    assert live.posts == 3
    assert out.err.count(f"model server {bad} failed") == 1
    with Store() as store:
        s = store.get_session(summary["sessions"][0])
        assert s.generator.backend == "openai" and "Hello from live." in s.text
