"""Keys pressed while a model writes: the text pane answers a selection or a label at once with the
text as it last drew it (tui/screens/check_panes.py `render_text(latest=False)`), and the tokens
that came meanwhile follow with the next stream redraw: nothing is lost or shown twice."""
from __future__ import annotations

import time

import pytest
from textual import events

from mfact.core.config import Config
from mfact.core.fake import FakeStages, fake_pipeline
from mfact.tui.app import MfactApp, Services
from mfact.tui.render import GLYPHS
from mfact.tui.screens.check import CheckScreen

pytestmark = pytest.mark.anyio
TEXT = " ".join(f"In {1890 + i} Marie Curie wrote paper number {i} on radioactivity." for i in range(60))


@pytest.fixture
def anyio_backend():
    return "asyncio"


def words(shown: str) -> str:
    """The pane's text without the verdict glyphs and the drift marker."""
    for g in GLYPHS.values():
        shown = shown.replace(g, "")
    return shown.replace("▼drift ", "")


async def test_keys_while_streaming_show_every_token_once(mfact_home):
    stages = FakeStages(delay=0.02)
    app = MfactApp(Config(workers=1, max_tokens=3000), lang="en", entity="Marie Curie",
                   services=Services(pipeline_factory=lambda c, p=None: fake_pipeline(text=TEXT, cfg=c, stages=stages)))
    async with app.run_test(size=(140, 36)) as pilot:
        t0 = time.monotonic()
        while not isinstance(app.screen, CheckScreen) or len(app.screen.session.facts) < 3:
            await pilot.pause(0.01)
            assert time.monotonic() - t0 < 30, "no facts in 30 s"
        scr = app.screen
        pane = scr.query_one("#text-pane")
        caught = pressed = 0
        for i in range(12):
            if not scr.running:
                break
            before = scr.selected
            pressed += 1
            app.post_message(events.Key("j" if i % 3 else "s", "j" if i % 3 else "s"))
            await pilot.pause(0.01)
            shown = words(pane.plain)
            assert scr.session.text.startswith(shown)            # the drawn text: a prefix, never garbled
            await pilot.pause(0.15)                               # the stream's redraw came (1/15 s)
            text = scr.session.text
            shown = words(pane.plain)
            assert text.startswith(shown) and len(text) - len(shown) < 80, (len(text), len(shown))
            caught += scr.selected != before or i % 3 == 0
        assert pressed == 12 and caught >= 10          # all while streaming; the keys took effect
        while scr.running:
            await pilot.pause(0.05)
            assert time.monotonic() - t0 < 60
        await pilot.pause(0.2)
        assert words(pane.plain) == scr.session.text


async def test_a_keys_frame_is_composed_right_after_its_action(mfact_home, monkeypatch):
    """The frame that shows a key's effect is drawn as soon as the key's message is done
    (`frame_now`), not at the screen's next refresh tick; a key that changes nothing draws none."""
    import mfact.tui.app as app_module

    inside: list[bool] = []
    drawn: list[bool] = []
    real = app_module.frame_now

    def spy(app_):
        inside.append(True)
        try:
            real(app_)
        finally:
            inside.pop()

    monkeypatch.setattr(app_module, "frame_now", spy)
    stages = FakeStages(delay=0.0)
    app = MfactApp(Config(workers=1), lang="en", entity="Marie Curie",
                   services=Services(pipeline_factory=lambda c, p=None: fake_pipeline(text=TEXT[:400], cfg=c,
                                                                                      stages=stages)))
    async with app.run_test(size=(140, 36)) as pilot:
        t0 = time.monotonic()
        while not isinstance(app.screen, CheckScreen) or app.screen.running or not app.screen.session.facts:
            await pilot.pause(0.02)
            assert time.monotonic() - t0 < 30, "the check did not finish in 30 s"
        scr = app.screen
        await pilot.pause(0.2)
        display = app._display

        def timed_display(screen, renderable):
            drawn.append(bool(inside) and renderable is not None)
            display(screen, renderable)

        monkeypatch.setattr(app, "_display", timed_display)
        first = scr.selected
        await pilot.press("j")
        assert scr.selected != first
        assert True in drawn                     # the key's frame came from frame_now
        for _ in range(len(scr.session.facts)):
            await pilot.press("j")               # to the last fact
        await pilot.pause(0.2)
        drawn.clear()
        await pilot.press("j")                   # past the end: nothing changes, nothing is drawn
        assert True not in drawn
