"""Web evidence through SearXNG's JSON API, against a real HTTP server on loopback."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

from mfact.core.knowledge import HybridRetriever
from mfact.core.knowledge.cache import PageCache
from mfact.core.knowledge.web import WebSearch
from mfact.core.protocols import MfactError
from mfact.core.session import Entity

PAGE = ("<html><head><title>Curie biography</title></head><body><nav>Home | About</nav><article>"
        "<h2>Early life</h2><p>Marie Curie was born in Warsaw on 7 November 1867.</p>"
        "<h2>Death</h2><p>She died in 1934 in Passy.</p></article><script>steal()</script></body></html>")


@pytest.fixture
def server():
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            u = urlparse(self.path)
            seen.append(self.path)
            base = f"http://127.0.0.1:{self.server.server_address[1]}"
            if u.path == "/search":
                q = parse_qs(u.query)
                if q.get("format") != ["json"]:
                    self.send_response(403)
                    self.end_headers()
                    return
                body = json.dumps({"query": q["q"][0], "results": [
                    {"url": base + "/curie", "title": "Curie biography", "content": "born in Warsaw"},
                    {"url": base + "/gone", "title": "Gone page", "content": "Snippet: Curie won two Nobel Prizes."},
                    {"url": "javascript:alert(1)", "title": "bad"}]}).encode()
                ctype = "application/json"
            elif u.path == "/curie":
                body, ctype = PAGE.encode(), "text/html; charset=utf-8"
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    httpd.shutdown()
    httpd.server_close()


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
