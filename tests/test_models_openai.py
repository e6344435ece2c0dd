"""The openai backend against a real HTTP server on 127.0.0.1 serving server-sent events."""
from __future__ import annotations

import json
import threading
import time

import pytest

from _loopback import Handler, LoopbackServer, free_port
from mfact.core.config import Config
from mfact.core.models import generator_info, load_generator
from mfact.core.models.openai import OpenAIGenerator
from mfact.core.errors import MfactError
from mfact.core.protocols import DecodingParams, Generator

WORDS = ["Marie", " Curie", " fue", " una", " física", " y", " química", " polaca", "."]


class FakeServer(LoopbackServer):
    """An OpenAI-compatible server whose behaviour each test sets (`mode`)."""

    def __init__(self):
        self.mode = "ok"
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.delay = 0.0
        super().__init__()

    def get(self, h: Handler) -> None:
        if h.path.endswith("/models"):
            h.send_json(200, {"object": "list", "data": [{"id": "served-model", "object": "model"}]})
        else:
            h.send_json(404, {"error": {"message": "not found"}})

    def post(self, h: Handler) -> None:
        body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
        self.requests.append(body)
        self.headers.append(dict(h.headers))
        self.handle(h, body)

    def handle(self, h, body):
        chat = h.path.endswith("/chat/completions")
        if not h.path.startswith("/v1/"):
            return h.send_json(404, {"error": {"message": f"no route {h.path}"}})
        if self.mode == "unauthorized":
            return h.send_json(401, {"error": {"message": "Invalid API key"}})
        if self.mode == "no-logprobs" and body.get("logprobs"):
            return h.send_json(400, {"error": {"message": "logprobs is not supported"}})
        if self.mode == "json":
            return h.send_json(200, {"choices": [{"message": {"content": "Marie Curie fue física."},
                                                  "text": "Marie Curie fue física.", "finish_reason": "stop"}],
                                     "usage": {"completion_tokens": 5}})
        h.start_events()
        if self.mode == "malformed":
            h.event('{"choices": [{"delta": {"content": "Marie"}}]}')
            h.event("{this is not json")
            return
        if self.mode == "error-event":
            h.event({"error": {"message": "model crashed"}})
            return
        n = min(len(WORDS), body["max_tokens"]) if self.mode != "slow" else 10_000
        h.wfile.write(b": keep-alive\n\n")
        for i in range(n):
            w = WORDS[i % len(WORDS)]
            lp = -0.25 * (i + 1)
            if chat:
                ev = {"choices": [{"index": 0, "delta": {"content": w},
                                   "logprobs": {"content": [{"token": w, "logprob": lp, "top_logprobs": []}]}
                                   if body.get("logprobs") else None, "finish_reason": None}]}
            else:
                ev = {"choices": [{"index": 0, "text": w, "finish_reason": None,
                                   "logprobs": {"tokens": [w], "token_logprobs": [lp]} if body.get("logprobs")
                                   else None}]}
            try:
                h.event(ev)
            except OSError:
                return
            if self.delay:
                time.sleep(self.delay)
        finish = "length" if body["max_tokens"] <= len(WORDS) else "stop"
        last = {"choices": [{"index": 0, "delta": {}, "text": "", "finish_reason": finish}]}
        h.event(last)
        h.event("[DONE]")


@pytest.fixture
def server():
    s = FakeServer()
    yield s
    s.close()


def _run(gen, prompt="p", stop=None, **kw):
    return list(gen.stream(prompt, DecodingParams(**kw), stop=stop))


def test_chat_stream_with_logprobs_and_key(server, monkeypatch):
    monkeypatch.setenv("MY_KEY", "sekret")
    gen = load_generator(Config(base_url=server.url, model="m1", api_key_env="MY_KEY"))
    assert isinstance(gen, Generator) and gen.backend == "openai" and gen.prompt_style == "chat"
    prompt = gen.default_prompt("Marie Curie", "es")
    chunks = _run(gen, prompt, max_tokens=100)
    assert "".join(c.text for c in chunks) == "".join(WORDS)
    assert chunks[-1].done and chunks[-1].stop_reason == "eos"
    assert sum(c.tokens for c in chunks) == len(WORDS)
    assert chunks[1].logprob == pytest.approx(-0.5)
    req = server.requests[-1]
    assert req["model"] == "m1" and req["stream"] is True and req["max_tokens"] == 100
    assert req["temperature"] == 0.6 and req["top_p"] == 0.9 and req["seed"] == 0
    assert req["messages"] == [{"role": "user", "content": "Cuéntame la biografía de Marie Curie."}]
    assert server.headers[-1]["Authorization"] == "Bearer sekret"
    gen.close()


