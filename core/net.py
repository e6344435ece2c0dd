"""Deadlines shared by every HTTP client in mfact: model servers, Wikipedia (MediaWiki) and SearXNG.

A request can fail to end in several ways, and each has its own bound:

| fault                                  | bound                                     |
|----------------------------------------|-------------------------------------------|
| nothing listens / host unreachable     | `connect` (3 s)                           |
| connected, but no byte of the answer   | `idle` (first byte; default 30 s)         |
| headers, then silence                  | `idle`                                    |
| only keep-alive comments, or a trickle | `idle` (no *useful* byte) and `total`     |
| a stream that never stops              | `total` (and, for models, `--max-tokens`) |

httpx enforces `connect` and per-read timeouts. The rest needs a watchdog: a small thread that
closes the response (waking a read blocked on its socket) when a deadline passes or a stop event
is set. Readers mark progress with `Watchdog.useful()`; keep-alives do not count.
"""
from __future__ import annotations

import email.utils
import socket
import threading
import time
from dataclasses import dataclass
from typing import Iterator

import httpx

CONNECT_TIMEOUT = 3.0
DEFAULT_IDLE = 30.0          # seconds without a token or a useful byte
DEFAULT_MODEL_TOTAL = 600.0  # one generation request, start to end
DEFAULT_LOOKUP_TOTAL = 30.0  # one Wikipedia / SearXNG request, start to end


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
    """The one way mfact builds an httpx client: the deadlines' timeouts, redirects followed."""
    return httpx.Client(timeout=deadlines.timeout(), transport=transport, headers=headers,
                        follow_redirects=True)


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


def read_body(response: httpx.Response, deadlines: Deadlines, started: float,
              max_bytes: int | None = None, raw: bool = False) -> tuple[bytes, str | None]:
    """The body of a streamed response within the deadlines: (bytes, None), or (bytes so far,
    "idle" | "total") when a deadline passed. Stops quietly after `max_bytes`. `raw`: the bytes as
    sent (no content decoding; for a transport that hands the response on)."""
    try:
        return response.content, None     # already in memory (a response built from bytes)
    except httpx.ResponseNotRead:
        pass
    body = bytearray()
    with Watchdog(response, deadlines, started) as dog:
        try:
            for chunk in (response.iter_raw() if raw else response.iter_bytes()):
                if chunk:
                    dog.useful()
                    body += chunk
                if max_bytes is not None and len(body) > max_bytes:
                    break
        except (httpx.HTTPError, httpx.StreamError, OSError):
            if dog.reason is None:
                raise
    return bytes(body), dog.reason


def timeout_words(exc: httpx.TimeoutException, deadlines: Deadlines) -> str:
    """What a timed-out request's server did: `did not accept a connection within 3 s` /
    `sent nothing for 30 s`."""
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return f"did not accept a connection within {deadlines.connect:g} s"
    return f"sent nothing for {deadlines.idle:g} s"


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
