"""Snapshot tests (pytest-textual-snapshot) of the start, check and report screens at a fixed size,
against the deterministic fake pipeline, with animations and cursor blink off.

Update after an intended change of the look: `pytest tests/test_tui_snapshots.py --snapshot-update`.
"""
from __future__ import annotations

import time

from textual.widgets import Input

from mfact.core.config import Config
from mfact.core.fake import fake_pipeline
from mfact.core.store import Store
from mfact.tui.app import MfactApp, Services
from mfact.tui.screens.check import CheckScreen
from mfact.tui.screens.report import ReportScreen

SIZE = (150, 40)
LABELS = ["S", "S", "S", "S", "S", "N", "N", "N"]


def app_for(theme: str = "mfact-dark", **kw) -> MfactApp:
    cfg = Config(workers=1, theme=theme)
    services = Services(pipeline_factory=lambda c, p=None: fake_pipeline(labels=LABELS, cfg=c),
                        suggest=lambda prefix, lang, c, n: ["Marie Curie", "Marie Antoinette"],
                        resolve=lambda name, lang, c: None, suggest_delay=0.0)
    app = MfactApp(cfg, services=services, **kw)
    app.animation_level = "none"
    return app


async def steady(pilot) -> None:
    """Wait until the check (if any) is finished and freeze what varies between runs."""
    app = pilot.app
    t0 = time.monotonic()
    while time.monotonic() - t0 < 15:
        await pilot.pause(0.02)
        scr = app.screen
        if not isinstance(scr, CheckScreen) or (not scr.running and scr.session.facts):
            break
    for inp in app.screen.query(Input):
        inp.cursor_blink = False
    app.clear_notifications()
    scr = app.screen
    if isinstance(scr, CheckScreen):
        scr.tokens_per_s = 0.0
        scr._render_all()
    if isinstance(scr, ReportScreen):
        while scr.report is None and time.monotonic() - t0 < 15:
            await pilot.pause(0.02)
    await pilot.pause()


class TestStartScreen:
    def test_start(self, snap_compare):
        async def before(pilot):
            await pilot.click("#entity")
            await pilot.press(*"Marie")
            await pilot.pause(0.1)
            await steady(pilot)
        assert snap_compare(app_for(), terminal_size=SIZE, run_before=before)


class TestCheckScreen:
    def test_check_dark(self, snap_compare):
        async def before(pilot):
            await steady(pilot)
            await pilot.press("j", "j", "n")       # third fact relabelled not supported
            await pilot.pause(0.2)
            await steady(pilot)
        assert snap_compare(app_for(lang="en", entity="Marie Curie"), terminal_size=SIZE,
                            run_before=before)

    def test_check_colour_blind_theme(self, snap_compare):
        assert snap_compare(app_for("mfact-cb", lang="en", entity="Marie Curie"),
                            terminal_size=SIZE, run_before=steady)

    def test_check_light_theme(self, snap_compare):
        assert snap_compare(app_for("mfact-light", lang="en", entity="Marie Curie"),
                            terminal_size=SIZE, run_before=steady)


class TestReportScreen:
    def test_report(self, snap_compare):
        from mfact.core.events import StopEvent
        from mfact.core.session import HumanLabel

        store = Store()
        for lang, labels in (("en", LABELS), ("es", ["S", "N", "S", "S", "N", "N", "N", "N"]),
                             ("bn", ["S", "S", "N", "N", "N", "N", "N", "N"])):
            pipe = fake_pipeline(labels=labels, cfg=Config(workers=1))
            s = [e for e in pipe.run("Marie Curie", lang) if isinstance(e, StopEvent)][0].session
            s.facts[0].human = HumanLabel("NS")
            s.facts[5].human = HumanLabel("NS")
            store.save_session(s)
        store.close()

        async def before(pilot):
            await pilot.press("ctrl+r")
            await steady(pilot)
        assert snap_compare(app_for(), terminal_size=SIZE, run_before=before)
