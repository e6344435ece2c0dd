"""The openai backend: any OpenAI-compatible server (vLLM, llama.cpp server, Ollama, TGI, ...).

Streams over server-sent events with httpx from `{base_url}/chat/completions` (chat style, the
default for servers) or `{base_url}/completions` (completion style, for base models). The API key
is read from the environment variable named by `api_key_env` (none is sent when it is unset).
Per-token log-probabilities are asked for and used when the server returns them.

A watchdog thread (core/net.py) closes the response when the stop event is set (so a stop takes
effect even while the server is between tokens), when no token came for `idle` seconds (keep-alive
comments and empty deltas do not count), or when the whole request took longer than `total`.
`--max-tokens` is enforced here too: a server that ignores `max_tokens` is cut off after that many
tokens, an event counting at least one token per `MAX_TOKEN_CHARS` characters (a server that sends
megabytes in one event is cut at 16 characters a token, whatever token count it claims). \
A stream line is read in bounded
memory (core/net.py `stream_lines`: at most 16 MB, compressed or not). Every failure ends in one
MfactError naming the server and what to do. A stream that ends (or breaks) after some text but
without the server's end marker ([DONE] or a finish_reason) ends with the stop reason
`connection_lost`: the text is kept and known to be cut off.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from typing import Any, Iterator

import httpx

from ..errors import MfactError
from ..net import MAX_LINE_BYTES, Deadlines, StreamError, Watchdog, deadline_words, make_client, stream_lines
from ..protocols import Chunk, DecodingParams, GeneratorBase
from .prompts import build_prompt

log = logging.getLogger("mfact.models")

_FINISH = {"stop": "eos", "eos": "eos", "length": "max_tokens", "max_tokens": "max_tokens"}
MAX_TOKEN_CHARS = 16     # an event counts at least one token per 16 characters: --max-tokens N bounds the text to 16 N


class OpenAIGenerator(GeneratorBase):
    backend = "openai"

    def __init__(self, base_url: str, model: str = "", api_key_env: str = "OPENAI_API_KEY",
                 prompt_style: str = "auto", deadlines: Deadlines | None = None,
                 transport: httpx.BaseTransport | None = None):
        url = base_url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise MfactError(f"--base-url {base_url!r} is not an http(s) URL",
                             "e.g. http://127.0.0.1:8000/v1")
        self.base_url = url
        self._model = model.strip()
        self.api_key_env = api_key_env or "OPENAI_API_KEY"
        self.prompt_style = prompt_style if prompt_style in ("completion", "chat") else "chat"
        self.logprobs = True
        self.deadlines = deadlines or Deadlines()
        self._client = make_client(self.deadlines, transport=transport)

    # ------------------------------------------------------------------ model name

    @property
    def model(self) -> str:
        if not self._model:
            self._model = self._first_served_model()
        return self._model

    @model.setter
    def model(self, value: str) -> None:
        self._model = value

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        key = os.environ.get(self.api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _first_served_model(self) -> str:
        """The server's only (or first) model, for servers run with one model and no --model."""
        try:
            r = self._client.get(f"{self.base_url}/models", headers=self._headers())
        except httpx.HTTPError as exc:
            raise self._connect_error(exc) from None
        try:
            data = r.json()
            listed = data.get("data", []) if isinstance(data, dict) else []
            models = [m["id"] for m in listed if isinstance(m, dict) and m.get("id")]
        except (ValueError, TypeError, RecursionError):
            models = []
        if r.status_code != 200 or not models:
            raise MfactError(f"the model server at {self.base_url} did not say which model it serves",
                             "name it with --model")
        return str(models[0])

    # ------------------------------------------------------------------ prompts

    def default_prompt(self, entity: str, lang: str) -> str:
        return build_prompt(entity, lang, self.prompt_style)

    def render_prompt(self, prompt: str) -> str:
        return prompt

    def request_body(self, prompt: str, params: DecodingParams, logprobs: bool = True) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "stream": True, "max_tokens": int(params.max_tokens),
                                "seed": int(params.seed)}
        if params.greedy or params.temperature <= 0:
            body["temperature"] = 0.0
        else:
            body["temperature"] = float(params.temperature)
            body["top_p"] = float(params.top_p)
        if params.repetition_penalty and params.repetition_penalty != 1.0:
            body["repetition_penalty"] = float(params.repetition_penalty)   # vLLM, TGI extension
        if self.prompt_style == "chat":
            body["messages"] = [{"role": "user", "content": prompt}]
            if logprobs:
                body["logprobs"] = True
        else:
            body["prompt"] = prompt
            if logprobs:
                body["logprobs"] = 1
        return body

    # ------------------------------------------------------------------ streaming

    def stream(self, prompt: str, params: DecodingParams | None = None,
               stop: threading.Event | None = None) -> Iterator[Chunk]:
        params = params or DecodingParams()
        endpoint = "chat/completions" if self.prompt_style == "chat" else "completions"
        url = f"{self.base_url}/{endpoint}"
        want_logprobs = self.logprobs
        started = time.monotonic()
        for attempt in range(2):
            body = self.request_body(prompt, params, logprobs=want_logprobs)
            try:
                with self._client.stream("POST", url, json=body, headers=self._headers()) as response:
                    if response.status_code != 200:
                        from ..net import read_body

                        raw, _ = read_body(response, self.deadlines, started, max_bytes=65536)
                        text = raw.decode("utf-8", "replace")
                        if response.status_code == 429:
                            raise self._rate_limited(response.headers.get("Retry-After"))
                        if (attempt == 0 and want_logprobs and response.status_code in (400, 422)
                                and "logprob" in text.lower()):
                            want_logprobs = False     # a server without log-probabilities
                            continue
                        raise self._http_error(response.status_code, text, endpoint)
                    yield from self._read(response, params, stop, started)
                    return
            except httpx.HTTPError as exc:
                if stop is not None and stop.is_set():
                    yield Chunk("", tokens=0, done=True, stop_reason="user")
                    return
                raise self._connect_error(exc) from None

    def _read(self, response: httpx.Response, params: DecodingParams,
              stop: threading.Event | None, started: float) -> Iterator[Chunk]:
        ctype = response.headers.get("content-type", "")
        if "application/json" in ctype:            # a server that ignored stream=true
            yield from self._whole(response, params)
            return
        budget = _Budget(params.max_tokens)
        got = _Ending()
        with Watchdog(response, self.deadlines, started, stop) as dog:
            try:
                yield from self._events(response, budget, got, dog, stop)
            except MfactError:
                if dog.reason is None:      # else the stream ended because the watchdog closed it
                    raise
            except (httpx.HTTPError, httpx.StreamError, OSError) as exc:
                _broke(self.base_url, exc, dog, stop, budget)
                got.lost = True             # text came, then the connection broke: keep the text
        if dog.reason in ("idle", "total"):
            raise self._deadline_error(dog.reason, budget.tokens)
        yield Chunk("", tokens=0, done=True, stop_reason=got.reason_for(dog.reason, stop, budget))

    def _events(self, response: httpx.Response, budget: "_Budget", got: "_Ending", dog: Watchdog,
                stop: threading.Event | None) -> Iterator[Chunk]:
        """The text chunks of the stream; `got` learns how it ended (an end marker, a cut-off)."""
        for data in _sse_events(response):
            if dog.reason or (stop is not None and stop.is_set()):
                return
            if data.strip() == "[DONE]":
                got.marked = True
                return
            event = self._parse(data)
            text, tokens, logprob, finish = self._delta(event)
            if text or tokens:
                if stop is not None and stop.is_set():
                    return
                dog.useful()
                kept, tokens, spent = budget.take(text, tokens)
                yield Chunk(kept, tokens=tokens, logprob=logprob)
                if len(kept) < len(text) or (spent and not finish):
                    got.reason = "max_tokens"     # the server ignored max_tokens: cut it off
                    return
            if finish:
                got.marked = True
                got.reason = _FINISH.get(finish, "eos")

    def _deadline_error(self, why: str, tokens: int) -> MfactError:
        got = f" after {tokens} tokens" if tokens else ""
        if why == "idle":
            return MfactError(f"the model server at {self.base_url} {deadline_words(why, self.deadlines)}"
                              f"{got} (no token; keep-alives do not count)",
                              "check the server's log; if it is only slow, raise --idle-timeout")
        return MfactError(f"the model server at {self.base_url} {deadline_words(why, self.deadlines)}{got}",
                          "lower --max-tokens or raise --request-timeout")

    def _whole(self, response: httpx.Response, params: DecodingParams) -> Iterator[Chunk]:
        from ..net import read_body

        body, why = read_body(response, self.deadlines, time.monotonic(), max_bytes=8_000_000)
        if why:
            raise self._deadline_error(why, 0)
        event = self._parse(body.decode("utf-8", "replace"))
        choice = _choice(event, self.base_url)
        text = (choice.get("message") or {}).get("content") if self.prompt_style == "chat" \
            else choice.get("text")
        text = text if isinstance(text, str) else ""
        usage = event.get("usage") or {}
        try:
            tokens = int(usage.get("completion_tokens") or (1 if text else 0))
        except (TypeError, ValueError, OverflowError):
            tokens = 1 if text else 0
        reason = _FINISH.get(str(choice.get("finish_reason")), "eos")
        kept, tokens, _ = _Budget(params.max_tokens).take(text, tokens)
        if len(kept) < len(text):
            reason = "max_tokens"
        yield Chunk(kept, tokens=tokens)
        yield Chunk("", tokens=0, done=True, stop_reason=reason)

    def _parse(self, data: str) -> dict:
        try:
            event = json.loads(data)
        except (ValueError, RecursionError):          # RecursionError: nested deeper than Python reads
            raise MfactError(f"the model server at {self.base_url} sent a malformed stream event: {data[:80]!r}",
                             "check that --base-url points at an OpenAI-compatible API (.../v1)") from None
        if not isinstance(event, dict):
            raise MfactError(f"the model server at {self.base_url} sent a malformed stream event: {data[:80]!r}",
                             "check that --base-url points at an OpenAI-compatible API (.../v1)")
        if event.get("error"):
            err = event["error"]
            msg = err.get("message") if isinstance(err, dict) else str(err)
            raise MfactError(f"the model server at {self.base_url} reported an error: {str(msg)[:200]}",
                             "check the server's log")
        return event

    def _delta(self, event: dict) -> tuple[str, int, float | None, str | None]:
        """(text, tokens, summed logprob, finish_reason) of one stream event."""
        choices = event.get("choices")
        if choices == [] or (choices is None and "usage" in event):
            return "", 0, None, None               # a usage-only event
        choice = _choice(event, self.base_url)
        finish = choice.get("finish_reason")
        if self.prompt_style == "chat":
            delta = choice.get("delta") or {}
            if not isinstance(delta, dict):
                raise MfactError(f"the model server at {self.base_url} sent a malformed stream event",
                                 "check that --base-url points at an OpenAI-compatible API (.../v1)")
            text = delta.get("content") or ""
            lp = choice.get("logprobs") or {}
            items = lp.get("content") if isinstance(lp, dict) else None
            lps = [float(x["logprob"]) for x in items or [] if isinstance(x, dict)
                   and isinstance(x.get("logprob"), (int, float))]
        else:
            text = choice.get("text") or ""
            lp = choice.get("logprobs") or {}
            vals = lp.get("token_logprobs") if isinstance(lp, dict) else None
            lps = [float(x) for x in vals or [] if isinstance(x, (int, float))]
        if not isinstance(text, str):
            raise MfactError(f"the model server at {self.base_url} sent a malformed stream event (text is"
                             f" {type(text).__name__})",
                             "check that --base-url points at an OpenAI-compatible API (.../v1)")
        tokens = len(lps) if lps else (1 if text else 0)
        return text, tokens, (sum(lps) if lps else None), (str(finish) if finish else None)

    # ------------------------------------------------------------------ errors

    def _connect_error(self, exc: Exception) -> MfactError:
        if isinstance(exc, httpx.ConnectError):
            return MfactError(f"cannot reach the model server at {self.base_url}",
                              "is it running? check --base-url, e.g. http://127.0.0.1:8000/v1")
        if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
            return MfactError(f"cannot reach the model server at {self.base_url} within"
                              f" {self.deadlines.connect:g} s", "is it running? check --base-url")
        if isinstance(exc, httpx.TimeoutException):
            return MfactError(f"the model server at {self.base_url} accepted the connection but sent"
                              f" nothing for {self.deadlines.idle:g} s",
                              "check the server's log; if it is only slow, raise --idle-timeout")
        return MfactError(f"talking to the model server at {self.base_url} failed: {type(exc).__name__}",
                          "check --base-url and the server's log")

    def _rate_limited(self, retry_after: str | None) -> MfactError:
        from ..net import retry_after_seconds, wait_words

        wait = retry_after_seconds(retry_after)
        asked = f"; it asked us to wait {wait_words(wait)}" if wait is not None else ""
        return MfactError(f"the model server at {self.base_url} is rate-limiting mfact (HTTP 429{asked})",
                          "try again later, or lower --workers")

    def _http_error(self, status: int, text: str, endpoint: str) -> MfactError:
        detail = text.strip().replace("\n", " ")[:160]
        try:
            body = json.loads(text)
            err = body.get("error") if isinstance(body, dict) else None
            detail = (str(err.get("message") or detail) if isinstance(err, dict) else str(err or detail))[:160]
        except (ValueError, RecursionError):
            pass
        if status in (401, 403):
            return MfactError(f"the model server at {self.base_url} refused the request (HTTP {status}: {detail})",
                              f"put the API key in ${self.api_key_env} (or name another variable with"
                              " --api-key-env)")
        if status == 404:
            hint = "check --model" if "model" in detail.lower() else (
                f"the server has no /{endpoint}; check --base-url (usually ends in /v1)"
                + ("" if self.base_url.endswith("/v1") else f", e.g. {self.base_url}/v1")
                + (" or try --prompt-style " + ("completion" if self.prompt_style == "chat" else "chat")))
            return MfactError(f"HTTP 404 from {self.base_url}/{endpoint}: {detail}", hint)
        return MfactError(f"the model server at {self.base_url} answered HTTP {status}: {detail}",
                          "check --model and the server's log")

    def close(self) -> None:
        self._client.close()

    def __repr__(self) -> str:
        return f"OpenAIGenerator({self.base_url!r}, model={self._model!r}, style={self.prompt_style})"


