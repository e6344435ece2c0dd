"""Generation spread over several OpenAI-compatible servers serving the same model.

`--base-url` given more than once (or `base_url = "http://a/v1,http://b/v1"`) builds a
`ServerPool` instead of one `OpenAIGenerator`:

- **Balancing.** Each request goes to the server with the fewest requests in flight from this
  process (ties: round robin). The state is shared by every pool over the same URLs in the
  process, so the `--workers` threads of `mfact run` (each with its own pipeline) balance together.
- **Failures.** A server whose request fails before its first token (cannot connect, timeout,
  HTTP error, a broken or malformed stream) is taken out of rotation with a notice and the request
  goes to the next server: the job does not see the failure. A failure after text has been
  streamed cannot be resumed elsewhere: the server is taken out and the job fails (a re-run of
  `mfact run` redoes it). A server out of rotation is tried again after `cooldown` seconds, and is
  back in rotation (with a notice) when a request succeeds. When every server is out, requests go
  to the one that failed longest ago rather than failing outright.
- With `--executor ray` each actor has its own pool (and so its own view of which servers failed).
"""
from __future__ import annotations

import itertools
import logging
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from ..errors import MfactError
from ..protocols import Chunk, DecodingParams, GeneratorBase

if TYPE_CHECKING:  # pragma: no cover
    from .openai import OpenAIGenerator

log = logging.getLogger("mfact.models")

COOLDOWN = 30.0


def split_urls(value: str | Sequence[str] | None) -> list[str]:
    """The server URLs of a `base_url` setting: comma or whitespace separated, duplicates dropped."""
    if not value:
        return []
    items = [value] if isinstance(value, str) else list(value)
    out: list[str] = []
    for item in items:
        out.extend(u for u in re.split(r"[,\s]+", str(item)) if u)
    return list(dict.fromkeys(out))


def default_notice(message: str) -> None:
    log.warning("%s", message)
    try:
        sys.stderr.write(f"mfact: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


@dataclass
class _Server:
    url: str
    in_flight: int = 0
    down_since: float | None = None       # out of rotation since (monotonic), None when healthy
    failures: int = 0
    last_error: str = ""


@dataclass
class _PoolState:
    servers: dict[str, _Server]
    lock: threading.Lock = field(default_factory=threading.Lock)
    turn: Any = field(default_factory=itertools.count)


_STATES: dict[tuple[str, ...], _PoolState] = {}
_STATES_LOCK = threading.Lock()


def _state(urls: Sequence[str]) -> _PoolState:
    key = tuple(urls)
    with _STATES_LOCK:
        st = _STATES.get(key)
        if st is None:
            st = _STATES[key] = _PoolState({u: _Server(u) for u in urls})
        return st


class ServerPool(GeneratorBase):
    """A Generator over several `OpenAIGenerator`s (same model, same prompt style)."""

    backend = "openai"

    def __init__(self, generators: Sequence[OpenAIGenerator], cooldown: float = COOLDOWN,
                 on_notice: Callable[[str], None] | None = None, clock: Callable[[], float] = time.monotonic,
                 shared: bool = True):
        if not generators:
            raise MfactError("no model server given", "give --base-url")
        self.generators = {g.base_url: g for g in generators}
        self.urls = list(self.generators)
        self.cooldown = cooldown
        self.on_notice = on_notice or default_notice
        self.clock = clock
        self._st = _state(self.urls) if shared else _PoolState({u: _Server(u) for u in self.urls})

    # ------------------------------------------------------------------ the Generator interface

    @property
    def _first(self) -> Any:
        return self.generators[self.urls[0]]

    @property
    def base_url(self) -> str:
        return ",".join(self.urls)

    @property
    def prompt_style(self) -> str:
        return self._first.prompt_style

    @prompt_style.setter
    def prompt_style(self, value: str) -> None:
        for g in self.generators.values():
            g.prompt_style = value

    @property
    def model(self) -> str:
        """The served model's name, asked of the first server that answers."""
        last: MfactError | None = None
        for url in self._order():
            try:
                return self.generators[url].model
            except MfactError as exc:
                last = exc
        raise last or MfactError("no model server answered")

    @model.setter
    def model(self, value: str) -> None:
        for g in self.generators.values():
            g.model = value

    def default_prompt(self, entity: str, lang: str) -> str:
        return self._first.default_prompt(entity, lang)

    def render_prompt(self, prompt: str) -> str:
        return self._first.render_prompt(prompt)

    def stream(self, prompt: str, params: DecodingParams | None = None,
               stop: threading.Event | None = None) -> Iterator[Chunk]:
        params = params or DecodingParams()
        tried: set[str] = set()
        while True:
            url = self._acquire(tried)
            if url is None:
                raise MfactError(f"all {len(self.urls)} model servers failed "
                                 f"(last: {self._st.servers[self.urls[-1]].last_error or 'no answer'})",
                                 "check the servers, or give other --base-url values")
            tried.add(url)
            started = False
            try:
                for chunk in self.generators[url].stream(prompt, params, stop):
                    if chunk.text or chunk.tokens:
                        started = True
                    yield chunk
            except MfactError as exc:
                self._failed(url, exc)
                if started or (stop is not None and stop.is_set()):
                    raise
                continue
            finally:
                self._release(url)
            self._succeeded(url)
            return

    def close(self) -> None:
        for g in self.generators.values():
            g.close()

    def __repr__(self) -> str:
        return f"ServerPool({self.urls!r})"

    # ------------------------------------------------------------------ rotation

    def healthy(self) -> list[str]:
        with self._st.lock:
            return [u for u in self.urls if self._st.servers[u].down_since is None]

    def _usable(self, s: _Server, now: float) -> bool:
        return s.down_since is None or now - s.down_since >= self.cooldown

    def _order(self) -> list[str]:
        now = self.clock()
        with self._st.lock:
            servers = [self._st.servers[u] for u in self.urls]
            up = [s.url for s in servers if self._usable(s, now)]
            down = [s.url for s in sorted(servers, key=lambda s: s.down_since or 0.0) if s.url not in up]
        return up + down

    def _acquire(self, tried: set[str]) -> str | None:
        now = self.clock()
        with self._st.lock:
            servers = [self._st.servers[u] for u in self.urls if u not in tried]
            if not servers:
                return None
            usable = [s for s in servers if self._usable(s, now)]
            if usable:
                low = min(s.in_flight for s in usable)
                ties = [s for s in usable if s.in_flight == low]
                pick = ties[next(self._st.turn) % len(ties)]
            else:                      # every server is out: the one that failed longest ago
                pick = min(servers, key=lambda s: s.down_since or 0.0)
            pick.in_flight += 1
            return pick.url

    def _release(self, url: str) -> None:
        with self._st.lock:
            s = self._st.servers[url]
            s.in_flight = max(0, s.in_flight - 1)

    def _failed(self, url: str, exc: MfactError) -> None:
        with self._st.lock:
            s = self._st.servers[url]
            s.failures += 1
            s.last_error = exc.message
            was_up = s.down_since is None
            s.down_since = self.clock()
            left = sum(1 for x in self._st.servers.values() if x.down_since is None)
        if was_up:
            self.on_notice(f"model server {url} failed ({exc.message}); taken out of rotation for "
                           f"{self.cooldown:g} s, {left} of {len(self.urls)} left")

    def _succeeded(self, url: str) -> None:
        with self._st.lock:
            s = self._st.servers[url]
            was_down = s.down_since is not None
            s.down_since = None
        if was_down:
            self.on_notice(f"model server {url} answers again; back in rotation")
