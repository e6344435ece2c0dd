"""HTTP servers on 127.0.0.1 for the tests that play a service mfact talks to (an OpenAI-compatible
model server, SearXNG, a misbehaving server of any kind: tests/_faults.py).

A test server subclasses `LoopbackServer` and answers in `get(h)` / `post(h)`, where `h` is the
request handler of that one request (a `Handler`: the usual BaseHTTPRequestHandler, logging
nothing, plus the few ways these servers answer). The server listens on a port the OS picks, serves
each request in its own daemon thread from the moment it is made, and stops with `close()` (or at
the end of a `with` block).
"""
from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    """One request to a LoopbackServer; `self.owner` is that server."""

    owner: "LoopbackServer"

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self.owner.get(self)

    def do_POST(self) -> None:
        self.owner.post(self)

    def send_body(self, status: int, ctype: str, data: bytes, headers: dict | None = None,
                  length: bool = True) -> None:
        """A whole answer; `length=False` leaves Content-Length out (the body ends when the
        connection closes, as some servers answer errors)."""
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if length:
            self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def send_json(self, status: int, obj, length: bool = True) -> None:
        self.send_body(status, "application/json", json.dumps(obj).encode(), length=length)

    def start_events(self, headers: dict | None = None) -> None:
        """HTTP 200 and the headers of a server-sent event stream."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()

    def event(self, data) -> None:
        """One server-sent event: `data: <data>`, a str as it is, anything else as JSON."""
        text = data if isinstance(data, str) else json.dumps(data)
        self.wfile.write(f"data: {text}\n\n".encode())
        self.wfile.flush()


class LoopbackServer:
    """A threading HTTP server on `host`, port chosen by the OS. `root` is its http://host:port,
    `url` the OpenAI-style base (`root` + "/v1"). `protocol` is the HTTP version the handler
    speaks. A method the subclass does not answer gets HTTP 501, as from http.server."""

    protocol = "HTTP/1.0"

    def __init__(self, host: str = "127.0.0.1"):
        server = self

        class _Handler(Handler):
            protocol_version = server.protocol
            owner = server

        self.httpd = ThreadingHTTPServer((host, 0), _Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.root = f"http://{host}:{self.port}"
        self.url = self.root + "/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    def get(self, h: Handler) -> None:
        h.send_error(501, f"Unsupported method ({h.command!r})")

    def post(self, h: Handler) -> None:
        h.send_error(501, f"Unsupported method ({h.command!r})")

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def free_port() -> int:
    """A loopback port nobody listens on now (connecting to it is refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
