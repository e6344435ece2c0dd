"""Deadlines shared by every HTTP client in mfact: model servers, Wikipedia (MediaWiki) and SearXNG.

A request can fail to end in several ways, and each has its own bound:

| fault                                  | bound                                     |
|----------------------------------------|-------------------------------------------|
| nothing listens / host unreachable     | `connect` (3 s)                           |
| connected, but no byte of the answer   | `idle` (first byte; default 30 s)         |
| headers, then silence                  | `idle`                                    |
| only keep-alive comments, or a trickle | `idle` (no *useful* byte) and `total`     |
| a stream that never stops              | `total` (and, for models, `--max-tokens`) |
| a line that never ends (no line break)  | `MAX_LINE_BYTES` (16 MiB), memory included |
| a compressed body that inflates hugely  | decoded in pieces of 64 KiB (`Decoder`)   |

httpx enforces `connect` and per-read timeouts. The rest needs a watchdog: a small thread that
closes the response (waking a read blocked on its socket) when a deadline passes or a stop event
is set. Readers mark progress with `Watchdog.useful()`; keep-alives do not count.
"""
from __future__ import annotations

import email.utils
import socket
import threading
import time
import zlib
from dataclasses import dataclass
from typing import Iterator

import httpx

CONNECT_TIMEOUT = 3.0
DEFAULT_IDLE = 30.0          # seconds without a token or a useful byte
DEFAULT_MODEL_TOTAL = 600.0  # one generation request, start to end
DEFAULT_LOOKUP_TOTAL = 30.0  # one Wikipedia / SearXNG request, start to end
MAX_LINE_BYTES = 16 * 1024 * 1024   # one line of a streamed answer (an SSE event's line), decoded
DECODE_PIECE = 64 * 1024            # a compressed body is inflated at most this much at a time
# what mfact can decode with bounded memory; a server must not send brotli or zstd unasked
ACCEPT_ENCODING = "gzip, deflate"


@dataclass(frozen=True)
class Deadlines:
    connect: float = CONNECT_TIMEOUT
    idle: float = DEFAULT_IDLE
    total: float = DEFAULT_MODEL_TOTAL

    def timeout(self) -> httpx.Timeout:
        # read: the first byte of the answer and each later read; pool: waiting for a connection
        return httpx.Timeout(connect=self.connect, read=self.idle, write=self.idle, pool=self.connect)

    @classmethod
    def from_config(cls, cfg, total_field: str = "request_timeout",
                    default_total: float = DEFAULT_MODEL_TOTAL) -> "Deadlines":
        idle = _positive(getattr(cfg, "idle_timeout", None), DEFAULT_IDLE)
        total = _positive(getattr(cfg, total_field, None), default_total)
        return cls(connect=min(CONNECT_TIMEOUT, idle), idle=idle, total=max(total, 0.05))


def _positive(v, default: float) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return default
    return f if f > 0 else default


def make_client(deadlines: Deadlines, transport: httpx.BaseTransport | None = None,
                headers: dict[str, str] | None = None) -> httpx.Client:
    """The one way mfact builds an httpx client: the deadlines' timeouts, redirects followed, and
    only the content encodings `Decoder` inflates in bounded memory."""
    return httpx.Client(timeout=deadlines.timeout(), transport=transport,
                        headers={"Accept-Encoding": ACCEPT_ENCODING, **(headers or {})}, follow_redirects=True)


def interrupt(response: httpx.Response) -> None:
    """Wake a read blocked on the response's socket (closing alone does not) and close it."""
    stream = response.extensions.get("network_stream")
    sock = None
    try:
        sock = stream.get_extra_info("socket") if stream is not None else None
    except Exception:  # noqa: BLE001 - transports without a socket (tests' MockTransport)
        sock = None
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    try:
        response.close()
    except Exception:  # noqa: BLE001 - the reader may be closing it at the same time
        pass


class Watchdog:
    """Closes `response` when `idle` seconds pass without `useful()`, when `total` seconds pass
    since `started`, or when `stop` is set. `reason` then says which: "idle", "total" or "user"."""

    def __init__(self, response: httpx.Response, deadlines: Deadlines, started: float | None = None,
                 stop: threading.Event | None = None):
        self.response = response
        self.deadlines = deadlines
        self.started = started if started is not None else time.monotonic()
        self.stop = stop
        self.last = time.monotonic()
        self.reason: str | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="mfact-net-watchdog", daemon=True)

    def useful(self) -> None:
        self.last = time.monotonic()

    def _watch(self) -> None:
        tick = min(0.05, self.deadlines.idle / 4)
        while not self._done.wait(tick):
            now = time.monotonic()
            if self.stop is not None and self.stop.is_set():
                self.reason = "user"
            elif now - self.started >= self.deadlines.total:
                self.reason = "total"
            elif now - self.last >= self.deadlines.idle:
                self.reason = "idle"
            else:
                continue
            interrupt(self.response)
            return

    def __enter__(self) -> "Watchdog":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()


class StreamError(httpx.DecodingError):
    """A streamed body mfact will not read on: a line over `MAX_LINE_BYTES`, an encoding it cannot
    decode in bounded memory, or compressed data that is corrupt. `str()` says which."""


