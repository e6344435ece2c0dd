"""A thin client of the MediaWiki Action API (any language's Wikipedia), and the `wikipedia` source.

Etiquette (https://www.mediawiki.org/wiki/API:Etiquette): a User-Agent naming the tool, its version
and a contact (cfg.wikipedia_contact); one request at a time per host; on 429/503 wait as long as
Retry-After says while the total wait stays under MAX_WAIT_TOTAL (a longer wait fails the lookup at
once, naming the wait, so the other sources go on), back off exponentially otherwise; the deadlines
of core/net.py on every request. The MediaWiki is configurable (`wikipedia_url`, a mirror or a local
MediaWiki; `{lang}` in it is replaced by the language code). A fast
probe (one TCP connect, remembered for a few minutes) tells a machine without network to skip the live
source at once instead of waiting on timeouts.
"""
from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
from typing import Any, Callable, Sequence
from urllib.parse import quote

import httpx

from .. import __version__
from ..net import DEFAULT_LOOKUP_TOTAL, Deadlines, deadline_words, make_client, read_body, retry_after_seconds
from ..protocols import MfactError
from .base import Page, TitleMatch

log = logging.getLogger("mfact.knowledge.wikipedia")

NAME = "wikipedia"
MAX_RETRY_AFTER = 30.0
MAX_WAIT_TOTAL = 10.0      # seconds one request may spend waiting on 429/503 in all
PROBE_TTL = 300.0
MAX_BODY = 20_000_000
DEFAULT_URL = "https://{lang}.wikipedia.org"

_host_locks: dict[str, threading.Lock] = {}
_host_locks_guard = threading.Lock()
_probe: dict[str, tuple[float, bool]] = {}


def _host_lock(host: str) -> threading.Lock:
    with _host_locks_guard:
        return _host_locks.setdefault(host, threading.Lock())


def network_available(host: str = "en.wikipedia.org", timeout: float = 1.5, port: int = 443) -> bool:
    """Whether `host` answers a TCP connect on `port` (cached for PROBE_TTL seconds)."""
    now = time.time()
    if port != 443:
        host = f"{host}:{port}"
    hit = _probe.get(host)
    if hit and now - hit[0] < PROBE_TTL:
        return hit[1]
    state = _probe_file()
    try:
        saved = json.loads(state.read_text(encoding="utf-8")).get(host) if state else None
        if isinstance(saved, list) and len(saved) == 2 and 0 <= now - float(saved[0]) < PROBE_TTL:
            _probe[host] = (float(saved[0]), bool(saved[1]))
            return bool(saved[1])
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    try:
        with socket.create_connection((host.rsplit(":", 1)[0] if port != 443 else host, port),
                                      timeout=timeout):
            ok = True
    except OSError:
        ok = False
    _probe[host] = (now, ok)
    if state:   # remembered across processes, so that each `mfact` call does not probe again
        try:
            state.write_text(json.dumps({h: [t, v] for h, (t, v) in _probe.items()}), encoding="utf-8")
        except OSError:
            pass
    return ok


def _probe_file():
    try:
        from ..paths import cache_dir
        return cache_dir() / "network-probe.json"
    except OSError:
        return None


def user_agent(contact: str = "") -> str:
    return f"mfact/{__version__} (fact-checking workbench; {contact or 'contact not configured'}) httpx/{httpx.__version__}"


def probe_target(base_url: str = "") -> tuple[str, int]:
    """(host, port) the offline probe connects to for a configured MediaWiki."""
    url = httpx.URL(api_url(base_url, "en"))
    return url.host, url.port or (443 if url.scheme == "https" else 80)


def api_url(base_url: str, lang: str) -> str:
    """The Action API endpoint of `base_url` (default Wikipedia) for `lang`."""
    base = (base_url or DEFAULT_URL).strip().rstrip("/").replace("{lang}", lang)
    return base if base.endswith("api.php") else base + "/w/api.php"


