"""Web evidence through SearXNG's JSON API, against a real HTTP server on loopback."""
from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from _loopback import Handler, LoopbackServer
from mfact.core.knowledge import HybridRetriever
from mfact.core.knowledge.cache import PageCache
from mfact.core.knowledge.web import WebSearch
from mfact.core.errors import MfactError
from mfact.core.session import Entity

PAGE = ("<html><head><title>Curie biography</title></head><body><nav>Home | About</nav><article>"
        "<h2>Early life</h2><p>Marie Curie was born in Warsaw on 7 November 1867.</p>"
        "<h2>Death</h2><p>She died in 1934 in Passy.</p></article><script>steal()</script></body></html>")


class Searx(LoopbackServer):
    """A SearXNG JSON API whose first result is a page it serves itself; `seen` lists the paths asked."""

    def __init__(self):
        self.seen: list[str] = []
        super().__init__()

    def get(self, h: Handler) -> None:
        u = urlparse(h.path)
        self.seen.append(h.path)
        if u.path == "/search":
            q = parse_qs(u.query)
            if q.get("format") != ["json"]:
                h.send_response(403)
                h.end_headers()
                return
            h.send_json(200, {"query": q["q"][0], "results": [
                {"url": self.root + "/curie", "title": "Curie biography", "content": "born in Warsaw"},
                {"url": self.root + "/gone", "title": "Gone page", "content": "Snippet: Curie won two Nobel Prizes."},
                {"url": "javascript:alert(1)", "title": "bad"}]})
        elif u.path == "/curie":
            h.send_body(200, "text/html; charset=utf-8", PAGE.encode())
        else:
            h.send_response(404)
            h.end_headers()


@pytest.fixture
def server():
    with Searx() as s:
        yield s.root, s.seen


def test_searxng_results_are_fetched_and_reduced_to_text(server):
    url, seen = server
    web = WebSearch(url)
    pages = web.search_pages("Marie Curie born Warsaw", "en")
    assert [p.title for p in pages] == ["Curie biography", "Gone page"]
    assert [s for s, _ in pages[0].sections] == ["Early life", "Death"]
    assert "steal" not in pages[0].text and "Home | About" not in pages[0].text
    assert pages[1].sections == [("", "Snippet: Curie won two Nobel Prizes.")]   # fetch failed: snippet kept
    assert any(s.startswith("/search?") and "format=json" in s and "language=en" in s for s in seen)


def test_web_passages_join_the_ranking(server, tmp_path):
    url, _ = server
    r = HybridRetriever([], None, cache=PageCache(tmp_path / "k.sqlite3"), web=WebSearch(url))
    ev = r.retrieve(Entity("Marie Curie"), "She was born in Warsaw in 1867.", ["en"], k=3)
    assert ev[0].source == "web" and "Warsaw" in ev[0].text and ev[0].url.endswith("/curie")


def test_searxng_errors_are_clear(server):
    url, _ = server
    with pytest.raises(MfactError, match="invalid SearXNG URL"):
        WebSearch("ftp://x")
    with pytest.raises(MfactError, match="unreachable"):
        WebSearch("http://127.0.0.1:9").search("x", "en")
    with pytest.raises(MfactError, match="HTTP 404"):
        WebSearch(url + "/nothing/").search("x", "en")
    # a retriever turns a web failure into a notice, not a crash
    r = HybridRetriever([], None, cache=PageCache(), web=WebSearch("http://127.0.0.1:9"))
    assert r.retrieve(Entity("X"), "y", ["en"]) == []
    assert any(n.startswith("web: SearXNG") for n in r.notices)
