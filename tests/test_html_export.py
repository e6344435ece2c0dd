"""`mfact export --format html`: the session page's content, its escaping of untrusted text, its size
on a 20,000-fact session, and the folder written by `--all` (parsed with the standard library's
HTML parser; tests/test_html_browser.py opens the pages in a real Chromium)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from _html_sessions import BIG_LINE, HOSTILE_URLS, PAYLOADS, hostile_session, ordinary_session
from _sessions import papers_session
from mfact.core.html_session import PAGE_BUDGET, SESSION_SCRIPT, page_name, session_page
from mfact.core.htmlkit import GLYPHS, csp, esc, safe_url, script_hash
from mfact.core.session import Fact, Verdict

MFACT = Path(sys.executable).with_name("mfact")


class Tree(HTMLParser):
    """Every start tag with its attributes, the text (data) in order, and the element stack."""

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.data: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.scripts if self._in_script else self.data).append(data)

    def text(self) -> str:
        return "".join(self.data)

    def find(self, tag: str, **attrs) -> list[dict]:
        return [a for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items())]


def test_untrusted_text_stays_text_in_every_field():
    page = session_page(hostile_session())
    tree = Tree(page)
    # the only script is the page's own, and the policy lets only it run
    assert [t for t, _ in tree.tags if t == "script"] == ["script"] and tree.scripts == [SESSION_SCRIPT]
    meta = tree.find("meta", **{"http-equiv": "Content-Security-Policy"})[0]["content"]
    assert meta == csp(SESSION_SCRIPT) and f"'{script_hash(SESSION_SCRIPT)}'" in meta
    assert "default-src 'none'" in meta
    # no element from the data: no img, svg, iframe, textarea, second style; no handler attribute
    assert not {t for t, _ in tree.tags} & {"img", "svg", "iframe", "textarea", "object", "embed", "base"}
    assert len(tree.find("style")) == 1
    assert not [(t, k) for t, a in tree.tags for k in a if k.startswith("on")]
    # links: only http(s) and the page's own anchors
    hrefs = [a["href"] for t, a in tree.tags if t == "a" and "href" in a]
    assert hrefs and all(h.startswith(("#", "https://", "http://")) for h in hrefs), hrefs
    assert not [h for h in hrefs if "script" in h.lower() or h.lower().startswith("data:")]
    # ... and every payload reads literally, in the text and in the evidence
    text = tree.text()
    for p in PAYLOADS[:8]:
        assert p in text, p
    assert "⟨U+202E⟩evil" in text and "\u202e" not in page and "\x1b" not in page and "\x00" not in page
    assert "␛[31mred" in text and "\ufffd" in text          # ESC as its picture, a lone surrogate as U+FFFD
    assert BIG_LINE in text
    page.encode("utf-8")                                    # no lone surrogate left to fail on
    assert HOSTILE_URLS[0] in text                          # a refused URL is shown as text, not linked


def test_safe_url_takes_plain_http_links_only():
    assert safe_url("https://en.wikipedia.org/wiki/Marie_Curie") == "https://en.wikipedia.org/wiki/Marie_Curie"
    assert safe_url("http://example.org/a?b=c#d") == "http://example.org/a?b=c#d"
    for bad in HOSTILE_URLS[:6] + ["", "https://", "//example.org", "https://exa mple.org", "https://a\u202e.org",
                                   "https://a.org/\nb", 5, None, "https://" + "a" * 3000]:
        assert safe_url(bad) is None, bad
    assert esc("<a href='x'>&\"") == "&lt;a href=&#x27;x&#x27;&gt;&amp;&quot;"


def _text_part(page: str) -> str:
    return page.split('<div class="text"', 1)[1].split("</div></section>", 1)[0]


def test_facts_coloured_marked_and_carded():
    s = ordinary_session()
    page = session_page(s)
    text = _text_part(page)
    # each fact: one element of its label's class ending with its glyph, linked to its card
    for i, (cls, glyph) in enumerate(zip("sninp", "✓✗○✗…")):
        assert f"<a class={cls} href=#c{i} id=t{i}>" in text, (i, cls)
        assert text.split(f"id=t{i}>", 1)[1].split("</a>", 1)[0].endswith(glyph)
        assert f'<li class="card {cls}" id="c{i}">' in page
    assert "<u>Paris</u>" in text                          # the wrong word, not the whole fact
    card1 = page.split('id="c1"', 1)[1].split("</li>", 1)[0]
    assert '<mark class="x">Warsaw</mark>' in card1 and "<mark>1867</mark>" in card1
    assert "reason: " in card1 and "wrong words: <u>Paris</u>" in card1
    assert '<a href="https://en.wikipedia.org/wiki/Marie_Curie" rel="noopener noreferrer nofollow"' in card1
    assert "<details><summary>evidence: 1 passage</summary>" in card1
    card3 = page.split('id="c3"', 1)[1].split("</li>", 1)[0]
    assert "human: <span class=\"lab n\">✗ NS" in card3 and "differs from the automatic verdict" in card3
    # the figures: labels S, NS, IR, NS (human), pending
    assert "<b>25.0</b><span>FActScore, S / all facts" in page
    assert "<b>33.3</b><span>FActScore, S / (S + NS)" in page
    assert "gemma" in page and "offline 3" in page          # generator and verifier
    assert "@media print" in page


def test_drift_point_is_marked_before_its_fact():
    s = papers_session(12)
    for i, f in enumerate(s.facts):
        f.auto.label = "S" if i < 6 else "NS"
    page = session_page(s)
    text = _text_part(page)
    assert text.count("▼ drift") == 1
    assert text.index("▼ drift") < text.index("id=t6>") and text.index("id=t5>") < text.index("▼ drift")
    assert "drifts from fact 7 of 12" in page


def _balanced(fragment: str) -> int:
    """The number of elements in `fragment`, asserting each closes in order (no a inside an a)."""
    stack, count = [], 0

    class P(HTMLParser):
        def handle_starttag(self, tag, attrs):
            nonlocal count
            assert not (tag == "a" and "a" in stack), "a link inside a link"
            stack.append(tag)
            count += 1

        def handle_endtag(self, tag):
            assert stack and stack.pop() == tag, tag

    P().feed(fragment)
    assert not stack
    return count


def test_overlapping_nested_and_empty_spans_give_one_glyph_per_fact():
    s = ordinary_session()
    t = s.text
    v = lambda lab: Verdict(label=lab, confidence=0.5, evidence=["w1"])   # noqa: E731
    s.facts = [Fact(id="a", text="x", sentence=0, span=(0, 20), auto=v("S")),
               Fact(id="b", text="y", sentence=0, span=(5, 25), auto=v("NS")),
               Fact(id="c", text="z", sentence=0, span=(8, 12), auto=v("IR")),
               Fact(id="d", text="w", sentence=0, span=(30, 30), auto=v("NS")),
               Fact(id="e", text="u", sentence=1, span=(40, len(t)), auto=v("S"))]
    text = _text_part(session_page(s))
    _balanced(text.split(">", 1)[1])
    pieces = re.findall(r"<a class=(\w) href=#c(\d+)(?: id=t\d+)?>(.*?)</a>", text)
    for i, f in enumerate(sorted(s.facts, key=lambda f: f.span)):
        mine = [inner for cls, k, inner in pieces if int(k) == i]
        assert mine, i
        assert sum(inner.endswith(GLYPHS[f.label]) for inner in mine) == 1, (i, mine)


def test_20000_facts_fit_in_2_mb_every_fact_coloured():
    assert PAGE_BUDGET <= 2_000_000
    s = papers_session(20_000)
    page = session_page(s)
    size = len(page.encode("utf-8"))
    assert size <= PAGE_BUDGET, size
    text = _text_part(page)
    assert text.count("✓") + text.count("✗") == 20_000
    shown = page.count('<li class="card ')
    assert 50 <= shown < 20_000
    assert f"Cards for the first {shown:,} of 20,000 facts" in page
    # a fact without a card is coloured but links nowhere
    assert f"id=t{shown - 1}>" in text and f"href=#c{shown - 1} " in text
    assert f"id=t{shown}>" not in text and f"href=#c{shown} " not in text
    assert len(re.findall(r"<span class=[sn]>", text)) == 20_000 - shown


def test_page_names_are_plain_files():
    s = hostile_session(big=False)
    name = page_name(s)
    assert name.endswith(".html") and "/" not in name and ":" not in name and not name.startswith(".")
    assert page_name(ordinary_session()) == "curie1.html"


def _run(home: Path, *args: str) -> subprocess.CompletedProcess:
    exe = [str(MFACT)] if MFACT.exists() else [sys.executable, "-m", "mfact.core.cli"]
    env = dict(os.environ, MFACT_HOME=str(home), NO_COLOR="1")
    return subprocess.run(exe + list(args), capture_output=True, text=True, env=env, timeout=300)


def test_cli_exports_one_page_and_a_folder_with_an_index(tmp_path):
    home = tmp_path / "home"
    # (a lone surrogate cannot be imported: that is refused before any page is made)
    sessions = [ordinary_session(), hostile_session(big=False, surrogate=False)]
    src = tmp_path / "sessions.json"
    src.write_text(json.dumps({"sessions": [s.to_dict() for s in sessions]}), encoding="utf-8")
    assert _run(home, "import", str(src)).returncode == 0
    one = tmp_path / "curie.html"
    p = _run(home, "export", "curie1", "--format", "html", "-o", str(one))
    assert p.returncode == 0, p.stderr
    assert one.as_uri() in p.stdout
    assert "<h1>Marie Curie" in one.read_text(encoding="utf-8")
    folder = tmp_path / "pages"
    p = _run(home, "export", "--all", "--format", "html", "-o", str(folder))
    assert p.returncode == 0, p.stderr
    names = sorted(x.name for x in folder.iterdir())
    assert names == sorted(["index.html", "curie1.html", page_name(sessions[1])])
    index = Tree((folder / "index.html").read_text(encoding="utf-8"))
    assert sorted(a["href"] for a in index.find("a")) == sorted(f"./{n}" for n in names if n != "index.html")
    assert "<script>pwned('name')</script>" in index.text()
    # a file where the folder should be: one line, nothing written
    p = _run(home, "export", "--all", "--format", "html", "-o", str(one))
    assert p.returncode != 0 and "is not a folder" in p.stderr and len(p.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("label", ["S", "NS", "IR"])
def test_label_colours_are_okabe_ito(label):
    from mfact.core.htmlkit import label_colour, palette

    assert label_colour(label) in set(palette()["okabe_ito"].values()) | {"#666666"}
    if label != "IR":
        assert label_colour(label) in palette()["okabe_ito"].values()


def test_the_one_pass_text_is_the_same_markup_as_the_general_one(monkeypatch):
    """Facts side by side take a shortcut; the general writer (overlaps) gives the same page."""
    import mfact.core.html_session as H

    drifting = papers_session(40)
    for i, f in enumerate(drifting.facts):
        f.auto.label = "S" if i < 20 else "NS"
        f.auto.marks = [(3, 7)] if i >= 20 else []
    sessions = (ordinary_session(), drifting, hostile_session(big=False))
    calls = []
    one_pass = H._side_by_side
    monkeypatch.setattr(H, "_side_by_side", lambda *a: calls.append(1) or one_pass(*a))
    pages = [[H.session_page(x) for x in sessions]]
    assert len(calls) == 3
    monkeypatch.setattr(H, "all", lambda xs: False, raising=False)      # no shortcut now
    pages.append([H.session_page(x) for x in sessions])
    assert len(calls) == 3 and pages[0] == pages[1]
    assert "▼ drift" in pages[0][1] and "<u>" in pages[0][1]


def test_wrong_language_repetition_and_stops_are_flagged():
    from mfact.core.figures import Checks, DriftStop, RepeatedSentence

    s = ordinary_session()
    s.checks = Checks(non_empty=True, detected_language="de", language_prob=0.9, language_ok=False,
                      repetitive=True, passed=False)
    s.checks.repeated_sentence = RepeatedSentence(start=0, end=10)
    s.checks.drift_stop = DriftStop(facts=12, score=0.8, point=6)
    s.stop_reason = "max_tokens"
    flags = session_page(s).split('<div class="flags">', 1)[1].split("</div>", 1)[0]
    for text in ("wrong language: detected de, expected en", "repetitive: a run of 20 tokens",
                 "stopped at a repeated sentence", "stopped at drift after 12 facts", "cut at the token limit"):
        assert f'<span class="flag">{text}' in flags, text
    assert "flag ok" not in flags
    ok = session_page(ordinary_session()).split('<div class="flags">', 1)[1].split("</div>", 1)[0]
    assert '<span class="flag">' not in ok
