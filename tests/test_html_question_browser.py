"""The session page of an answer checked with its question, in a real headless Chromium (as
tests/test_html_browser.py): the question shows above the text, literally (markup in it is text and
runs nothing), and the wrong person it names is coloured not supported and underlined. Skipped
without Chromium (failed with CI=true)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from _chromium import INSTALL_HINT, Chromium, find_chromium

from mfact.core.htmlkit import label_colour

QUESTION = "Who is Nigeria's richest woman? <img src=x onerror=pwned()> <script>pwned()</script>"
ANSWER = "Mary Barra, CEO of General Motors."
PAGE = {"title": "Folorunsho Alakija",
        "text": "Folorunsho Alakija (born 15 July 1951) is a Nigerian businesswoman. She is the vice-chair "
                "of Famfa Oil and is regarded as the richest woman in Nigeria."}


@pytest.fixture(scope="module")
def browser():
    if find_chromium() is None:
        if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true but the browser tests cannot run: chromium not found: {INSTALL_HINT}")
        pytest.skip(f"chromium not found: {INSTALL_HINT}")
    b = Chromium()
    yield b
    b.close()


def test_the_session_page_shows_the_question_literally_and_marks_the_wrong_person(browser, tmp_path):
    home = tmp_path / "home"
    env = dict(os.environ, MFACT_HOME=str(home), NO_COLOR="1")
    cli = [sys.executable, "-m", "mfact.core.cli"]
    lines = tmp_path / "t.jsonl"
    lines.write_text(json.dumps({"id": "ng", "lang": "en", "question": QUESTION, "text": ANSWER,
                                 "evidence": [PAGE]}) + "\n", encoding="utf-8")
    r = subprocess.run(cli + ["run", "--texts", str(lines), "--offline", "--no-progress", "--out",
                              str(tmp_path / "out")], capture_output=True, text=True, env=env, timeout=280)
    assert r.returncode == 0, r.stderr
    (done,) = (tmp_path / "out").glob("txt-*.json")
    out = tmp_path / "ng.html"
    r = subprocess.run(cli + ["export", done.stem, "--format", "html", "-o", str(out)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    page = browser.page(1200, 900)
    page.open(out.resolve().as_uri())
    time.sleep(0.3)
    assert page.requests == [out.resolve().as_uri()] and page.errors == [] and page.bindings == []
    shown = page.evaluate("document.querySelector('#question span').textContent")
    assert shown == QUESTION
    assert page.evaluate("document.querySelector('#question').innerText").startswith("Question")
    assert (
        page.evaluate("document.querySelectorAll('img').length") == 0 and page.evaluate("document.scripts.length") == 1
    )
    # above the text; the answer's one fact is NS, coloured so, and the name underlined
    assert page.evaluate("!!(document.querySelector('#question').compareDocumentPosition("
                         "document.querySelector('.text')) & Node.DOCUMENT_POSITION_FOLLOWING)")
    r, g, b = (int(label_colour("NS").lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
    assert page.evaluate("getComputedStyle(document.getElementById('t0')).color") == f"rgb({r}, {g}, {b})"
    assert page.evaluate("Array.from(document.querySelectorAll('.text u'),u=>u.textContent).join('|')") == "Mary Barra"
    page.close()