class WikipediaClient:
    def __init__(self, contact: str = "", transport: httpx.BaseTransport | None = None,
                 deadlines: Deadlines | None = None, max_retries: int = 4,
                 sleep: Callable[[float], None] = time.sleep, base_url: str = ""):
        self.contact = contact
        self.max_retries = max_retries
        self.sleep = sleep
        base = (base_url or "").strip()
        if base and not base.startswith(("http://", "https://")):
            raise MfactError(f"--wikipedia-url {base_url!r} is not an http(s) URL",
                             "e.g. https://{lang}.wikipedia.org or http://127.0.0.1:8080")
        self.base_url = base
        self.deadlines = deadlines or Deadlines(total=DEFAULT_LOOKUP_TOTAL)
        self._http = make_client(self.deadlines, transport=transport,
                                 headers={"User-Agent": user_agent(contact), "Accept": "application/json"})
        self.requests = 0
        self._blocked_until: dict[str, float] = {}

    def endpoint(self, lang: str) -> str:
        if not re.fullmatch(r"[a-z][a-z0-9-]{1,15}", lang):
            raise MfactError(f"invalid Wikipedia language code {lang!r}")
        return api_url(self.base_url, lang)

    def api(self, lang: str, **params: Any) -> dict:
        url = self.endpoint(lang)
        q = {"format": "json", "formatversion": "2", "maxlag": "5", **{k: v for k, v in params.items() if v is not None}}
        host = httpx.URL(url).host
        delay = 1.0
        waited = 0.0
        blocked = self._blocked_until.get(host, 0.0) - time.monotonic()
        if blocked > 0:
            raise MfactError(f"Wikipedia ({host}) asked us to wait {blocked:.0f} s more",
                             "going on with the other sources; try again later")
        for attempt in range(self.max_retries + 1):
            with _host_lock(host):
                started = time.monotonic()
                try:
                    self.requests += 1
                    with self._http.stream("GET", url, params=q) as r:
                        body, why = read_body(r, self.deadlines, started, max_bytes=MAX_BODY)
                except httpx.TimeoutException as exc:
                    what = (f"did not accept a connection within {self.deadlines.connect:g} s"
                            if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout)
                            else f"sent nothing for {self.deadlines.idle:g} s")
                    raise MfactError(f"Wikipedia ({host}) did not answer in time: it {what}",
                                     "check the network or --wikipedia-url, or use --offline") from None
                except httpx.HTTPError as exc:
                    raise MfactError(f"Wikipedia ({host}) is unreachable: {type(exc).__name__}",
                                     "check the network or --wikipedia-url, or use --offline") from None
            if why:
                raise MfactError(f"Wikipedia ({host}) did not answer in time: it {deadline_words(why, self.deadlines)}",
                                 "check the network or --wikipedia-url, or raise --lookup-timeout")
            if r.status_code in (429, 503) or (r.status_code == 200 and _is_maxlag(r, body)):
                asked = retry_after_seconds(r.headers.get("Retry-After"))
                wait = min(asked if asked is not None else delay, MAX_RETRY_AFTER)
                if asked is not None and waited + asked > MAX_WAIT_TOTAL:
                    self._blocked_until[host] = time.monotonic() + asked
                    raise MfactError(f"Wikipedia ({host}) asked us to wait {asked:.0f} s"
                                     f" (HTTP {r.status_code})",
                                     "going on with the other sources; try again later")
                if attempt == self.max_retries or waited + wait > MAX_WAIT_TOTAL:
                    break
                log.info("%s answered %s; waiting %.1f s", host, r.status_code, wait)
                self.sleep(wait)
                waited += wait
                delay = min(delay * 2, MAX_RETRY_AFTER)
                continue
            if r.status_code != 200:
                raise MfactError(f"Wikipedia ({host}) answered HTTP {r.status_code}", "try again later")
            try:
                data = json.loads(body)
            except (ValueError, RecursionError):
                raise MfactError(f"Wikipedia ({host}) sent a reply that is not JSON") from None
            if isinstance(data, dict) and "error" in data:
                err = data["error"] if isinstance(data["error"], dict) else {"info": str(data["error"])}
                raise MfactError(f"Wikipedia ({host}) refused the request: {err.get('code')}: {err.get('info', '')}")
            return data
        raise MfactError(f"Wikipedia ({host}) is rate-limiting mfact (HTTP 429)",
                         "wait a minute, set wikipedia_contact, or use --offline")

    # ------------------------------------------------------------------ queries

    def page_info(self, title: str, lang: str, langlinks: bool = False) -> dict:
        """Title lookup with redirects followed: {title, missing, disambiguation, qid, url, revid, langlinks}."""
        data = self.api(lang, action="query", titles=title, redirects="1", prop="pageprops|info" +
                        ("|langlinks" if langlinks else ""), ppprop="wikibase_item|disambiguation",
                        inprop="url", lllimit="max" if langlinks else None)
        pages = (data.get("query") or {}).get("pages") or []
        if not pages:
            return {"title": title, "missing": True}
        p = pages[0]
        props = p.get("pageprops") or {}
        return {"title": p.get("title", title), "missing": bool(p.get("missing") or p.get("invalid")),
                "disambiguation": "disambiguation" in props, "qid": props.get("wikibase_item"),
                "url": p.get("fullurl") or "", "revid": p.get("lastrevid"),
                "langlinks": {ll["lang"]: ll["title"] for ll in p.get("langlinks") or []
                              if "lang" in ll and "title" in ll}}

    def search(self, text: str, lang: str, limit: int = 5) -> list[str]:
        data = self.api(lang, action="query", list="search", srsearch=text, srlimit=str(limit), srnamespace="0",
                        srprop="")
        return [h["title"] for h in (data.get("query") or {}).get("search") or [] if "title" in h]

    def prefix(self, text: str, lang: str, limit: int = 10) -> list[str]:
        data = self.api(lang, action="opensearch", search=text, limit=str(limit), namespace="0",
                        formatversion=None)
        return [str(t) for t in data[1]] if isinstance(data, list) and len(data) > 1 else []

    def links(self, title: str, lang: str, limit: int = 100) -> list[str]:
        data = self.api(lang, action="query", titles=title, prop="links", plnamespace="0", pllimit=str(limit))
        pages = (data.get("query") or {}).get("pages") or []
        return [l["title"] for p in pages for l in p.get("links") or [] if "title" in l]

    def extract(self, title: str, lang: str) -> dict:
        data = self.api(lang, action="query", titles=title, redirects="1", prop="extracts|info|pageprops",
                        explaintext="1", exsectionformat="wiki", inprop="url", ppprop="wikibase_item")
        pages = (data.get("query") or {}).get("pages") or []
        if not pages or pages[0].get("missing"):
            return {}
        p = pages[0]
        return {"title": p.get("title", title), "text": p.get("extract") or "", "url": p.get("fullurl") or "",
                "revid": p.get("lastrevid"), "qid": (p.get("pageprops") or {}).get("wikibase_item")}


