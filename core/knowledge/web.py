"""Web evidence through a SearXNG instance (self-hosted metasearch with a JSON API), given by URL.

For a query, the instance's top results are fetched (HTML only, size- and time-limited) and reduced to
their main text; a result whose page cannot be fetched keeps its search snippet. Everything fetched is
untrusted data."""
from __future__ import annotations

import json
import logging
import time
from urllib.parse import urljoin

import httpx

from ..net import (DEFAULT_LOOKUP_TOTAL, Deadlines, deadline_words, make_client, read_body, retry_after_seconds,
                   timeout_words, wait_words)
from ..errors import MfactError
from .base import Page
from .htmltext import html_to_text
from .wikipedia import user_agent

log = logging.getLogger("mfact.knowledge.web")

NAME = "web"
MAX_BYTES = 2_000_000


class WebSearch:
    name = NAME

    def __init__(self, searxng_url: str, contact: str = "", transport: httpx.BaseTransport | None = None,
                 deadlines: Deadlines | None = None, results: int = 3):
        url = searxng_url.strip()
        if not url.startswith(("http://", "https://")):
            raise MfactError(f"invalid SearXNG URL {searxng_url!r}", "give e.g. http://127.0.0.1:8888")
        self.base = url.rstrip("/") + "/"
        self.results = results
        self.deadlines = deadlines or Deadlines(total=DEFAULT_LOOKUP_TOTAL)
        self._http = make_client(self.deadlines, transport=transport, headers={"User-Agent": user_agent(contact)})

    def search(self, query: str, lang: str) -> list[dict]:
        started = time.monotonic()
        try:
            with self._http.stream("GET", urljoin(self.base, "search"),
                                   params={"q": query, "format": "json", "language": lang,
                                           "safesearch": "0"}) as r:
                body, why = read_body(r, self.deadlines, started, max_bytes=MAX_BYTES)
        except httpx.TimeoutException as exc:
            raise MfactError(f"SearXNG at {self.base} did not answer in time: it "
                             f"{timeout_words(exc, self.deadlines)}",
                             "check --searxng-url, or leave web out of the sources") from None
        except httpx.HTTPError as exc:
            raise MfactError(f"SearXNG at {self.base} is unreachable: {type(exc).__name__}",
                             "check --searxng-url, or leave web out of the sources") from None
        if why:
            raise MfactError(f"SearXNG at {self.base} did not answer in time: it {deadline_words(why, self.deadlines)}",
                             "check the instance, or raise --lookup-timeout")
        if r.status_code == 429:
            asked = retry_after_seconds(r.headers.get("Retry-After"))
            raise MfactError(f"SearXNG at {self.base} is rate-limiting mfact (HTTP 429"
                             + (f"; it asked us to wait {wait_words(asked)})" if asked is not None else ")"),
                             "going on without web evidence; try again later")
        if r.status_code == 403:
            raise MfactError(f"SearXNG at {self.base} refused JSON output (HTTP 403)",
                             "enable the json format under search.formats in its settings.yml")
        if r.status_code != 200:
            raise MfactError(f"SearXNG at {self.base} answered HTTP {r.status_code}")
        try:
            data = json.loads(body)
            results = data.get("results") or []
            if not isinstance(results, list):
                raise ValueError(results)
        except (ValueError, AttributeError, RecursionError):
            raise MfactError(f"SearXNG at {self.base} sent a reply that is not its JSON format") from None
        out = []
        for item in results:
            if isinstance(item, dict) and str(item.get("url", "")).startswith(("http://", "https://")):
                out.append({"url": str(item["url"]), "title": str(item.get("title") or item["url"]),
                            "content": str(item.get("content") or "")})
        return out

    def fetch(self, url: str) -> tuple[str, list[tuple[str, str]]] | None:
        """(title, sections) of an HTML page, or None when it cannot be had."""
        started = time.monotonic()
        try:
            with self._http.stream("GET", url) as r:
                if r.status_code != 200 or "html" not in r.headers.get("content-type", "html"):
                    return None
                body, why = read_body(r, self.deadlines, started, max_bytes=MAX_BYTES)
                enc = r.encoding or "utf-8"
        except (httpx.HTTPError, LookupError) as exc:
            log.info("web page %s not fetched: %s", url, exc)
            return None
        if why:
            log.info("web page %s not fetched: it %s", url, deadline_words(why, self.deadlines))
            return None
        try:
            body.decode(enc)
        except LookupError:
            enc = "utf-8"
        except UnicodeDecodeError:
            pass
        title, sections, _, _ = html_to_text(body.decode(enc, "replace"))
        return title, sections

    def search_pages(self, query: str, lang: str) -> list[Page]:
        pages = []
        for res in self.search(query, lang)[: self.results]:
            got = self.fetch(res["url"])
            sections = got[1] if got and got[1] else ([("", res["content"])] if res["content"] else [])
            if sections:
                pages.append(Page(source=NAME, lang=lang, title=res["title"], sections=sections, url=res["url"]))
        return pages
