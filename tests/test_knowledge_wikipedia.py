"""The live Wikipedia client against recorded MediaWiki API exchanges (httpx.MockTransport)."""
from __future__ import annotations

import json

import httpx
import pytest

from mfact.core import __version__
from mfact.core.config import Config
from mfact.core.knowledge import HybridRetriever
from mfact.core.knowledge.cache import PageCache
from mfact.core.knowledge.entities import resolve
from mfact.core.knowledge.wikipedia import WikipediaClient, WikipediaSource, sections_from_extract
from mfact.core.protocols import MfactError

# Recorded replies of es/en.wikipedia.org/w/api.php (formatversion=2), trimmed to the fields used.
CURIE_INFO_ES = {"batchcomplete": True, "query": {
    "normalized": [{"fromencoded": False, "from": "marie curie", "to": "Marie curie"}],
    "redirects": [{"from": "Marie curie", "to": "Marie Curie"}],
    "pages": [{"pageid": 2519, "ns": 0, "title": "Marie Curie", "lastrevid": 163000001,
               "fullurl": "https://es.wikipedia.org/wiki/Marie_Curie",
               "pageprops": {"wikibase_item": "Q7186"},
               "langlinks": [{"lang": "en", "title": "Marie Curie"}, {"lang": "bn", "title": "মারি ক্যুরি"},
                             {"lang": "pl", "title": "Maria Skłodowska-Curie"}]}]}}
CURIE_EXTRACT_ES = {"batchcomplete": True, "query": {"pages": [{
    "pageid": 2519, "ns": 0, "title": "Marie Curie", "lastrevid": 163000001,
    "fullurl": "https://es.wikipedia.org/wiki/Marie_Curie", "pageprops": {"wikibase_item": "Q7186"},
    "extract": "Maria Salomea Skłodowska-Curie fue una física y química polaca.\n\n"
               "== Biografía ==\n\n=== Primeros años ===\nNació en Varsovia el 7 de noviembre de 1867. "
               "Era la quinta hija de Władysław Skłodowski.\n\n== Premios ==\nRecibió el Premio Nobel de "
               "Física en 1903 y el de Química en 1911.\n\n== Referencias ==\n1. Una cita.\n"}]}}
CURIE_EXTRACT_EN = {"batchcomplete": True, "query": {"pages": [{
    "pageid": 20408, "ns": 0, "title": "Marie Curie", "lastrevid": 1250000000,
    "fullurl": "https://en.wikipedia.org/wiki/Marie_Curie", "pageprops": {"wikibase_item": "Q7186"},
    "extract": "Marie Curie was a Polish and naturalised-French physicist and chemist.\n\n"
               "== Early life ==\nShe was born in Warsaw, in what was then the Kingdom of Poland.\n"}]}}
MERCURY_INFO = {"batchcomplete": True, "query": {"pages": [{
    "pageid": 19694, "ns": 0, "title": "Mercury", "fullurl": "https://en.wikipedia.org/wiki/Mercury",
    "pageprops": {"disambiguation": "", "wikibase_item": "Q302"}}]}}
MERCURY_LINKS = {"batchcomplete": True, "query": {"pages": [{"pageid": 19694, "ns": 0, "title": "Mercury", "links": [
    {"ns": 0, "title": "Freddie Mercury"}, {"ns": 0, "title": "Mercury (element)"},
    {"ns": 0, "title": "Mercury (planet)"}, {"ns": 0, "title": "Mercury (mythology)"}]}]}}
MISSING = {"batchcomplete": True, "query": {"pages": [{"ns": 0, "title": "Mari Kuri", "missing": True}]}}
SEARCH = {"batchcomplete": True, "query": {"searchinfo": {"totalhits": 2}, "search": [
    {"ns": 0, "title": "Marie Curie", "pageid": 20408}, {"ns": 0, "title": "Curie family", "pageid": 1}]}}
OPENSEARCH = ["Marie C", ["Marie Curie", "Marie Curie Medal"], ["", ""], ["https://en.wikipedia.org/wiki/Marie_Curie",
                                                                          "https://en.wikipedia.org/wiki/Marie_Curie_Medal"]]


