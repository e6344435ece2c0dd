"""End to end on the embedded model with the offline knowledge source: the app streams a real
biography, facts get verdicts, evidence shows, a relabel changes FActScore at once and the export
is read back by `mfact import`'s reader. Slow (model preparation, CPU generation)."""
from __future__ import annotations

import time

import pytest

from mfact.core.config import Config
from mfact.tui.app import MfactApp
from mfact.tui.screens.check import CheckScreen

pytestmark = [pytest.mark.slow, pytest.mark.anyio, pytest.mark.timeout(900)]


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def test_embedded_model_offline_end_to_end(tmp_path):
    from mfact.core.formats import read_sessions
    from mfact.core.store import Store

    cfg = Config(offline=True, max_tokens=80, workers=1)
    app = MfactApp(cfg, lang="en", entity="Marie Curie")
    async with app.run_test(size=(160, 45)) as pilot:
        t0 = time.monotonic()
        while time.monotonic() - t0 < 800:
            await pilot.pause(0.5)
            scr = app.screen
            if isinstance(scr, CheckScreen) and not scr.running and scr.session.stop_reason:
                break
        scr = app.screen
        assert isinstance(scr, CheckScreen) and not scr.running
        s = scr.session
        assert s.stop_reason in ("eos", "max_tokens", "repetition"), s.stop_reason
        assert s.text.strip() and s.facts, "the model wrote no checkable fact"
        assert all(f.auto is not None for f in s.facts)
        assert scr.query_one("#text-pane").plain.startswith(s.text[:20])
        # evidence of the selected fact is on screen
        ev = scr.query_one("#evidence").plain
        assert ev.startswith("Fact: ")
        assert s.evidence, "the offline source gave no passage for Marie Curie"
        # flip the first fact's label: FActScore follows at once, the store has it
        first = s.facts[0]
        before = scr.metrics.get("factscore")
        new = "NS" if first.auto.label == "S" else "S"
        await pilot.press("s" if new == "S" else "n")
        t1 = time.monotonic()
        while scr.metrics.get("factscore") == before and time.monotonic() - t1 < 10:
            await pilot.pause(0.05)
        assert scr.metrics.get("factscore") != before
        assert Store().get_session(s.id).facts[0].human.label == new
        # export and read back
        await pilot.press("e")
        out = tmp_path / "curie.json"
        app.screen.query_one("#export-path").value = str(out)
        await pilot.press("enter")
        t2 = time.monotonic()
        while not out.exists() and time.monotonic() - t2 < 10:
            await pilot.pause(0.05)
        back = read_sessions(out)[0]
        assert back.facts[0].human.label == new
