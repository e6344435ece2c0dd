"""The `wikipedia` source: Wikipedia-API for page text, sections and language links; mfact's own
MediaWiki calls for what Wikipedia-API lacks (title lookup with the Wikidata QID, search, prefix
search, the choices of a disambiguation page, Wikidata sitelinks); both over one httpx transport.

Etiquette (https://www.mediawiki.org/wiki/API:Etiquette) lives in that transport,
`MediaWikiTransport`, whoever sends the request: a User-Agent naming the tool, its version and a
contact (cfg.wikipedia_contact); one request at a time per host; on 429/503 (and maxlag) wait as
long as Retry-After says while the total wait stays under MAX_WAIT_TOTAL (a longer wait fails the
request at once, naming the wait, so the other sources go on), back off exponentially otherwise;
the deadlines of core/net.py on every request (first byte, idle, and the body read in all).
Wikipedia-API (the `wikipedia-api` package, pinned) takes an httpx transport, so it is given this
one, with its own retries off. The MediaWiki is configurable (`base_url`, `{lang}` filled in).

A person whose page does not exist under the given name in the session language is found through
Wikidata: the item of the English page (or of Wikidata's label search) and its sitelink to that
language's Wikipedia. A fast probe (one TCP connect, remembered for a few minutes) tells a machine
without network to skip the live source at once instead of waiting on timeouts.
"""
from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence
from urllib.parse import quote

import httpx

from .. import __version__
from ..net import (ACCEPT_ENCODING, DEFAULT_IDLE, DEFAULT_LOOKUP_TOTAL, Deadlines, deadline_words, read_body,
                   retry_after_seconds, timeout_words, wait_words)
from ..languages import LANGUAGES
from ..errors import MfactError
from ..inputs import read_own
from .base import Page, TitleMatch

log = logging.getLogger("mfact.knowledge.wikipedia")

NAME = "wikipedia"
MAX_RETRY_AFTER = 30.0
MAX_WAIT_TOTAL = 10.0      # seconds one request may spend waiting on 429/503 in all
MAX_BODY = 20_000_000
PROBE_TTL = 300.0
MAX_CONTINUE = 10            # rounds of `continue` followed for one query
SILENT_FOR = 60.0            # seconds a host that did not answer in time is not asked again
DEFAULT_URL = "https://{lang}.wikipedia.org"
# mfact language codes whose Wikipedia has another code (Cantonese: yue -> zh-yue.wikipedia.org)
_WIKI_CODES = {lang.code: lang.wiki for lang in LANGUAGES if lang.wiki != lang.code}
_FROM_WIKI = {wiki: code for code, wiki in _WIKI_CODES.items()}
WIKIDATA_API = "https://www.wikidata.org/w/api.php"

_host_locks: dict[str, threading.Lock] = {}
_host_locks_guard = threading.Lock()
_probe: dict[str, tuple[float, bool]] = {}


def _host_lock(host: str) -> threading.Lock:
    with _host_locks_guard:
        return _host_locks.setdefault(host, threading.Lock())


def network_available(host: str = "en.wikipedia.org", timeout: float = 1.5, port: int = 443) -> bool:
    """Whether `host` answers a TCP connect on `port` (cached for PROBE_TTL seconds)."""
    now = time.time()
    target = host
    if port != 443:
        host = f"{host}:{port}"
    hit = _probe.get(host)
    if hit and now - hit[0] < PROBE_TTL:
        return hit[1]
    state = _probe_file()
    try:
        raw = read_own(state, "the network probe file", "it is rebuilt") if state else None
        saved_all = json.loads(raw) if raw else None
        saved = saved_all.get(host) if isinstance(saved_all, dict) else None
        if isinstance(saved, list) and len(saved) == 2 and 0 <= now - float(saved[0]) < PROBE_TTL:
            _probe[host] = (float(saved[0]), bool(saved[1]))
            return bool(saved[1])
    except (OSError, ValueError, TypeError, RecursionError, MfactError):
        pass                    # a cache: a bad one (a FIFO, garbage) is only probed again
    try:
        with socket.create_connection((target, port), timeout=timeout):
            ok = True
    except OSError:
        ok = False
    _probe[host] = (now, ok)
    if state:   # remembered across processes, so that each `mfact` call does not probe again
        from ..paths import replace_file
        replace_file(state, json.dumps({h: [t, v] for h, (t, v) in _probe.items()}))
    return ok