class Recorder:
    """Serves the recorded replies and records what mfact asked."""

    def __init__(self, throttle: int = 0, retry_after: str = "2"):
        self.seen: list[httpx.Request] = []
        self.throttle = throttle
        self.retry_after = retry_after

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if self.throttle > 0:
            self.throttle -= 1
            return httpx.Response(429, headers={"Retry-After": self.retry_after}, text="Too many requests")
        p = dict(request.url.params)
        host = request.url.host
        title = p.get("titles", "")
        if p.get("action") == "opensearch":
            return httpx.Response(200, json=OPENSEARCH)
        if p.get("list") == "search":
            return httpx.Response(200, json=SEARCH)
        if title == "Mercury":
            return httpx.Response(200, json=MERCURY_LINKS if p.get("prop") == "links" else MERCURY_INFO)
        if title.casefold() == "marie curie":
            if "extracts" in p.get("prop", ""):
                return httpx.Response(200, json=CURIE_EXTRACT_ES if host.startswith("es.") else CURIE_EXTRACT_EN)
            return httpx.Response(200, json=CURIE_INFO_ES)
        return httpx.Response(200, json=MISSING)


def client(rec: Recorder, **kw) -> WikipediaClient:
    waits: list[float] = []
    c = WikipediaClient("ops@example.org", transport=httpx.MockTransport(rec), sleep=waits.append, **kw)
    c.waits = waits  # type: ignore[attr-defined]
    return c


def test_user_agent_names_tool_version_and_contact():
    rec = Recorder()
    WikipediaSource(client=client(rec)).lookup("Marie Curie", "es")
    ua = rec.seen[0].headers["User-Agent"]
    assert f"mfact/{__version__}" in ua and "ops@example.org" in ua
    assert rec.seen[0].url.host == "es.wikipedia.org" and rec.seen[0].url.path == "/w/api.php"


def test_resolve_follows_redirects_and_gets_qid_and_langlinks():
    src = WikipediaSource(client=client(Recorder()))
    m = resolve("marie curie", "es", [src], ["es", "en", "bn"])
    assert m.entity is not None
    assert m.entity.name == "Marie Curie" and m.entity.qid == "Q7186"
    assert m.entity.titles == {"es": "Marie Curie", "en": "Marie Curie", "bn": "মারি ক্যুরি"}


def test_disambiguation_page_gives_choices():
    src = WikipediaSource(client=client(Recorder()))
    m = resolve("Mercury", "en", [src])
    assert m.entity is None
    assert m.choices[0] == "Freddie Mercury" or "Freddie Mercury" in m.choices
    assert set(m.choices) >= {"Freddie Mercury", "Mercury (planet)"}
    with pytest.raises(MfactError, match="ambiguous"):
        m.require("Mercury", "en")


def test_unknown_person_gives_search_suggestions():
    src = WikipediaSource(client=client(Recorder()))
    m = resolve("Mari Kuri", "en", [src])
    assert m.entity is None and m.suggestions[:1] == ["Marie Curie"]
    with pytest.raises(MfactError, match="did you mean: Marie Curie"):
        m.require("Mari Kuri", "en")


def test_429_with_retry_after_is_honoured_then_succeeds():
    rec = Recorder(throttle=2, retry_after="3")
    c = client(rec)
    assert WikipediaSource(client=c).lookup("Marie Curie", "es").title == "Marie Curie"
    assert c.waits == [3.0, 3.0] and len(rec.seen) == 3


def test_429_forever_is_one_clear_error_and_waits_are_capped():
    rec = Recorder(throttle=100, retry_after="86400")
    c = client(rec, max_retries=2)
    with pytest.raises(MfactError, match="asked us to wait 86400 s"):
        c.page_info("Marie Curie", "es")
    assert c.waits == [] and len(rec.seen) == 1          # no waiting on a long Retry-After
    rec = Recorder(throttle=100, retry_after="4")
    c = client(rec, max_retries=5)
    with pytest.raises(MfactError, match="asked us to wait 4 s"):
        c.page_info("Marie Curie", "es")
    assert c.waits == [4.0, 4.0] and len(rec.seen) == 3  # the total wait stays within 10 s


