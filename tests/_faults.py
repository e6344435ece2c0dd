"""A misbehaving HTTP server on 127.0.0.1 for the reliability tests and bench/network_faults.py.

One server plays any of the three services mfact talks to (an OpenAI-compatible model server, a
MediaWiki Action API, a SearXNG instance) in one of these fault modes:

    ok           a normal answer
    500          HTTP 500 with a short body
    429          HTTP 429 with `Retry-After: 3600`
    stall-headers  reads the request, then sends nothing
    stall-after  sends the headers, then nothing
    keepalive    sends the headers, then only SSE comments / whitespace, every `tick` seconds
    trickle      sends the headers, then one byte every `tick` seconds (never a whole event)
    endless      a stream of tokens (or JSON whitespace) that never ends
    malformed    a broken SSE stream / body that is not JSON

and, apart (STREAM_MODES: sizes rather than time):

    huge-event        one event of 10 MB of text (a body of 10 MB)
    endless-line      the headers, then 1 GB without a line break, as fast as the client reads
    endless-line-gzip the same 1 GB gzip-compressed (about 1 MB on the wire)

and, for the MediaWiki only (WIKI_MODES: replies of the wrong kind or shape):

    bad-json      HTTP 200, application/json, a body cut off mid-object
    html          HTTP 200 with an HTML page
    redirect-loop a 302 to itself, for ever
    redirect-file a 302 to file:///etc/passwd
    huge-page     a JSON page of 36 MB
    gzip-bomb     256 MB of JSON whitespace, gzip-compressed (about 250 KB on the wire)
    null-pages    `{"query": {"pages": null}}`
    null-page     `{"query": {"pages": [null]}}`

Every handler loop ends when the server is closed, so a test never leaves a thread behind.
"""
from __future__ import annotations

import functools
import json
import threading
import time
import zlib

from _loopback import Handler, LoopbackServer

MODES = ("500", "429", "stall-headers", "stall-after", "keepalive", "trickle", "endless", "malformed")
STREAM_MODES = ("huge-event", "endless-line", "endless-line-gzip")
HUGE_EVENT_BYTES = 10_000_000
ENDLESS_LINE_BYTES = 1 << 30
WIKI_MODES = ("bad-json", "html", "redirect-loop", "redirect-file", "huge-page", "gzip-bomb", "null-pages", "null-page")
HUGE_PAGE_BYTES = 36_000_000
BOMB_BYTES = 256 << 20


class FaultServer(LoopbackServer):
    protocol = "HTTP/1.1"

    def __init__(self, mode: str = "ok", tick: float = 0.05, host: str = "127.0.0.1", retry_after: str = "3600"):
        self.mode = mode
        self.tick = tick
        self.retry_after = retry_after      # the 429's Retry-After: seconds or an HTTP date
        self.requests = 0
        self.closed = threading.Event()
        super().__init__(host)

    def get(self, h: Handler) -> None:
        self._handle(h, None)

    def post(self, h: Handler) -> None:
        n = int(h.headers.get("Content-Length") or 0)
        self._handle(h, json.loads(h.rfile.read(n) or b"{}"))

    # the three services' URLs
    @property
    def model_url(self) -> str:
        return self.root + "/v1"

    @property
    def wiki_url(self) -> str:
        return self.root

    @property
    def searxng_url(self) -> str:
        return self.root

    def close(self) -> None:
        self.closed.set()
        super().close()

    # ------------------------------------------------------------------ behaviour

    def _wait(self, seconds: float) -> bool:
        """Sleep; False once the server is closed."""
        return not self.closed.wait(seconds)

    def _handle(self, h: Handler, body: dict | None) -> None:
        self.requests += 1
        sse = h.command == "POST"
        mode = self.mode
        try:
            if h.path.endswith("/models"):
                return h.send_body(200, "application/json", b'{"data": [{"id": "m"}]}')
            if mode == "500":
                return h.send_body(500, "text/plain", b"internal error")
            if mode == "429":
                return h.send_body(
                    429, "application/json", b'{"error": "slow down"}', {"Retry-After": self.retry_after}
                )
            if mode == "stall-headers":
                while self._wait(self.tick):
                    pass
                return
            if mode in WIKI_MODES:
                return _wiki_fault(h, mode)
            if mode == "ok":
                if sse:
                    return self._sse(h, body, endless=False)
                return h.send_body(200, "application/json", json.dumps(_ok_json(h.path)).encode())
            h.send_response(200)
            h.send_header("Content-Type", "text/event-stream" if sse else "application/json")
            h.send_header("Connection", "close")
            if mode == "endless-line-gzip":
                h.send_header("Content-Encoding", "gzip")
            h.end_headers()
            h.wfile.flush()
            if mode in STREAM_MODES:
                self._big(h, mode, sse)
            elif mode == "stall-after":
                while self._wait(self.tick):
                    pass
            elif mode == "keepalive":
                while self._wait(self.tick):
                    h.wfile.write(b": keep-alive\n\n" if sse else b" ")
                    h.wfile.flush()
            elif mode == "trickle":
                piece = b'data: {"choices": [{"delta": {"content": "Marie Curie was a physicist and chemist"}}]}' \
                    if sse else b'{"query": {"pages": [{"title": "' + b"x" * 10_000_000
                for i in range(len(piece)):
                    if not self._wait(self.tick):
                        break
                    h.wfile.write(piece[i:i + 1])
                    h.wfile.flush()
            elif mode == "endless":
                if sse:
                    self._sse(h, body, endless=True)
                else:
                    h.wfile.write(b"[")
                    while self._wait(self.tick / 10):
                        h.wfile.write(b"0," * 100)
                        h.wfile.flush()
            elif mode == "malformed":
                h.wfile.write(b"data: {not json\n\n" if sse else b"<html>not json</html>")
                h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            return

    def _big(self, h, mode: str, sse: bool) -> None:
        head = b'data: {"choices": [{"delta": {"content": "' if sse else b'{"query": {"pages": [{"title": "'
        if mode == "huge-event":
            words = b"Marie Curie " * (HUGE_EVENT_BYTES // 12)
            h.wfile.write(head + words + (b'"}}]}\n\ndata: [DONE]\n\n' if sse else b'"}]}}'))
            h.wfile.flush()
            return
        block = b"Marie Curie " * (1 << 16)          # 768 KiB, no line break
        gz = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS) if mode.endswith("gzip") else None
        sent = 0
        data = head
        while sent < ENDLESS_LINE_BYTES and not self.closed.is_set():
            piece = gz.compress(data) if gz else data
            if piece:
                h.wfile.write(piece)
            sent += len(data)
            data = block
        if gz:
            h.wfile.write(gz.flush())
        h.wfile.flush()

    def _sse(self, h, body, endless: bool) -> None:
        if not endless:     # in the fault modes the headers are already out
            h.start_events({"Connection": "close"})
        chat = h.path.endswith("/chat/completions")
        i = 0
        while True:
            word = f" w{i}"
            ev = {"choices": [{"delta": {"content": word}} if chat else {"text": word}]}
            h.event(ev)
            i += 1
            if not endless and i >= 5:
                h.event("[DONE]")
                return
            if not self._wait(self.tick / 5):
                return