def _probe_file():
    try:
        from ..paths import cache_dir
        return cache_dir() / "network-probe.json"
    except (OSError, MfactError):
        return None


def user_agent(contact: str = "") -> str:
    return (
        f"mfact/{__version__} (fact-checking workbench; {contact or 'contact not configured'})"
        f" httpx/{httpx.__version__}"
    )


def probe_target(base_url: str = "") -> tuple[str, int]:
    """(host, port) the offline probe connects to for a configured MediaWiki."""
    url = httpx.URL(api_url(base_url, "en"))
    return url.host, url.port or (443 if url.scheme == "https" else 80)


def api_url(base_url: str, lang: str) -> str:
    """The Action API endpoint of `base_url` (default Wikipedia; `{lang}` is filled in) for `lang`."""
    base = (base_url or DEFAULT_URL).strip().rstrip("/").replace("{lang}", lang)
    return base if base.endswith("api.php") else base + "/w/api.php"


def _check_lang(lang: str) -> str:
    """The Wikipedia code of `lang` (an mfact language's `wiki`, e.g. zh-yue for yue; other codes
    as given)."""
    if not isinstance(lang, str) or not re.fullmatch(r"[a-z][a-z0-9-]{1,15}", lang):
        raise MfactError(f"invalid Wikipedia language code {lang!r}")
    return _WIKI_CODES.get(lang, lang)


def _from_wiki(code: str) -> str:
    """mfact's code of a Wikipedia language code (zh-yue -> yue; others as given)."""
    return _FROM_WIKI.get(code, code)


