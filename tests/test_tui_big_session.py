"""A session with more facts than the p-value limit, driven the way a user does (Pilot): relabels
update the header through core IncrementalMetrics, built once off the UI thread, and the figures
are those a full recompute gives, including labels set while it was being built."""
from __future__ import annotations

import re
import time

import pytest
from _sessions import papers_session

from mfact.core import metrics as M
from mfact.core.config import Config
from mfact.core.figures import Checks
from mfact.core.session import Session
from mfact.core.store import Store
from mfact.tui.app import MfactApp, Services
from mfact.tui.live_metrics import P_VALUE_MAX_FACTS

pytestmark = pytest.mark.anyio
N = P_VALUE_MAX_FACTS + 300
CHECKS = {"non_empty": True, "detected_language": "en", "language_prob": 0.99, "language_ok": True,
          "repetitive": False, "passed": True}


@pytest.fixture
def anyio_backend():
    return "asyncio"


def big_session() -> Session:
    return papers_session(N, checks=Checks.from_dict(CHECKS, "checks"))


async def until(pilot, cond, timeout=20.0):
    t = time.monotonic()
    while time.monotonic() - t < timeout:
        await pilot.pause(0.05)
        if cond():
            return True
    return False


def full(session: Session) -> dict:
    return M.session_metrics(session, checks=Checks.from_dict(CHECKS, "checks"), p_value=False).to_dict()


async def test_relabels_on_a_big_session_give_the_full_recompute_figures(monkeypatch):
    s = big_session()
    Store().save_session(s)
    reprs = []
    real_repr = Session.__repr__
    # a worker started without a description gets repr() of its work: a whole session's repr
    monkeypatch.setattr(Session, "__repr__", lambda self: reprs.append(1) or real_repr(self))
    app = MfactApp(Config(workers=1), session=s, services=Services(store=Store()))
    async with app.run_test(size=(140, 36)) as pilot:
        scr = app.screen
        await pilot.press("n")                      # the first relabel starts the build...
        await pilot.press("j", "n", "j", "i")       # ...these land while it runs or after
        assert await until(pilot, lambda: scr.metrics.get("counts") is not None
                           and scr.metrics.to_dict() == full(scr.session))
        live = scr.live
        assert live._inc is not None and not live._building
        for keys in (("j", "s"), ("j", "j", "n"), ("u",), ("u",), ("k", "i")):
            await pilot.press(*keys)
            assert await until(pilot, lambda: scr.metrics.to_dict() == full(scr.session))
        assert [f.human.label if f.human else None for f in scr.session.facts[:6]] == [
            "NS",
            "NS",
            "IR",
            None,
            None,
            None,
        ]
        got = scr.metrics
        assert got.counts.NS == sum(1 for f in scr.session.facts if f.label == "NS")
        assert got.drift_p_value is None            # above the p-value limit: `mfact score` gives it
        assert not reprs
        header = scr.query_one("#metrics").render()
        assert f"✗{got.counts.NS}" in str(header)


async def test_a_long_text_streams_into_a_window_that_follows_its_end():
    """While a text longer than the pane's window streams, the pane shows its end from a start
    that moves in steps (with a notice that does not change as the text grows), and once done the
    window around the selected fact as for any saved session."""
    from mfact.core.fake import FakeStages, fake_pipeline
    from mfact.tui.screens.check_panes import TEXT_WINDOW

    text = " ".join(f"In {1800 + i} Marie Curie wrote paper number {i} on radioactivity." for i in range(150))
    assert len(text) > 2 * TEXT_WINDOW
    stages = FakeStages(delay=0.001, chunk_size=8)
    app = MfactApp(Config(workers=1, max_tokens=5000), lang="en", entity="Marie Curie",
                   services=Services(pipeline_factory=lambda c, p=None: fake_pipeline(text=text, cfg=c, stages=stages)))
    seen: list[str] = []
    starts: list[int] = []
    async with app.run_test(size=(140, 36)) as pilot:
        t = time.monotonic()
        while time.monotonic() - t < 30:
            await pilot.pause(0.02)
            scr = app.screen
            if getattr(scr, "session", None) is None:
                continue
            shown = scr.query_one("#text-pane").plain
            if scr.running and shown.startswith("[long text"):
                seen.append(shown)
                assert shown.startswith("[long text: from character ") and "the view follows the end]" in shown
                start = int(re.search(r"from character ([\d,]+)", shown).group(1).replace(",", "")) - 1
                assert start % (TEXT_WINDOW // 4) < 200                 # a step (cut at a space)
                body = shown.split("\n", 1)[1]
                head = re.split("[✓✗○…?▼]", body)[0][:40]             # up to the first glyph
                assert 3 * TEXT_WINDOW // 4 - 200 <= len(body) and scr.session.text.startswith(head, start)
                starts.append(start)
            if not scr.running and scr.session.stop_reason:
                break
        assert seen, "the text never got past one window while streaming"
        assert starts == sorted(starts) and len(set(starts)) < len(starts)   # steps, not every token
        done = scr.query_one("#text-pane").plain
        assert done.startswith("Marie Curie") or done.startswith("In 1800")
        assert "the view follows the selected fact]" in done
