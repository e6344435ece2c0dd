"""The TUI's export screen writes the session as a web page: `e`, pick "Web page", Enter; the dialog
then shows the path and a file:// link, "Open in browser" opens that link, Escape closes."""
from __future__ import annotations

import pytest
from _html_sessions import hostile_session, ordinary_session
from _pilot import wait_for

from mfact.core.config import Config
from mfact.tui.app import MfactApp
from mfact.tui.screens.check import CheckScreen
from mfact.tui.screens.export import ExportScreen

SIZE = (140, 40)


@pytest.mark.anyio
async def test_export_screen_writes_a_page_and_shows_its_link(tmp_path, monkeypatch):
    opened: list[str] = []
    app = MfactApp(Config(workers=1), session=ordinary_session(), export_dir=tmp_path)
    monkeypatch.setattr(app, "open_url", lambda url, **kw: opened.append(url))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        scr = app.screen
        assert not scr.query_one("#export-open").display
        await pilot.click("#fmt-html")
        inp = scr.query_one("#export-path")
        assert inp.value.endswith(".html") and inp.value.startswith(str(tmp_path))
        out = tmp_path / "curie page.html"
        inp.value = str(out)
        await pilot.click("#export-ok")
        await wait_for(pilot, lambda: out.exists())
        assert "<h1>Marie Curie" in out.read_text(encoding="utf-8")
        # the dialog stays, with the path and the file:// link
        assert isinstance(app.screen, ExportScreen)
        done = scr.query_one("#export-done").render()
        uri = out.resolve().as_uri()
        assert str(out) in done.plain and uri in done.plain and "%20" in uri
        assert any(span.style.link == uri for span in done.spans if hasattr(span.style, "link"))
        assert scr.query_one("#export-open").display
        await pilot.click("#export-open")
        await wait_for(pilot, lambda: opened == [uri])
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))


@pytest.mark.anyio
async def test_a_hostile_session_exports_and_its_path_prints_literally(tmp_path):
    s = hostile_session(big=False, surrogate=False)
    app = MfactApp(Config(workers=1), session=s, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        scr = app.screen
        await pilot.click("#fmt-html")
        out = tmp_path / "[bold red]not bold.html"
        scr.query_one("#export-path").focus()
        scr.query_one("#export-path").value = str(out)
        await pilot.press("enter")
        await wait_for(pilot, lambda: out.exists())
        assert "[bold red]not bold.html" in scr.query_one("#export-done").render().plain
        page = out.read_text(encoding="utf-8")
        assert page.count("<script") == 1 and "&lt;script&gt;pwned(&#x27;name&#x27;)" in page
        # a second Export on the same path asks first, then overwrites
        await pilot.click("#export-ok")
        await pilot.pause(0.1)
        assert "exists" in scr.query_one("#export-error").render().plain
