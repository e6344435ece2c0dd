"""The HTML pages in a real headless Chromium, driven through the DevTools protocol (tests/_chromium.py).

- A real session (the embedded default model, offline, through `mfact check` and `mfact export
  --format html`): the page loads with no network request, each fact's colour is its label's,
  the evidence opens on a real click, no console error occurs; a screenshot is taken.
- With JavaScript off the same holds (the page needs no script).
- A hostile session (markup, handlers, javascript: links, RTL overrides, 1 MB lines) renders
  literally and no script from it runs (a `pwned` binding records any call); a page with a script
  injected after the fact shows that the Content-Security-Policy would block it anyway.
- The report page: its charts draw, nothing is requested, no error.

Without Chromium these tests are skipped (`make test` says so in one line, with how to install it);
with CI=true they fail instead. MFACT_SCREENSHOTS_DIR=docs/screenshots writes the real session's
screenshot there (docs/html.md says how the report's is made).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _chromium import INSTALL_HINT, Chromium, find_chromium
from _html_sessions import PAYLOADS, hostile_session, ordinary_session

from mfact.core.html_report import report_page
from mfact.core.html_session import session_page
from mfact.core.htmlkit import label_colour
from mfact.core.session import Session

SHOTS = os.environ.get("MFACT_SCREENSHOTS_DIR")      # read before the fixture clears MFACT_*
SKIP_REASON = f"chromium not found: {INSTALL_HINT}"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


@pytest.fixture(scope="module")
def browser():
    if find_chromium() is None:
        if in_ci():
            pytest.fail(f"CI=true but the browser tests cannot run: {SKIP_REASON}")
        pytest.skip(SKIP_REASON)
    b = Chromium()
    yield b
    b.close()


def rgb(hex_colour: str) -> str:
    h = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))


def shot(page, name: str, folder: Path, full: bool = False) -> Path:
    out = folder / name
    out.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(out, full_page=full)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    return out


def open_page(browser, path: Path, js: bool = True, width: int = 1200, height: int = 900):
    page = browser.page(width, height, js=js)
    seconds = page.open(path.resolve().as_uri())
    time.sleep(0.3)                   # let anything asynchronous (an onerror, a late request) happen
    return page, seconds


def facts_in_text_order(s: Session):
    return sorted(s.facts, key=lambda f: (f.span[0], f.sentence, f.span[1]))


def check_colours(page, s: Session) -> None:
    """Each fact's element in the text has its effective label's colour (computed by Chromium)."""
    facts = facts_in_text_order(s)
    got = page.evaluate(f"Array.from({{length:{len(facts)}}},(_,i)=>{{var e=document.getElementById('t'+i);"
                        "return e?getComputedStyle(e).color:null;})")
    want = [rgb(label_colour(f.label)) for f in facts]
    assert got == want


def check_evidence_opens(page) -> None:
    """A real click on the first card's summary opens its evidence."""
    state = ("(function(){var d=document.querySelector('.card details'),q=d.querySelector('blockquote');"
             "return [d.open,q.checkVisibility(),q.getBoundingClientRect().height];})()")
    assert page.evaluate(state)[:2] == [False, False]
    page.click(".card details summary")
    time.sleep(0.2)
    is_open, visible, height = page.evaluate(state)
    assert is_open and visible and height > 10


def check_quiet(page, url: str) -> None:
    assert page.requests == [url], page.requests          # the page itself and nothing else
    assert page.errors == []
    assert page.bindings == []


# --------------------------------------------------------------------------- a real session