def _choice(event: dict, base_url: str) -> dict:
    choices = event.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MfactError(f"the model server at {base_url} sent a stream event without choices",
                         "check that --base-url points at an OpenAI-compatible API (.../v1)")
    return choices[0]


def _broke(base_url: str, exc: Exception, dog: Watchdog, stop: threading.Event | None, budget: "_Budget") -> None:
    """A read failed mid-stream: raise the one line for it, unless the watchdog or a stop
    closed the stream, or text already came (then the stream ends as `connection_lost`)."""
    if isinstance(exc, httpx.ReadTimeout) and dog.reason is None:
        dog.reason = "idle"
    if isinstance(exc, StreamError) and dog.reason is None:
        raise MfactError(f"the model server at {base_url} broke off: {exc}",
                         f"check the server's log (mfact reads at most {MAX_LINE_BYTES // 2**20} MB"
                         " per stream line)") from None
    if dog.reason is None and not (stop is not None and stop.is_set()) and not budget.tokens:
        raise MfactError(f"the connection to the model server at {base_url} broke"
                         f" mid-stream ({type(exc).__name__})",
                         "check the server's log and try again") from None
    if dog.reason is None and budget.tokens:
        log.warning("the connection to the model server at %s broke mid-stream (%s) after %d tokens",
                    base_url, type(exc).__name__, budget.tokens)


