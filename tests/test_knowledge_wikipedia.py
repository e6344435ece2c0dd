"""The live Wikipedia client against recorded MediaWiki API exchanges (httpx.MockTransport)."""
from __future__ import annotations

import threading
import time

import httpx
import pytest

from mfact.core import __version__
from mfact.core.config import Config
from mfact.core.knowledge import CachePolicy, HybridRetriever
from mfact.core.knowledge.cache import PageCache
from mfact.core.knowledge.entities import resolve
from mfact.core.knowledge.wikipedia import WaitPolicy, WikipediaClient, WikipediaSource, sections_from_extract
from mfact.core.errors import MfactError

# Replies shaped like those of es/en.wikipedia.org/w/api.php and www.wikidata.org/w/api.php, trimmed
# to the fields used. mfact's own calls ask for formatversion=2 (pages as a list); Wikipedia-API
# asks for the default format (formatversion 1: pages keyed by page id, "-1" for a missing page,
# a language link's title under "*"), so the fake MediaWiki answers in the format asked for.
CURIE_ES = {"pageid": 2519, "ns": 0, "title": "Marie Curie", "lastrevid": 163000001,
            "fullurl": "https://es.wikipedia.org/wiki/Marie_Curie", "pageprops": {"wikibase_item": "Q7186"}}
CURIE_EN = {"pageid": 20408, "ns": 0, "title": "Marie Curie", "lastrevid": 1250000000,
            "fullurl": "https://en.wikipedia.org/wiki/Marie_Curie", "pageprops": {"wikibase_item": "Q7186"}}
CURIE_BN = {"pageid": 31337, "ns": 0, "title": "মারি ক্যুরি", "lastrevid": 7000001,
            "fullurl": "https://bn.wikipedia.org/wiki/%E0%A6%AE", "pageprops": {"wikibase_item": "Q7186"}}
EXTRACTS = {
    # TextExtracts with exsectionformat=wiki: a heading is "\n\n\n== Title ==\n"
    ("es", "Marie Curie"): "Maria Salomea Skłodowska-Curie fue una física y química polaca.\n\n\n"
    "== Biografía ==\n\n\n=== Primeros años ===\nNació en Varsovia el 7 de noviembre de 1867. "
    "Era la quinta hija de Władysław Skłodowski.\n\n\n== Premios ==\nRecibió el Premio Nobel de "
    "Física en 1903 y el de Química en 1911.\n\n\n== Referencias ==\n1. Una cita.\n",
    ("en", "Marie Curie"): "Marie Curie was a Polish and naturalised-French physicist and chemist.\n\n\n"
    "== Early life ==\nShe was born in Warsaw, in what was then the Kingdom of Poland.\n",
    (
        "bn",
        "মারি ক্যুরি",
    ): "মারি ক্যুরি ছিলেন একজন পোলীয় ও ফরাসি পদার্থবিজ্ঞানী।\n\n\n== জীবন ==\nতিনি ১৮৬৭ সালে ওয়ারশতে জন্মগ্রহণ করেন।\n",
}
PAGES = {("es", "Marie Curie"): CURIE_ES, ("en", "Marie Curie"): CURIE_EN, ("bn", "মারি ক্যুরি"): CURIE_BN}
REDIRECTS = {("es", "Marie curie"): "Marie Curie", ("en", "Maria Skłodowska"): "Marie Curie"}
LANGLINKS = {("es", "Marie Curie"): [("en", "Marie Curie"), ("bn", "মারি ক্যুরি"), ("pl", "Maria Skłodowska-Curie")],
             ("en", "Marie Curie"): [("es", "Marie Curie"), ("bn", "মারি ক্যুরি")],
             ("bn", "মারি ক্যুরি"): [("en", "Marie Curie"), ("es", "Marie Curie")]}
MERCURY_INFO = {"batchcomplete": True, "query": {"pages": [{
    "pageid": 19694, "ns": 0, "title": "Mercury", "fullurl": "https://en.wikipedia.org/wiki/Mercury",
    "pageprops": {"disambiguation": "", "wikibase_item": "Q302"}}]}}