@pytest.fixture(scope="module")
def real_session(tmp_path_factory, browser):
    """`mfact check` on the embedded default, offline, then `mfact export --format html`."""
    import tempfile

    home = tmp_path_factory.mktemp("real") / "home"
    cache = os.environ.get("MFACT_TEST_MODEL_CACHE") or str(Path(tempfile.gettempdir()) / "mfact-test-models")
    env = dict(os.environ, MFACT_HOME=str(home), MFACT_MODEL_CACHE=cache, HF_HUB_OFFLINE="1")
    cli = [sys.executable, "-m", "mfact.core.cli"]
    r = subprocess.run(cli + ["check", "--lang", "en", "--entity", "Marie Curie", "--offline",
                              "--max-tokens", "120", "--json"], capture_output=True, text=True, env=env,
                       timeout=850)
    assert r.returncode == 0, r.stderr[-3000:]
    s = Session.from_dict(json.loads(r.stdout))
    out = home.parent / "marie-curie.html"
    r = subprocess.run(cli + ["export", s.id, "--format", "html", "-o", str(out)], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert s.facts and any(f.auto and f.auto.evidence for f in s.facts)
    return s, out


@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.timeout(900)
def test_real_session_page_loads_offline_coloured_with_evidence_that_opens(browser, real_session, tmp_path):
    s, path = real_session
    page, seconds = open_page(browser, path)
    check_quiet(page, path.resolve().as_uri())
    check_colours(page, s)
    assert page.evaluate("document.querySelectorAll('.card').length") == len(s.facts)
    shot(page, "session-html.png", Path(SHOTS) if SHOTS else tmp_path)
    check_evidence_opens(page)
    # a fact in the text links to its card, and the page's script opens the card's evidence
    page.click("#t1")
    time.sleep(0.2)
    assert page.evaluate("[location.hash, document.querySelector('#c1 details').open]") == ["#c1", True]
    assert page.errors == [] and seconds < 10
    page.close()


def test_page_needs_no_javascript(browser, tmp_path):
    s = ordinary_session()
    path = tmp_path / "curie.html"
    path.write_text(session_page(s), encoding="utf-8")
    page, _ = open_page(browser, path, js=False)
    check_quiet(page, path.resolve().as_uri())
    check_colours(page, s)
    check_evidence_opens(page)
    # the link to a card works without a script (it only scrolls: the script would open it)
    page.click("#t3")
    time.sleep(0.2)
    assert page.evaluate("[location.hash, document.querySelector('#c3 details').open]") == ["#c3", False]
    glyphs = page.evaluate("Array.from(document.querySelectorAll('.text a'),e=>e.textContent.slice(-1))")
    assert glyphs == ["✓", "✗", "○", "✗", "…"]
    # printed, every card's evidence shows (the print stylesheet alone: no script runs here)
    page.call("Emulation.setEmulatedMedia", {"media": "print"})
    shown = page.evaluate("Array.from(document.querySelectorAll('.card blockquote'),q=>q.checkVisibility())")
    assert len(shown) == 4 and all(shown)
    page.close()


# --------------------------------------------------------------------------- hostile text


def test_hostile_session_renders_literally_and_runs_nothing(browser, tmp_path):
    path = tmp_path / "hostile.html"
    path.write_text(session_page(hostile_session()), encoding="utf-8")
    page, _ = open_page(browser, path, width=1000)
    url = path.resolve().as_uri()
    # click everything a reader could: every fact, every card's evidence, every link
    page.evaluate("document.querySelectorAll('details').forEach(d=>d.open=true)")
    for sel in ("#t0", "#t1", "#t4", ".ev a", "#evidence a", "#repro summary"):
        if page.evaluate(f"!!document.querySelector('{sel}')"):
            page.click(sel)
    time.sleep(0.3)
    check_quiet(page, url)
    body = page.evaluate("document.body.innerText")
    for p in PAYLOADS[:8]:
        assert p in body, p
    assert "⟨U+202E⟩evil" in body and "\u202e" not in body
    assert page.evaluate("document.querySelectorAll('img,iframe,svg,object,embed,textarea').length") == 0
    assert page.evaluate("document.scripts.length") == 1
    hrefs = page.evaluate("Array.from(document.querySelectorAll('a[href]'),a=>a.getAttribute('href'))")
    assert all(h.startswith(("#", "https://", "http://")) for h in hrefs)
    assert page.evaluate("location.href").split("#")[0] == url       # no link took the page away
    # the 1 MB line wraps: the page is no wider than the window
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.close()


def test_the_content_security_policy_blocks_a_script_that_got_in(browser, tmp_path):
    """Were escaping ever to fail, the page's policy still runs no script but its own."""
    html = session_page(ordinary_session())
    injected = html.replace(
        "<main>",
        '<main><script>pwned("inline")</script>'
        '<img src="x" onerror="pwned(\'onerror\')"><a id="js" href="javascript:pwned(\'href\')">x</a>'
        '<script src="https://example.org/x.js"></script>',
        1,
    )
    path = tmp_path / "injected.html"
    path.write_text(injected, encoding="utf-8")
    page, _ = open_page(browser, path)
    page.click("#js")
    time.sleep(0.3)
    assert page.bindings == []
    url = path.resolve().as_uri()
    tried = [u for u in page.requests if u != url]
    assert tried and page.blocked == {u: "csp" for u in tried}, (tried, page.blocked)   # refused, all
    assert any("Content Security Policy" in e for e in page.errors), page.errors
    page.close()


# --------------------------------------------------------------------------- the report


def test_report_page_draws_its_charts_offline(browser, tmp_path):
    from test_html_report import sessions

    path = tmp_path / "report.html"
    path.write_text(report_page(sessions(), p_value=False), encoding="utf-8")
    page, _ = open_page(browser, path)
    check_quiet(page, path.resolve().as_uri())
    boxes = page.evaluate("Array.from(document.querySelectorAll('svg.chart'),"
                          "s=>[s.id,Math.round(s.getBoundingClientRect().width)])")
    assert [b[0] for b in boxes] == ["chart-factscore", "chart-hallucination", "chart-by-rarity",
                                     "chart-by-region", "chart-drift"]
    assert all(w > 250 for _, w in boxes)
    shot(page, "report-html.png", tmp_path)
    page.close()