def test_completions_endpoint_and_max_tokens(server):
    gen = load_generator(Config(base_url=server.url + "/", model="m1", prompt_style="completion"))
    prompt = gen.default_prompt("Marie Curie", "es")
    assert prompt == "Este es un artículo de Wikipedia sobre Marie Curie. Marie Curie"
    chunks = _run(gen, prompt, max_tokens=4, greedy=True)
    assert "".join(c.text for c in chunks) == "".join(WORDS[:4])
    assert chunks[-1].stop_reason == "max_tokens"
    assert server.requests[-1]["prompt"] == prompt and server.requests[-1]["temperature"] == 0.0
    assert "top_p" not in server.requests[-1] and "Authorization" not in server.headers[-1]


def test_model_defaults_to_the_served_one(server):
    gen = OpenAIGenerator(server.url)
    assert gen.model == "served-model"
    _run(gen, max_tokens=2)
    assert server.requests[-1]["model"] == "served-model"


def test_server_without_logprobs(server):
    server.mode = "no-logprobs"
    chunks = _run(OpenAIGenerator(server.url, model="m"), max_tokens=3)
    assert "".join(c.text for c in chunks) == "".join(WORDS[:3])
    assert all(c.logprob is None for c in chunks)
    assert "logprobs" in server.requests[0] and "logprobs" not in server.requests[1]


def test_server_answering_plain_json(server):
    server.mode = "json"
    chunks = _run(OpenAIGenerator(server.url, model="m"), max_tokens=3)
    assert chunks[0].text == "Marie Curie fue física." and chunks[-1].stop_reason == "eos"


def test_stop_within_one_token_while_server_is_slow(server):
    server.mode = "slow"
    server.delay = 0.05
    gen = OpenAIGenerator(server.url, model="m")
    stop = threading.Event()
    it = gen.stream("p", DecodingParams(max_tokens=100000), stop=stop)
    first = next(it)
    assert first.text == "Marie"
    stop.set()
    t0 = time.monotonic()
    last = next(it)
    assert last.done and last.stop_reason == "user"
    assert time.monotonic() - t0 < 1


def test_stop_while_waiting_for_the_next_token(server):
    server.mode = "slow"
    server.delay = 30                      # the server stalls after the first token
    gen = OpenAIGenerator(server.url, model="m")
    stop = threading.Event()
    it = gen.stream("p", DecodingParams(max_tokens=100000), stop=stop)
    assert next(it).text == "Marie"
    threading.Timer(0.2, stop.set).start()
    t0 = time.monotonic()
    rest = list(it)
    assert rest[-1].stop_reason == "user" and time.monotonic() - t0 < 2


def _fails_fast(fn) -> MfactError:
    t0 = time.monotonic()
    with pytest.raises(MfactError) as err:
        fn()
    assert time.monotonic() - t0 < 3, "must fail within 3 s"
    return err.value


def test_unreachable_server():
    gen = load_generator(Config(base_url=f"http://127.0.0.1:{free_port()}/v1", model="m"))
    err = _fails_fast(lambda: _run(gen, max_tokens=5))
    assert "cannot reach the model server" in err.message and "--base-url" in err.hint


def test_malformed_sse(server):
    server.mode = "malformed"
    err = _fails_fast(lambda: _run(OpenAIGenerator(server.url, model="m"), max_tokens=5))
    assert "malformed stream event" in err.message and "{this is not json" in err.message


def test_error_event_and_http_errors(server):
    server.mode = "error-event"
    err = _fails_fast(lambda: _run(OpenAIGenerator(server.url, model="m"), max_tokens=5))
    assert "model crashed" in err.message
    server.mode = "unauthorized"
    err = _fails_fast(lambda: _run(OpenAIGenerator(server.url, model="m", api_key_env="X_KEY"), max_tokens=5))
    assert "HTTP 401" in err.message and "$X_KEY" in err.hint
    server.mode = "ok"
    err = _fails_fast(lambda: _run(OpenAIGenerator(server.url.removesuffix("/v1") + "/nope", model="m"),
                                   max_tokens=5))
    assert "404" in err.message


def test_not_a_url():
    with pytest.raises(MfactError):
        load_generator(Config(base_url="127.0.0.1:8000"))


def test_generate_command_session_from_the_server(server, capsys):
    from mfact.core.cli import main
    from mfact.core.session import Session

    rc = main(["generate", "--lang", "es", "--entity", "Marie Curie", "--base-url", server.url,
               "--model", "m1", "--max-tokens", "50", "--json"])
    assert rc == 0
    out = capsys.readouterr().out
    s = Session.from_dict(json.loads(out.rstrip("\n").split("\n")[-1]))
    assert out.startswith("".join(WORDS))
    assert s.generator.backend == "openai" and s.generator.model == "m1"
    assert s.generator.prompt == "Cuéntame la biografía de Marie Curie."
    assert s.generator.params["prompt_style"] == "chat" and s.generator.seed == 0
    assert s.tokens == len(WORDS) and s.stop_reason == "eos"
    assert (s.raw_text or s.text) == "".join(WORDS)


def test_generator_info_records_the_request(server):
    gen = OpenAIGenerator(server.url, model="m1")
    info = generator_info(gen, "Tell me a bio of X.", DecodingParams(max_tokens=9))
    assert info.backend == "openai" and info.params["max_tokens"] == 9 and "rendered_prompt" not in info.params