MERCURY_LINKS = ["Freddie Mercury", "Mercury (element)", "Mercury (planet)", "Mercury (mythology)",
                 "Mercury Records", "Mercury Prize"]
SEARCH = {"batchcomplete": True, "query": {"searchinfo": {"totalhits": 2}, "search": [
    {"ns": 0, "title": "Marie Curie", "pageid": 20408}, {"ns": 0, "title": "Curie family", "pageid": 1}]}}
OPENSEARCH = ["Marie C", ["Marie Curie", "Marie Curie Medal"], ["", ""], ["https://en.wikipedia.org/wiki/Marie_Curie",
                                                                          "https://en.wikipedia.org/wiki/Marie_Curie_Medal"]]
SITELINKS = {"Q7186": {"bnwiki": "মারি ক্যুরি", "eswiki": "Marie Curie", "enwiki": "Marie Curie"},
             "Q42": {"enwiki": "Douglas Adams"}}
WD_SEARCH = {"Marie Curie": [{"id": "Q7186", "title": "Q7186", "pageid": 7486,
                              "concepturi": "http://www.wikidata.org/entity/Q7186", "label": "Marie Curie",
                              "description": "Polish-French physicist and chemist (1867–1934)",
                              "match": {"type": "label", "language": "en", "text": "Marie Curie"}}]}


def api_error(code: str, info: str, fv2: bool) -> dict:
    err = {"code": code, "info": info}
    if fv2:
        err["docref"] = "See https://en.wikipedia.org/w/api.php for API usage."
    else:
        err["*"] = "See https://en.wikipedia.org/w/api.php for API usage."
    return {"error": err, "servedby": "mw-api-ext.eqiad.main-1"}