class MediaWikiTransport(httpx.BaseTransport):
    """mfact's etiquette for every MediaWiki request, whoever makes it: mfact's own client (search,
    disambiguation, Wikidata) and Wikipedia-API (page text, sections, language links) both send
    through one instance of this transport.

    - User-Agent: mfact's, naming its version and the configured contact (a client that appends
      its own name after it, as Wikipedia-API does, keeps that suffix);
    - one request at a time per host (the body is read inside the host's lock);
    - HTTP 429/503 and maxlag answers: wait as long as Retry-After says (capped at
      MAX_RETRY_AFTER), else back off exponentially, and send again, up to `max_retries` times;
      after that the last answer is returned for the caller to report.
    """

    def __init__(self, contact: str = "", inner: httpx.BaseTransport | None = None, max_retries: int = 4,
                 sleep: Callable[[float], None] = time.sleep, deadlines: Deadlines | None = None):
        self.inner = inner if inner is not None else httpx.HTTPTransport()
        self.user_agent = user_agent(contact)
        self.max_retries = max_retries
        self.sleep = sleep
        self.deadlines = deadlines or Deadlines(total=DEFAULT_LOOKUP_TOTAL)
        self.requests = 0
        self._blocked_until: dict[str, float] = {}
        self._silent_until: dict[str, float] = {}

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not request.headers.get("User-Agent", "").startswith(self.user_agent):
            request.headers["User-Agent"] = self.user_agent
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING    # what read_body inflates in bounded pieces
        host = request.url.host
        self._admit(request)
        delay = 1.0
        waited = 0.0
        for attempt in range(self.max_retries + 1):
            r, body, why = self._send(request)
            if why:
                self._silent_until[host] = time.monotonic() + SILENT_FOR
                raise fault(f"Wikipedia ({host}) did not answer in time: it {deadline_words(why, self.deadlines)}",
                            "check the network or --wikipedia-url, or raise --lookup-timeout")
            if len(body) > MAX_BODY:
                packed = r.headers.get("content-encoding", "").strip().lower() not in ("", "identity")
                raise fault(f"Wikipedia ({host}) sent a reply of more than {MAX_BODY // 1_000_000} MB"
                            + (" once decompressed (a compressed reply that inflates hugely)" if packed else ""),
                            "check --wikipedia-url; mfact reads no more of it")
            headers = [(k, v) for k, v in r.headers.multi_items()
                       if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
            r = httpx.Response(r.status_code, headers=headers, content=body, request=request,
                               extensions={k: v for k, v in r.extensions.items() if k != "network_stream"})
            if not (r.status_code in (429, 503) or (r.status_code == 200 and _is_maxlag(r))):
                return r
            asked = retry_after_seconds(r.headers.get("Retry-After"))
            if asked is not None and waited + asked > MAX_WAIT_TOTAL:
                self._blocked_until[host] = time.monotonic() + asked
                raise MfactError(f"Wikipedia ({host}) asked us to wait {wait_words(asked)} (HTTP {r.status_code})",
                                 "going on with the other sources; try again later")
            wait = min(asked if asked is not None else delay, MAX_RETRY_AFTER)
            if attempt == self.max_retries or waited + wait > MAX_WAIT_TOTAL:
                return r
            log.info("%s answered %s; waiting %.1f s", host, r.status_code, wait)
            self.sleep(wait)
            waited += wait
            delay = min(delay * 2, MAX_RETRY_AFTER)
        raise AssertionError("unreachable")

    def _admit(self, request: httpx.Request) -> None:
        """Refuse at once a request mfact will not send: a scheme other than http(s) (a redirect
        to file:), a host that asked us to wait, or one that did not answer a moment ago (so that
        --lookup-timeout bounds a whole lookup, not each of its requests)."""
        url, host = request.url, request.url.host
        if url.scheme not in ("http", "https"):
            raise fault(f"Wikipedia redirected mfact to a {url.scheme}: URL; only http(s) is followed",
                        "check --wikipedia-url")
        blocked = self._blocked_until.get(host, 0.0) - time.monotonic()
        if blocked > 0:
            raise MfactError(f"Wikipedia ({host}) asked us to wait {wait_words(blocked)} more",
                             "going on with the other sources; try again later")
        if self._silent_until.get(host, 0.0) > time.monotonic():
            raise MfactError(f"Wikipedia ({host}) did not answer in time a moment ago; not asked again",
                             "check the network or --wikipedia-url, or raise --lookup-timeout")

    def _send(self, request: httpx.Request) -> tuple[httpx.Response, bytes, str | None]:
        """One request and its body, under the host's lock, every wait bounded by the deadlines'
        total (the first byte too: httpx alone waits `idle` for it)."""
        host = request.url.host
        with _host_lock(host):
            self.requests += 1
            started = time.monotonic()
            total = self.deadlines.total
            timeout = dict(request.extensions.get("timeout") or {})
            request.extensions["timeout"] = {k: min(v, total) if isinstance(v, (int, float)) else total
                                             for k, v in timeout.items()} or self.deadlines.timeout().as_dict()
            try:
                r = self.inner.handle_request(request)
            except httpx.TimeoutException:
                self._silent_until[host] = time.monotonic() + SILENT_FOR
                raise
            try:     # the body within the deadlines: a trickle or an endless body ends too
                body, why = read_body(r, self.deadlines, started, max_bytes=MAX_BODY)
            finally:
                r.close()
        return r, body, why

    def close(self) -> None:
        self.inner.close()


def fault(message: str, hint: str = "") -> MfactError:
    """A MediaWiki fault: one line for the user, and the same line in the log."""
    log.warning("%s", message)
    return MfactError(message, hint)


@dataclass(frozen=True)
class WaitPolicy:
    """How long a WikipediaClient waits for MediaWiki: its `deadlines` (None: `timeout`, else
    DEFAULT_IDLE, between bytes, and DEFAULT_LOOKUP_TOTAL in all), and how often it sends again a
    request refused for load (`max_retries`), sleeping with `sleep` in between."""
    deadlines: Deadlines | None = None
    timeout: float | None = None
    max_retries: int = 4
    sleep: Callable[[float], None] = time.sleep


class WikipediaClient:
    """mfact's own MediaWiki calls: title lookup with the QID, search, prefix search, the links of a
    disambiguation page, Wikidata sitelinks. Page text, sections and language links go through
    Wikipedia-API (`wikipedia_api()`), over the same transport."""

    def __init__(self, contact: str = "", transport: httpx.BaseTransport | None = None, base_url: str = "",
                 wikidata_url: str = WIKIDATA_API, waits: WaitPolicy = WaitPolicy()):
        deadlines, timeout = waits.deadlines, waits.timeout
        self.contact = contact
        base = (base_url or "").strip()
        if base and not base.startswith(("http://", "https://")):
            raise MfactError(f"--wikipedia-url {base_url!r} is not an http(s) URL",
                             "e.g. https://{lang}.wikipedia.org or http://127.0.0.1:8080")
        self.base_url = base
        self.wikidata_url = wikidata_url
        self.deadlines = deadlines or Deadlines(idle=timeout or DEFAULT_IDLE, total=DEFAULT_LOOKUP_TOTAL)
        self.timeout = self.deadlines.timeout()
        self.transport = MediaWikiTransport(contact, transport, max_retries=waits.max_retries, sleep=waits.sleep,
                                            deadlines=self.deadlines)
        self._http = httpx.Client(transport=self.transport, timeout=self.timeout,
                                  headers={"User-Agent": self.transport.user_agent, "Accept": "application/json"},
                                  follow_redirects=True)
        self._wikis: dict[str, Any] = {}
        self._wikis_lock = threading.Lock()

    @property
    def requests(self) -> int:
        return self.transport.requests

    def endpoint(self, lang: str) -> str:
        return api_url(self.base_url, _check_lang(lang))

    def api(self, lang: str, **params: Any) -> Any:
        return self._get(self.endpoint(lang), params)

    def _host(self, lang: str) -> str:
        return httpx.URL(self.endpoint(lang)).host

    def _get(self, url: str, params: dict[str, Any]) -> Any:
        q = {
            "format": "json",
            "formatversion": "2",
            "maxlag": "5",
            **{k: v for k, v in params.items() if v is not None},
        }
        host = httpx.URL(url).host
        try:
            r = self._http.get(url, params=q)
        except httpx.TimeoutException as exc:
            raise fault(f"Wikipedia ({host}) did not answer in time: it {timeout_words(exc, self.deadlines)}",
                        "check the network or --wikipedia-url, or raise --lookup-timeout") from None
        except httpx.TooManyRedirects:
            raise fault(f"Wikipedia ({host}) redirects in a loop", "check --wikipedia-url") from None
        except httpx.HTTPError as exc:
            raise fault(f"Wikipedia ({host}) is unreachable: {type(exc).__name__}",
                        "check the network or --wikipedia-url, or use --offline") from None
        if r.status_code in (429, 503) or (r.status_code == 200 and _is_maxlag(r)):
            raise fault(f"Wikipedia ({host}) is rate-limiting mfact (HTTP {r.status_code})",
                        "wait a minute, set wikipedia_contact, or use --offline")
        if r.status_code != 200:
            raise fault(f"Wikipedia ({host}) answered HTTP {r.status_code}", "try again later")
        data = _json_reply(r, host)
        if isinstance(data, dict) and "error" in data:
            raise _refused(host, data["error"])
        return data

    def _query_all(self, lang: str, **params: Any) -> list[dict]:
        """The pages of a query, following the API's `continue` (at most MAX_CONTINUE rounds); the
        lists of a page that comes back in several rounds are joined."""
        pages: dict[Any, dict] = {}
        cont: dict[str, Any] = {}
        for _ in range(MAX_CONTINUE):
            data = self.api(lang, action="query", **params, **cont)
            for p in _objects(data, self._host(lang), "query", "pages"):
                key = p.get("pageid", p.get("title"))
                have = pages.setdefault(key, {})
                for k, v in p.items():
                    if isinstance(v, list) and isinstance(have.get(k), list):
                        have[k] = have[k] + v
                    else:
                        have[k] = v
            cont = data.get("continue") or {} if isinstance(data, dict) else {}
            if not isinstance(cont, dict) or not cont:
                break
        return list(pages.values())

    # ------------------------------------------------------------------ Wikipedia-API

    def wikipedia_api(self, lang: str):
        """A `wikipediaapi.Wikipedia` for `lang` sending through this client's transport (so with
        mfact's User-Agent, host lock and Retry-After handling) at the configured MediaWiki."""
        code = _check_lang(lang)
        with self._wikis_lock:
            wiki = self._wikis.get(lang)
            if wiki is None:
                wiki = self._wikis[lang] = _mfact_wikipedia_class()(
                    user_agent=self.transport.user_agent, language=code, base_url=self.base_url,
                    transport=self.transport, timeout=self.timeout)
            return wiki

    def call_api(self, lang: str, fn: Callable[[Any], Any]) -> Any:
        """fn(wiki) with Wikipedia-API's failures turned into one MfactError each."""
        import wikipediaapi as wa

        host = httpx.URL(self.endpoint(lang)).host
        try:
            return fn(self.wikipedia_api(lang))
        except MfactError:
            raise
        except wa.WikiHttpTimeoutError:
            raise fault(f"Wikipedia ({host}) did not answer in time",
                        "check the network, or use --offline") from None
        except wa.WikiConnectionError:
            raise fault(f"Wikipedia ({host}) is unreachable", "check the network, or use --offline") from None
        except wa.WikiRateLimitError:
            raise fault(f"Wikipedia ({host}) is rate-limiting mfact (HTTP 429)",
                        "wait a minute, set wikipedia_contact, or use --offline") from None
        except wa.WikiHttpError as exc:
            if exc.status_code == 503:
                raise fault(f"Wikipedia ({host}) is rate-limiting mfact (HTTP 503)",
                            "wait a minute, set wikipedia_contact, or use --offline") from None
            raise fault(f"Wikipedia ({host}) answered HTTP {exc.status_code}", "try again later") from None
        except wa.WikiInvalidJsonError:
            raise fault(f"Wikipedia ({host}) sent a reply that is not JSON") from None
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise fault(f"Wikipedia ({host}) sent a reply mfact cannot read ({type(exc).__name__})") \
                from None

    # ------------------------------------------------------------------ queries

    def page_info(self, title: str, lang: str, langlinks: bool = False) -> dict:
        """Title lookup with redirects followed: {title, missing, disambiguation, qid, url, revid, langlinks}."""
        data = self.api(lang, action="query", titles=title, redirects="1", prop="pageprops|info" +
                        ("|langlinks" if langlinks else ""), ppprop="wikibase_item|disambiguation",
                        inprop="url", lllimit="max" if langlinks else None)
        host = self._host(lang)
        pages = _objects(data, host, "query", "pages")
        if not pages:
            return {"title": title, "missing": True}
        p = pages[0]
        props = p.get("pageprops") or {}
        if not isinstance(props, dict):
            raise _shape(host, f"query.pages[0].pageprops is {_kind(props)}, not an object")
        name = p.get("title", title)
        if not isinstance(name, str) or not name.strip():
            raise _shape(host, "query.pages[0].title is not a string")
        qid, url = props.get("wikibase_item"), p.get("fullurl")
        return {"title": name, "missing": bool(p.get("missing") or p.get("invalid")),
                "disambiguation": "disambiguation" in props, "qid": qid if isinstance(qid, str) else None,
                "url": url if isinstance(url, str) else "", "revid": p.get("lastrevid"),
                "langlinks": {_from_wiki(str(ll["lang"])): str(ll["title"])
                              for ll in _objects(p, host, "langlinks") if "lang" in ll and "title" in ll}}

    def search(self, text: str, lang: str, limit: int = 5) -> list[str]:
        data = self.api(lang, action="query", list="search", srsearch=text, srlimit=str(limit), srnamespace="0",
                        srprop="")
        return [str(h["title"]) for h in _objects(data, self._host(lang), "query", "search") if "title" in h]

    def prefix(self, text: str, lang: str, limit: int = 10) -> list[str]:
        data = self.api(lang, action="opensearch", search=text, limit=str(limit), namespace="0",
                        formatversion=None)
        return [str(t) for t in data[1]] if isinstance(data, list) and len(data) > 1 else []

    def links(self, title: str, lang: str, limit: int = 500) -> list[str]:
        """The article links of a page (a disambiguation page's choices), across `continue` rounds."""
        pages = self._query_all(lang, titles=title, prop="links", plnamespace="0", pllimit="max")
        host = self._host(lang)
        return [str(ln["title"]) for p in pages for ln in _objects(p, host, "links") if "title" in ln][:limit]

    def extract(self, title: str, lang: str) -> dict:
        """The page's sections through Wikipedia-API, and its URL, revision and QID through mfact's
        own lookup (Wikipedia-API does not give the QID); {} when the page is missing."""
        info = self.page_info(title, lang)
        if info.get("missing"):
            return {}

        def fetch(wiki) -> list[tuple[str, str]]:
            page = wiki.page(info["title"])
            return _wikiapi_sections(page)       # one extracts request (missing: no sections)
        return {"title": info["title"], "sections": self.call_api(lang, fetch), "url": info.get("url") or "",
                "revid": info.get("revid"), "qid": info.get("qid")}

    def langlinks(self, title: str, lang: str) -> dict[str, str]:
        """{language: title} of the page's language links, through Wikipedia-API."""
        def fetch(wiki) -> dict[str, str]:
            links = wiki.langlinks(wiki.page(title))
            return {_from_wiki(code): p.title for code, p in links.items()}
        return self.call_api(lang, fetch)

    # ------------------------------------------------------------------ Wikidata

    def wikidata_search(self, name: str, lang: str, limit: int = 5) -> list[str]:
        """QIDs of items whose label or alias in `lang` is `name` (exactly, ignoring case)."""
        data = self._get(self.wikidata_url, {"action": "wbsearchentities", "search": name, "language": lang,
                                             "uselang": lang, "type": "item", "limit": str(limit)})
        out = []
        for hit in _objects(data, httpx.URL(self.wikidata_url).host, "search"):
            text = _dig(hit, "match", "text") or hit.get("label") or ""
            if hit.get("id") and isinstance(text, str) and text.casefold() == name.casefold():
                out.append(str(hit["id"]))
        return out

    def wikidata_sitelink(self, qid: str, lang: str) -> str | None:
        """The title of item `qid`'s article in `lang`'s Wikipedia, or None."""
        if not re.fullmatch(r"Q[1-9][0-9]*", qid or ""):
            return None
        site = _check_lang(lang).replace("-", "_") + "wiki"
        data = self._get(self.wikidata_url, {"action": "wbgetentities", "ids": qid, "props": "sitelinks",
                                             "sitefilter": site})
        title = _dig(data, "entities", qid, "sitelinks", site, "title")
        return title if isinstance(title, str) and title else None


def _json_reply(r: httpx.Response, host: str) -> Any:
    """The JSON of a MediaWiki reply, or one line saying what came instead: an HTML page (a wiki's
    front page, a login portal), or JSON that does not parse."""
    ctype = r.headers.get("content-type", "").split(";")[0].strip().lower()
    head = r.content[:512].lstrip().lower()
    if ctype in ("text/html", "application/xhtml+xml") or head.startswith((b"<!doctype html", b"<html")):
        raise fault(f"Wikipedia ({host}) sent an HTML page, not an API reply",
                    "check --wikipedia-url (the wiki's address, without /w/api.php or with it)")
    try:
        return json.loads(r.content)
    except RecursionError:
        raise fault(f"Wikipedia ({host}) sent JSON nested too deep") from None
    except ValueError as exc:
        raise fault(f"Wikipedia ({host}) sent malformed JSON ({str(exc)[:60]})",
                    "check --wikipedia-url and the wiki's server") from None


def _dig(data: Any, *keys: str) -> Any:
    """data[k1][k2]..., None where a key is absent or a value on the way is not an object."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _shape(host: str, what: str) -> MfactError:
    return fault(f"Wikipedia ({host}) sent a reply of the wrong shape: {what}", "check --wikipedia-url")


def _objects(data: Any, host: str, *path: str) -> list[dict]:
    """The list at `path` of a reply (`query`, `pages`), every item an object; [] when a key on the
    way is absent. A reply of another shape (a list where an object goes, `pages: null`,
    `pages: [null]`) raises one MfactError naming where."""
    node = data
    for i, key in enumerate(path):
        if not isinstance(node, dict):
            return _bad(host, ".".join(path[:i]) or "the reply", "an object", node)
        if key not in node:
            return []
        node = node[key]
    if not isinstance(node, list):
        return _bad(host, ".".join(path), "a list", node)
    for j, item in enumerate(node):
        if not isinstance(item, dict):
            _bad(host, f"{'.'.join(path)}[{j}]", "an object", item)
    return node


def _bad(host: str, where: str, want: str, got: Any) -> list[dict]:
    raise _shape(host, f"{where} is {_kind(got)}, not {want}")


def _kind(v: Any) -> str:
    return "null" if v is None else {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(v), "a number")


def _refused(host: str, err: Any) -> MfactError:
    err = err if isinstance(err, dict) else {"info": str(err)}
    return MfactError(f"Wikipedia ({host}) refused the request: {err.get('code')}: {err.get('info', '')}")


_WIKI_CLASS = None


def _mfact_wikipedia_class():
    """`wikipediaapi.Wikipedia` adapted to mfact (built on first use: the import is lazy)."""
    global _WIKI_CLASS
    if _WIKI_CLASS is not None:
        return _WIKI_CLASS
    try:
        import wikipediaapi as wa
    except ImportError:
        raise MfactError("the wikipedia source needs the Wikipedia-API package",
                         "pip install 'wikipedia-api==0.16.0' (it comes with mfact)") from None

    class MfactWikipedia(wa.Wikipedia):
        """Two changes: the endpoint comes from `--wikipedia-url` (`_build_url`), and a MediaWiki
        error reply (`{"error": ...}` with HTTP 200) is an error rather than a page that cannot be
        read (`_process_response`). Retries are off (max_retries=0): the shared transport does them."""

        def __init__(self, *, base_url: str = "", **kw: Any):
            super().__init__(max_retries=0, extract_format=wa.ExtractFormat.WIKI, **kw)
            self._mfact_base = base_url

        def _build_url(self, language: str) -> str:
            return api_url(self._mfact_base, language)

        def _process_response(self, r: Any, url: str) -> dict[str, Any]:
            data = super()._process_response(r, url)
            if isinstance(data, dict) and "error" in data:
                raise _refused(httpx.URL(url).host, data["error"])
            if not isinstance(data, dict) or not isinstance(data.get("query", {}), dict):
                raise MfactError(f"Wikipedia ({httpx.URL(url).host}) sent a reply mfact cannot read")
            return data

    _WIKI_CLASS = MfactWikipedia
    return MfactWikipedia


def _wikiapi_sections(page: Any) -> list[tuple[str, str]]:
    """(section path, text) of a Wikipedia-API page, as `sections_from_extract` gives them: the lead
    first, nested headings joined with " / ", reference-like sections and empty ones dropped."""
    out: list[tuple[str, str]] = []
    lead = (page.summary or "").strip()
    if lead:
        out.append(("", lead))

    def walk(sections: Sequence[Any], path: list[str]) -> None:
        for sec in sections:
            here = path + [sec.title]
            if any(h.casefold() in _SKIP_SECTIONS for h in here):
                continue
            body = (sec.text or "").strip()
            if body:
                out.append((" / ".join(here), body))
            walk(sec.sections, here)
    walk(page.sections, [])
    return out


def _is_maxlag(r: httpx.Response) -> bool:
    return r.headers.get("X-Database-Lag") is not None or (
        r.headers.get("content-type", "").startswith("application/json") and b'"maxlag"' in r.content[:200])


_HEADING = re.compile(r"^(={2,6})\s*(.*?)\s*\1\s*$", re.MULTILINE)
_SKIP_SECTIONS = {"references", "external links", "see also", "further reading", "notes", "bibliography",
                  "referencias", "enlaces externos", "véase también", "bibliografía", "notas",
                  "références", "liens externes", "voir aussi", "notes et références", "bibliographie",
                  "einzelnachweise", "weblinks", "literatur", "siehe auch"}


def sections_from_extract(text: str) -> list[tuple[str, str]]:
    """Split a plain-text extract (exsectionformat=wiki) into (section title, text), dropping
    reference-like sections and empty ones."""
    out: list[tuple[str, str]] = []
    pos, path = 0, list[str]()          # path: the enclosing headings, e.g. ["Biografía", "Primeros años"]

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
        self.client = client or WikipediaClient(contact, base_url=base_url, waits=WaitPolicy(deadlines))

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
        found = self._through_wikidata(name, lang)
        if found is not None:
            return found
        return TitleMatch(suggestions=self.client.search(name, lang, 5))

    def _through_wikidata(self, name: str, lang: str) -> TitleMatch | None:
        """A person with no page under `name` in `lang`: the Wikidata item (from the English page of
        that name, else Wikidata's own label search) and its sitelink to `lang`'s Wikipedia, e.g.
        "Marie Curie" in bn -> "মারি ক্যুরি". None when there is no such page; a failure of
        Wikidata is logged and leaves the other ways to find the person."""
        try:
            qids: list[str] = []
            if lang != "en":
                en = self.client.page_info(name, "en")
                if not en.get("missing") and not en.get("disambiguation") and en.get("qid"):
                    qids.append(en["qid"])
            if not qids:
                qids = self.client.wikidata_search(name, lang)[:3]
            for qid in qids:
                title = self.client.wikidata_sitelink(qid, lang)
                if title:
                    return TitleMatch(title=title, qid=qid)
        except MfactError as exc:
            log.info("Wikidata fallback for %r in %s failed: %s", name, lang, exc.message)
        return None

    def langlinks(self, title: str, lang: str, want: Sequence[str]) -> dict[str, str]:
        return {lg: t for lg, t in self.client.langlinks(title, lang).items() if lg in want}

    def get_page(self, title: str, lang: str) -> Page | None:
        ex = self.client.extract(title, lang)
        if not ex or not ex["sections"]:
            return None
        url = ex["url"] or f"https://{_check_lang(lang)}.wikipedia.org/wiki/{quote(ex['title'].replace(' ', '_'))}"
        return Page(source=NAME, lang=lang, title=ex["title"], sections=ex["sections"], url=url,
                    revid=ex.get("revid"), qid=ex.get("qid"))

    def suggest(self, prefix: str, lang: str, limit: int = 10) -> list[str]:
        return self.client.prefix(prefix, lang, limit)