def test_unreachable_and_timeout_are_clear_errors():
    def refuse(request):
        raise httpx.ConnectError("connection refused", request=request)

    def slow(request):
        raise httpx.ReadTimeout("timed out", request=request)

    with pytest.raises(MfactError, match="unreachable"):
        WikipediaClient(transport=httpx.MockTransport(refuse)).page_info("X", "en")
    with pytest.raises(MfactError, match="did not answer in time"):
        WikipediaClient(transport=httpx.MockTransport(slow)).page_info("X", "en")
    with pytest.raises(MfactError, match="invalid Wikipedia language"):
        WikipediaClient(transport=httpx.MockTransport(slow)).page_info("X", "en.evil.com/")


def test_page_sections_and_retrieval_from_live_pages(tmp_path):
    rec = Recorder()
    src = WikipediaSource(client=client(rec))
    page = src.get_page("Marie Curie", "es")
    assert [s for s, _ in page.sections] == ["", "Biografía / Primeros años", "Premios"]
    assert page.qid == "Q7186" and page.revid == 163000001
    entity = resolve("Marie Curie", "es", [src], ["es", "en"]).entity
    cache = PageCache(tmp_path / "k.sqlite3")
    r = HybridRetriever([src], None, cache=cache)
    ev = r.retrieve(entity, "Nació en Varsovia en 1867.", ["es", "en"], k=5)
    assert ev[0].source == "wikipedia" and ev[0].lang == "es" and ev[0].section == "Biografía / Primeros años"
    assert "Varsovia" in ev[0].text and ev[0].url == "https://es.wikipedia.org/wiki/Marie_Curie"
    assert {e.lang for e in ev} == {"es", "en"}
    # a second retriever reads the pages from the cache: no new extract requests
    n = len(rec.seen)
    r2 = HybridRetriever([src], None, cache=cache)
    assert [e.id for e in r2.retrieve(entity, "Nació en Varsovia en 1867.", ["es", "en"], k=5)] == [e.id for e in ev]
    assert len(rec.seen) == n
    # offline later: the cached Wikipedia pages still serve, through the cache
    r3 = HybridRetriever([], None, cache=cache)
    assert r3.retrieve(entity, "Nació en Varsovia en 1867.", ["es", "en"], k=1)[0].id == ev[0].id


def test_stale_pages_are_refreshed(tmp_path):
    rec = Recorder()
    src = WikipediaSource(client=client(rec))
    cache = PageCache(tmp_path / "k.sqlite3")
    page = src.get_page("Marie Curie", "en")
    page.fetched_at -= 40 * 86400
    cache.put_page(page)
    from mfact.core.session import Entity
    HybridRetriever([src], None, cache=cache, max_age_days=30).retrieve(
        Entity("Marie Curie", titles={"en": "Marie Curie"}), "born in Warsaw", ["en"])
    assert any("extracts" in r.url.params.get("prop", "") for r in rec.seen)


def test_sections_drop_references():
    s = sections_from_extract("Lead.\n== Life ==\nBorn.\n== References ==\n[1] x\n== Véase también ==\nY")
    assert s == [("", "Lead."), ("Life", "Born.")]


def test_no_network_means_offline_sources_with_a_notice(monkeypatch):
    from mfact.core.knowledge import NO_NETWORK_NOTICE, build_retriever, wikipedia

    monkeypatch.setattr(wikipedia, "network_available", lambda *a, **k: False)
    r = build_retriever(Config(), None)
    assert NO_NETWORK_NOTICE in r.notices
    assert [s.name for s in r.sources] == ["cache", "offline-vital"]


def test_network_probe_is_fast_and_remembered_across_processes(monkeypatch, mfact_home):
    import socket
    import time as _time

    from mfact.core.knowledge import wikipedia

    calls = []

    def refuse(addr, timeout=None):
        calls.append(addr)
        raise OSError("network unreachable")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(wikipedia, "_probe", {})
    t = _time.monotonic()
    assert wikipedia.network_available("probe-test.invalid") is False
    assert _time.monotonic() - t < 1.0 and calls == [("probe-test.invalid", 443)]
    monkeypatch.setattr(wikipedia, "_probe", {})          # a new process: the answer comes from the file
    assert wikipedia.network_available("probe-test.invalid") is False
    assert len(calls) == 1 and (mfact_home / "cache" / "network-probe.json").exists()