def _wiki_fault(h, mode: str) -> None:
    if mode == "bad-json":
        return h.send_body(200, "application/json", b'{"query": {"pages": [{"title": "Marie')
    if mode == "html":
        return h.send_body(200, "text/html; charset=utf-8", b"<!DOCTYPE html><html><body>Welcome</body></html>")
    if mode in ("redirect-loop", "redirect-file"):
        to = h.path if mode == "redirect-loop" else "file:///etc/passwd"
        return h.send_body(302, "text/plain", b"", {"Location": to})
    if mode in ("null-pages", "null-page"):
        pages = None if mode == "null-pages" else [None]
        return h.send_body(200, "application/json", json.dumps({"query": {"pages": pages}}).encode())
    if mode == "huge-page":
        title = b"Marie Curie " * (HUGE_PAGE_BYTES // 12)
        return h.send_body(200, "application/json", b'{"query": {"pages": [{"title": "' + title + b'"}]}}')
    h.send_body(200, "application/json", _bomb(), {"Content-Encoding": "gzip"})


@functools.lru_cache(maxsize=1)
def _bomb() -> bytes:
    """256 MB of JSON (a page, then spaces), gzip-compressed to about 250 KB."""
    gz = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    body = bytearray(gz.compress(b'{"query": {"pages": [{"title": "x"}]}'))
    block = b" " * (1 << 20)
    for _ in range(BOMB_BYTES // len(block)):
        body += gz.compress(block)
    body += gz.flush()
    return bytes(body)


def _ok_json(path: str) -> dict:
    if path.startswith("/search"):
        return {"results": [{"url": "http://127.0.0.1:9/x", "title": "Marie Curie",
                             "content": "Marie Curie was a physicist."}]}
    return {"query": {"pages": [{"title": "Marie Curie", "pageprops": {"wikibase_item": "Q7186"},
                                 "fullurl": "http://127.0.0.1/wiki/Marie_Curie"}]}}


def clients(server: FaultServer, idle: float = 0.5, total: float = 2.0):
    """(name, callable) for each service, with short deadlines: calling runs one request."""
    from mfact.core.knowledge.web import WebSearch
    from mfact.core.knowledge.wikipedia import WaitPolicy, WikipediaClient
    from mfact.core.models.openai import OpenAIGenerator
    from mfact.core.net import Deadlines
    from mfact.core.protocols import DecodingParams

    d = Deadlines(connect=min(3.0, idle), idle=idle, total=total)

    def model():
        gen = OpenAIGenerator(server.model_url, model="m", deadlines=d)
        try:
            return list(gen.stream("prompt", DecodingParams(max_tokens=20)))
        finally:
            gen.close()

    def wiki():
        return WikipediaClient(base_url=server.wiki_url,
                               waits=WaitPolicy(d, sleep=lambda s: None)).page_info("X", "en")

    def searx():
        return WebSearch(server.searxng_url, deadlines=d).search("Marie Curie", "en")

    return [("model server", model), ("Wikipedia", wiki), ("SearXNG", searx)]


def timed(fn) -> tuple[float, object]:
    t = time.monotonic()
    try:
        res = fn()
    except Exception as exc:  # noqa: BLE001 - the caller inspects it
        res = exc
    return time.monotonic() - t, res