class _Ending:
    """How a stream ended: `marked` once the server sent its end marker ([DONE] or a
    finish_reason), `reason` a stop reason mfact decided, `lost` when a read broke."""

    def __init__(self) -> None:
        self.marked = False
        self.reason: str | None = None
        self.lost = False

    def reason_for(self, dog_reason: str | None, stop: threading.Event | None, budget: "_Budget") -> str:
        if dog_reason == "user" or (self.reason is None and stop is not None and stop.is_set()):
            return "user"
        if self.reason is not None:
            return self.reason
        if budget.spent():
            return "max_tokens"
        if self.lost or not self.marked:
            # the connection closed before [DONE] / a finish_reason: the text is cut off
            log.warning("the model server stream ended without its end marker ([DONE] or finish_reason)")
            return "connection_lost"
        return "eos"


class _Budget:
    """What `--max-tokens` lets through: `limit` tokens, where an event counts the tokens the server
    reports (its log-probabilities, else one) but at least one per `MAX_TOKEN_CHARS` characters."""

    def __init__(self, max_tokens: int):
        self.limit = max(1, int(max_tokens))
        self.tokens = 0

    def take(self, text: str, tokens: int) -> tuple[str, int, bool]:
        """(the text of one event that fits, the tokens it counts, whether the budget is spent)."""
        room = self.limit - self.tokens
        cost = max(tokens, -(-len(text) // MAX_TOKEN_CHARS))
        if cost > room:
            text, cost = text[:room * MAX_TOKEN_CHARS], room
        self.tokens += cost
        return text, cost, self.spent()

    def spent(self) -> bool:
        return self.tokens >= self.limit


def _sse_events(response: httpx.Response) -> Iterator[str]:
    """The data of each server-sent event (multi-line data joined with newlines). Lines come from
    `stream_lines` (bounded); an event's data lines together are bounded the same."""
    data: list[str] = []
    size = 0
    saw_any = False
    for line in stream_lines(response):
        if line == "":
            if data:
                yield "\n".join(data)
                data = []
                size = 0
            continue
        if line.startswith(":"):
            continue                       # a comment / keep-alive
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
            size += len(value)
            if size > MAX_LINE_BYTES:
                raise StreamError(f"it sent an event of more than {MAX_LINE_BYTES // 2**20} MB")
            saw_any = True
        elif field in ("event", "id", "retry"):
            continue
        else:
            raise MfactError(f"the model server at {response.url} sent a malformed stream line: {line[:80]!r}",
                             "check that --base-url points at an OpenAI-compatible API (.../v1)")
    if data:
        yield "\n".join(data)
    elif not saw_any:
        raise MfactError(f"the model server at {response.url} ended the stream without any event",
                         "check the server's log")