class Recorder:
    """A fake MediaWiki (all languages) and Wikidata: answers in the format asked for, follows
    redirects when asked, splits a disambiguation page's links over two `continue` rounds, and
    records every request."""

    def __init__(self, throttle: int = 0, retry_after: str = "2", error: str | None = None):
        self.seen: list[httpx.Request] = []
        self.throttle = throttle
        self.retry_after = retry_after
        self.error = error              # answer every request with this MediaWiki error code
        self.error_fv1_only = False     # ... only Wikipedia-API's requests (formatversion 1)
        self.lock = threading.Lock()
        self.active: dict[str, int] = {}
        self.most: dict[str, int] = {}
        self.delay = 0.0
        self.maxlag = 0                 # answer this many requests with a maxlag error

    def __call__(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        with self.lock:
            self.seen.append(request)
            self.active[host] = self.active.get(host, 0) + 1
            self.most[host] = max(self.most.get(host, 0), self.active[host])
        try:
            if self.delay:
                time.sleep(self.delay)
            return self.answer(request)
        finally:
            with self.lock:
                self.active[host] -= 1

    def answer(self, request: httpx.Request) -> httpx.Response:
        if self.throttle > 0:
            self.throttle -= 1
            return httpx.Response(429, headers={"Retry-After": self.retry_after}, text="Too many requests")
        p = dict(request.url.params)
        fv2 = p.get("formatversion") == "2"
        if self.error and (not fv2 or not self.error_fv1_only):
            return httpx.Response(200, json=api_error(self.error, "Something is wrong.", fv2))
        if request.url.host == "www.wikidata.org":
            return self.wikidata(p)
        lang = request.url.host.split(".")[0]
        if self.maxlag > 0:
            self.maxlag -= 1
            return httpx.Response(200, headers={"Retry-After": "5", "X-Database-Lag": "7"},
                                  json=api_error("maxlag", "Waiting for 10.64.16.27: 7 seconds lagged.", fv2))
        if p.get("action") == "opensearch":
            return httpx.Response(200, json=OPENSEARCH)
        if p.get("list") == "search":
            return httpx.Response(200, json=SEARCH)
        title = p.get("titles", "")
        if title == "Mercury":
            if p.get("prop") == "links":
                first = "plcontinue" not in p
                links = MERCURY_LINKS[:3] if first else MERCURY_LINKS[3:]
                reply = {"query": {"pages": [{"pageid": 19694, "ns": 0, "title": "Mercury",
                                              "links": [{"ns": 0, "title": t} for t in links]}]}}
                if first:
                    reply["continue"] = {"plcontinue": "19694|0|Mercury_(mythology)", "continue": "||"}
                else:
                    reply["batchcomplete"] = True
                return httpx.Response(200, json=reply)
            return httpx.Response(200, json=MERCURY_INFO)
        query: dict = {}
        norm = title[:1].upper() + title[1:]
        if norm != title:
            query["normalized"] = (
                [{"fromencoded": False, "from": title, "to": norm}] if fv2 else [{"from": title, "to": norm}]
            )
        if p.get("redirects") and (lang, norm) in REDIRECTS:
            query["redirects"] = [{"from": norm, "to": REDIRECTS[(lang, norm)]}]
            norm = REDIRECTS[(lang, norm)]
        page = PAGES.get((lang, norm))
        if page is None:
            missing = {"ns": 0, "title": norm, "missing": True if fv2 else ""}
            query["pages"] = [missing] if fv2 else {"-1": missing}
            return httpx.Response(200, json={"batchcomplete": True if fv2 else "", "query": query})
        props = set(p.get("prop", "").split("|"))
        entry = {k: page[k] for k in ("pageid", "ns", "title")}
        if "info" in props:
            entry.update(lastrevid=page["lastrevid"], fullurl=page["fullurl"])
        if "pageprops" in props:
            entry["pageprops"] = page["pageprops"]
        if "extracts" in props:
            entry["extract"] = EXTRACTS[(lang, norm)]
        if "langlinks" in props:
            links = LANGLINKS.get((lang, norm), [])
            entry["langlinks"] = [{"lang": l, "title": t} if fv2 else
                                  {"lang": l, "url": f"https://{l}.wikipedia.org/wiki/{t}", "*": t}
                                  for l, t in links]
        query["pages"] = [entry] if fv2 else {str(page["pageid"]): entry}
        return httpx.Response(200, json={"batchcomplete": True if fv2 else "", "query": query})

    def wikidata(self, p: dict) -> httpx.Response:
        if p.get("action") == "wbsearchentities":
            return httpx.Response(200, json={"searchinfo": {"search": p["search"]},
                                             "search": WD_SEARCH.get(p["search"], []), "success": 1})
        qid = p.get("ids", "")
        if qid not in SITELINKS:
            return httpx.Response(200, json={"entities": {qid: {"id": qid, "missing": ""}}, "success": 1})
        site = p.get("sitefilter", "")
        links = {k: {"site": k, "title": v, "badges": []} for k, v in SITELINKS[qid].items() if k == site}
        return httpx.Response(200, json={"entities": {qid: {"type": "item", "id": qid, "sitelinks": links}},
                                         "success": 1})


def client(rec: Recorder, max_retries: int = 4, **kw) -> WikipediaClient:
    waits: list[float] = []
    c = WikipediaClient("ops@example.org", transport=httpx.MockTransport(rec),
                        waits=WaitPolicy(max_retries=max_retries, sleep=waits.append), **kw)
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
    with pytest.raises(MfactError, match="asked us to wait 24 h"):
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
    HybridRetriever([src], None, cache=cache, policy=CachePolicy(max_age_days=30)).retrieve(
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


# --------------------------------------------------------------------------- Wikipedia-API, shared transport


def _by_wikipedia_api(rec: Recorder) -> list[httpx.Request]:
    """The requests Wikipedia-API made (mfact's own calls ask for formatversion=2)."""
    return [r for r in rec.seen if r.url.params.get("formatversion") != "2"]


def test_page_text_sections_and_langlinks_come_through_wikipedia_api_with_mfacts_etiquette():
    rec = Recorder()
    src = WikipediaSource(client=client(rec))
    page = src.get_page("Marie Curie", "es")
    links = src.langlinks("Marie Curie", "es", ["en", "bn"])
    assert links == {"en": "Marie Curie", "bn": "মারি ক্যুরি"}
    lib = _by_wikipedia_api(rec)
    assert {r.url.params.get("prop") for r in lib} == {"extracts", "langlinks"}
    for r in lib:
        ua = r.headers["User-Agent"]
        assert ua.startswith(f"mfact/{__version__} (fact-checking workbench; ops@example.org)")
        assert "Wikipedia-API/" in ua          # the library names itself after mfact
        assert r.url.host == "es.wikipedia.org" and r.url.path == "/w/api.php"
    assert page.sections[0][1].startswith("Maria Salomea")
    assert page.url == "https://es.wikipedia.org/wiki/Marie_Curie"


def test_one_request_at_a_time_per_host_whoever_sends_it():
    rec = Recorder()
    rec.delay = 0.02
    src = WikipediaSource(client=client(rec))
    work = [lambda: src.get_page("Marie Curie", "es"), lambda: src.langlinks("Marie Curie", "es", ["en"]),
            lambda: src.lookup("Marie Curie", "es"), lambda: src.get_page("Marie Curie", "en"),
            lambda: src.get_page("Marie Curie", "es")]
    threads = [threading.Thread(target=w) for w in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert rec.most == {"es.wikipedia.org": 1, "en.wikipedia.org": 1}
    assert len(_by_wikipedia_api(rec)) >= 4


def test_429_on_a_wikipedia_api_request_is_waited_out_by_the_shared_transport():
    rec = Recorder()
    throttled = [2]

    def handler(request):
        if request.url.params.get("prop") == "extracts" and throttled[0] > 0:   # Wikipedia-API's request
            throttled[0] -= 1
            rec.seen.append(request)
            return httpx.Response(429, headers={"Retry-After": "4"}, text="Too many requests")
        return rec(request)
    c = client(handler)  # type: ignore[arg-type]
    page = WikipediaSource(client=c).get_page("Marie Curie", "es")
    assert page is not None and page.title == "Marie Curie" and page.qid == "Q7186"
    assert c.waits == [4.0, 4.0]
    # each 429 was answered once: Wikipedia-API's own retries are off, the transport retried
    assert sum(1 for r in rec.seen if r.url.params.get("prop") == "extracts") == 3


def test_maxlag_error_waits_and_retries():
    rec = Recorder()
    rec.maxlag = 1
    c = client(rec)
    assert c.page_info("Marie Curie", "es")["title"] == "Marie Curie"
    assert c.waits == [5.0] and len(rec.seen) == 2


def test_disambiguation_choices_follow_the_apis_continuation():
    rec = Recorder()
    m = WikipediaSource(client=client(rec)).lookup("Mercury", "en")
    assert set(m.choices) == set(MERCURY_LINKS)
    cont = [r for r in rec.seen if r.url.params.get("prop") == "links"]
    assert len(cont) == 2 and cont[1].url.params["plcontinue"] == "19694|0|Mercury_(mythology)"


def test_mediawiki_error_replies_are_one_clear_error_on_either_path():
    rec = Recorder(error="readonly")
    with pytest.raises(MfactError, match=r"Wikipedia \(es.wikipedia.org\) refused the request: readonly: Something"):
        client(rec).page_info("Marie Curie", "es")
    rec = Recorder(error="internal_api_error_DBQueryError")
    rec.error_fv1_only = True
    src = WikipediaSource(client=client(rec))
    with pytest.raises(MfactError, match="refused the request: internal_api_error_DBQueryError"):
        src.get_page("Marie Curie", "es")
    with pytest.raises(MfactError, match="refused the request"):
        src.langlinks("Marie Curie", "es", ["en"])


def test_wikipedia_api_transport_failures_are_clear_errors():
    def refuse(request):
        if request.url.params.get("formatversion") == "2":
            return Recorder().answer(request)
        raise httpx.ConnectError("connection refused", request=request)

    src = WikipediaSource(client=WikipediaClient(transport=httpx.MockTransport(refuse)))
    with pytest.raises(MfactError, match=r"Wikipedia \(es.wikipedia.org\) is unreachable"):
        src.get_page("Marie Curie", "es")

    def broken(request):
        if request.url.params.get("formatversion") == "2":
            return Recorder().answer(request)
        return httpx.Response(200, text="<html>maintenance</html>")

    src = WikipediaSource(client=WikipediaClient(transport=httpx.MockTransport(broken)))
    with pytest.raises(MfactError, match="not JSON"):
        src.get_page("Marie Curie", "es")


def test_a_person_without_a_page_under_that_name_is_found_through_wikidata_sitelinks():
    rec = Recorder()
    src = WikipediaSource(client=client(rec))
    m = resolve("Marie Curie", "bn", [src], ["bn", "en"])
    assert m.entity is not None and m.notices == []
    assert m.entity.name == "মারি ক্যুরি" and m.entity.qid == "Q7186"
    assert m.entity.titles["bn"] == "মারি ক্যুরি" and m.entity.titles["en"] == "Marie Curie"
    wd = [r for r in rec.seen if r.url.host == "www.wikidata.org"]
    assert [r.url.params["action"] for r in wd] == ["wbgetentities"]
    assert wd[0].url.params["ids"] == "Q7186" and wd[0].url.params["sitefilter"] == "bnwiki"
    assert wd[0].headers["User-Agent"].startswith(f"mfact/{__version__}")
    page = src.get_page("মারি ক্যুরি", "bn")
    assert page.sections[0][1].startswith("মারি ক্যুরি") and page.qid == "Q7186"


def test_wikidata_label_search_when_there_is_no_english_page_either():
    rec = Recorder()
    c = client(rec)
    src = WikipediaSource(client=c)
    # no English page under that name either: the item comes from Wikidata's label search
    import mfact.core.knowledge.wikipedia as wp
    real = c.page_info
    c.page_info = lambda title, lang, **kw: (
        {"title": title, "missing": True} if lang == "en" else real(title, lang, **kw)
    )
    m = src.lookup("Marie Curie", "bn")
    assert (m.title, m.qid) == ("মারি ক্যুরি", "Q7186")
    assert [r.url.params["action"] for r in rec.seen if r.url.host == "www.wikidata.org"] == \
        ["wbsearchentities", "wbgetentities"]
    assert wp.WIKIDATA_API.startswith("https://www.wikidata.org/")


def test_no_sitelink_or_no_wikidata_leaves_the_english_fallback():
    rec = Recorder()
    src = WikipediaSource(client=client(rec))
    m = src.lookup("Mari Kuri", "bn")           # no page, no item: suggestions from the bn search
    assert m.title is None and m.suggestions[:1] == ["Marie Curie"]

    def no_wikidata(request):
        if request.url.host == "www.wikidata.org":
            return httpx.Response(503, headers={"Retry-After": "0"}, text="down")
        return rec.answer(request)
    src = WikipediaSource(client=client(no_wikidata))  # type: ignore[arg-type]
    m = resolve("Marie Curie", "fr", [src], ["fr", "en"])
    assert m.entity is not None and m.entity.titles["en"] == "Marie Curie"
    assert any("using the English page" in n for n in m.notices)


def test_the_mediawiki_is_configurable_for_both_paths():
    rec = Recorder()
    src = WikipediaSource(client=client(rec, base_url="http://{lang}.wiki.test:8080"))
    page = src.get_page("Marie Curie", "es")
    assert page is not None
    assert {(r.url.host, r.url.port, r.url.path) for r in rec.seen} == {("es.wiki.test", 8080, "/w/api.php")}
    assert _by_wikipedia_api(rec)
    with pytest.raises(MfactError, match="is not an http"):
        WikipediaClient(base_url="es.wiki.test")


def test_cantonese_goes_to_zh_yue_wikipedia_and_its_links_come_back_as_yue():
    rec = Recorder()
    WikipediaSource(client=client(rec)).lookup("居里夫人", "yue")
    assert rec.seen[0].url.host == "zh-yue.wikipedia.org"
    from mfact.core.knowledge.wikipedia import _check_lang, _from_wiki
    assert _check_lang("yue") == "zh-yue" and _check_lang("es") == "es" and _from_wiki("zh-yue") == "yue"