class Decoder:
    """Content-Encoding (identity, gzip, deflate) decoded with bounded memory: each `feed` yields
    pieces of at most `DECODE_PIECE` bytes, however much a few compressed bytes inflate to (a gzip
    of 1 GB of one byte is 1 MB). httpx inflates each network read whole."""

    def __init__(self, content_encoding: str = ""):
        codings = [c.strip().lower() for c in content_encoding.split(",")]
        codings = [c for c in codings if c and c != "identity"]
        self._z = None
        self._raw_deflate: bool | None = None
        if codings in (["gzip"], ["x-gzip"]):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif codings == ["deflate"]:
            self._raw_deflate = False      # zlib-wrapped, or raw deflate: told from the first bytes
        elif codings:
            raise StreamError(f"it sent a body in an encoding mfact does not read ({', '.join(codings)})")

    def feed(self, data: bytes) -> Iterator[bytes]:
        if not data:
            return
        if self._z is None and self._raw_deflate is None:
            yield data
            return
        if self._z is None:
            raw = (data[0] & 0x0F) != 8     # not a zlib header: raw deflate, as some servers send
            self._z = zlib.decompressobj(-zlib.MAX_WBITS if raw else zlib.MAX_WBITS)
        buf = data
        try:
            while True:
                out = self._z.decompress(buf, DECODE_PIECE)
                if out:
                    yield out
                buf = self._z.unconsumed_tail
                if self._z.eof or (not buf and len(out) < DECODE_PIECE):
                    return
        except zlib.error:
            raise StreamError("it sent compressed data that is corrupt") from None


class LineReader:
    """Lines of a streamed body as they arrive, ending at CRLF, LF or CR (as server-sent events
    define them; not at U+2028 or form feeds, which JSON strings may hold), decoded as UTF-8. A line
    longer than `max_line` bytes raises StreamError as soon as it passes the bound, so at most that
    much is ever held, also for a compressed stream."""

    def __init__(self, max_line: int = MAX_LINE_BYTES):
        self.max_line = max_line
        self._buf = bytearray()
        self._cr = False            # the last piece ended in CR: a LF first in the next belongs to it

    def feed(self, piece: bytes) -> Iterator[str]:
        if self._cr and piece.startswith(b"\n"):
            piece = piece[1:]
        if not piece:
            return
        self._cr = piece.endswith(b"\r")
        parts = piece.splitlines()          # bytes split at CR, LF and CRLF only
        tail = None if piece.endswith((b"\n", b"\r")) else parts.pop()
        for i, part in enumerate(parts):
            if i == 0 and self._buf:
                self._buf += part
                part = bytes(self._buf)
                self._buf.clear()
            yield self._line(part)
        if tail is not None:
            self._buf += tail
            self._check(len(self._buf))

    def close(self) -> Iterator[str]:
        """The last line, when the body did not end with a line break."""
        if self._buf:
            line = bytes(self._buf)
            self._buf.clear()
            yield self._line(line)

    def _check(self, n: int) -> None:
        if n > self.max_line:
            raise StreamError(f"it sent a line of more than {self.max_line // (1024 * 1024)} MB"
                              " without a line break")

    def _line(self, line: bytes) -> str:
        self._check(len(line))
        return line.decode("utf-8", "replace")


def stream_lines(response: httpx.Response, max_line: int = MAX_LINE_BYTES) -> Iterator[str]:
    """The lines of a streamed response in bounded memory (`LineReader` over `Decoder`)."""
    decoder = Decoder(response.headers.get("content-encoding", ""))
    reader = LineReader(max_line)
    for chunk in response.iter_raw():
        for piece in decoder.feed(chunk):
            yield from reader.feed(piece)
    yield from reader.close()


def read_body(response: httpx.Response, deadlines: Deadlines, started: float,
              max_bytes: int | None = None, decode: bool = True) -> tuple[bytes, str | None]:
    """The body of a streamed response within the deadlines: (bytes, None), or (bytes so far,
    "idle" | "total") when a deadline passed. Stops quietly after `max_bytes` (decoded bytes:
    a compressed body is inflated in bounded pieces, `Decoder`). `decode=False`: the bytes as sent."""
    try:
        return response.content, None     # already in memory (a response built from bytes)
    except httpx.ResponseNotRead:
        pass
    body = bytearray()
    decoder = Decoder(response.headers.get("content-encoding", "") if decode else "")
    with Watchdog(response, deadlines, started) as dog:
        try:
            for chunk in response.iter_raw():
                if chunk:
                    dog.useful()
                for piece in decoder.feed(chunk):
                    body += piece
                    if max_bytes is not None and len(body) > max_bytes:
                        return bytes(body[:max_bytes + 1]), dog.reason
        except (httpx.HTTPError, httpx.StreamError, OSError):
            if dog.reason is None:
                raise
    return bytes(body), dog.reason


def timeout_words(exc: httpx.TimeoutException, deadlines: Deadlines) -> str:
    """What a timed-out request's server did: `did not accept a connection within 3 s` /
    `sent nothing for 30 s`."""
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return f"did not accept a connection within {min(deadlines.connect, deadlines.total):g} s"
    return f"sent nothing for {min(deadlines.idle, deadlines.total):g} s"


def deadline_words(reason: str, deadlines: Deadlines) -> str:
    """`sent nothing useful for 30 s` / `did not finish within 600 s`."""
    if reason == "idle":
        return f"sent nothing useful for {deadlines.idle:g} s"
    return f"did not finish within {deadlines.total:g} s"



def retry_after_seconds(value: str | None) -> float | None:
    """Seconds a Retry-After header asks for (delta-seconds or an HTTP date); None when absent or bad."""
    if not value:
        return None
    try:
        v = float(value)
        return max(0.0, v) if v == v and v != float("inf") else None
    except ValueError:
        pass
    try:
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def wait_words(seconds: float) -> str:
    """A wait a server asked for, as people say it: `30 s`, `3600 s`, `5 h`, `12 days`, and `more
    than a year` past that (a Retry-After date far off is not `2.3e+09 s`)."""
    if seconds <= 7200:
        return f"{seconds:.0f} s"
    if seconds <= 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    if seconds <= 365 * 86400:
        return f"{seconds / 86400:.0f} days"
    return "more than a year"