def _is_maxlag(r: httpx.Response, body: bytes) -> bool:
    return r.headers.get("X-Database-Lag") is not None or (
        r.headers.get("content-type", "").startswith("application/json") and b'"maxlag"' in body[:200])


_HEADING = re.compile(r"^(={2,6})\s*(.*?)\s*\1\s*$", re.MULTILINE)
_SKIP_SECTIONS = {"references", "external links", "see also", "further reading", "notes", "bibliography",
                  "referencias", "enlaces externos", "véase también", "bibliografía", "notas",
                  "références", "liens externes", "voir aussi", "notes et références", "bibliographie",
                  "einzelnachweise", "weblinks", "literatur", "siehe auch"}


def sections_from_extract(text: str) -> list[tuple[str, str]]:
    """Split a plain-text extract (exsectionformat=wiki) into (section title, text), dropping
    reference-like sections and empty ones."""
    out: list[tuple[str, str]] = []
    pos, path = 0, []          # path: the enclosing headings, e.g. ["Biografía", "Primeros años"]

    def flush(end: int) -> None:
        body = text[pos:end].strip()
        if body and not any(h.casefold() in _SKIP_SECTIONS for h in path):
            out.append((" / ".join(path), body))

    for m in _HEADING.finditer(text):
        flush(m.start())
        level = len(m.group(1)) - 2
        path = path[:level] + [m.group(2)]
        pos = m.end()
    flush(len(text))
    return out


class WikipediaSource:
    name = NAME

    def __init__(self, contact: str = "", client: WikipediaClient | None = None, base_url: str = "",
                 deadlines: Deadlines | None = None):
        self.client = client or WikipediaClient(contact, base_url=base_url, deadlines=deadlines)

    def languages(self) -> None:
        return None

    def lookup(self, name: str, lang: str) -> TitleMatch:
        info = self.client.page_info(name, lang)
        if not info.get("missing"):
            if info.get("disambiguation"):
                choices = self.client.links(info["title"], lang)
                words = {w.casefold() for w in re.findall(r"\w+", name) if len(w) > 2}
                ranked = sorted(choices, key=lambda t: -len(words & {w.casefold() for w in re.findall(r"\w+", t)}))
                return TitleMatch(choices=[c for c in ranked if words & {w.casefold() for w in re.findall(r"\w+", c)}]
                                  or ranked)
            return TitleMatch(title=info["title"], qid=info.get("qid"))
        return TitleMatch(suggestions=self.client.search(name, lang, 5))

    def langlinks(self, title: str, lang: str, want: Sequence[str]) -> dict[str, str]:
        info = self.client.page_info(title, lang, langlinks=True)
        return {l: t for l, t in info.get("langlinks", {}).items() if l in want}

    def get_page(self, title: str, lang: str) -> Page | None:
        ex = self.client.extract(title, lang)
        if not ex:
            return None
        sections = sections_from_extract(ex["text"])
        if not sections:
            return None
        url = ex["url"] or (self.client.endpoint(lang).removesuffix("api.php").removesuffix("w/")
                            + f"wiki/{quote(ex['title'].replace(' ', '_'))}")
        return Page(source=NAME, lang=lang, title=ex["title"], sections=sections, url=url, revid=ex.get("revid"),
                    qid=ex.get("qid"))

    def suggest(self, prefix: str, lang: str, limit: int = 10) -> list[str]:
        return self.client.prefix(prefix, lang, limit)
