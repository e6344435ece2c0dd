"""`mfact-tui --open FILE.json` of a session whose file carries no figures: FActScore and drift show
at once (computed when it opens, not at the first relabel), and a store that keeps failing the
once-a-second look for changes is logged once, not every second (Textual Pilot)."""
from __future__ import annotations

import json
import logging

import pytest

from _pilot import wait_for
from mfact.core.config import Config
from mfact.core.errors import MfactError
from mfact.core.session import Entity, Fact, Session, Verdict
from mfact.core.store import Store
from mfact.tui.app import MfactApp, Services, load_session_arg
from mfact.tui.screens.check import CheckScreen

pytestmark = pytest.mark.anyio
SIZE = (140, 36)
LABELS = ["S", "S", "S", "S", "S", "S", "NS", "NS", "S", "NS", "NS", "NS"]


@pytest.fixture
def anyio_backend():
    return "asyncio"


def session_file(tmp_path) -> str:
    """A session as another tool would write it: facts with verdicts, no `metrics`."""
    text = "".join(f"Marie Curie did thing {i}. " for i in range(len(LABELS)))
    facts, at = [], 0
    for i, label in enumerate(LABELS):
        sentence = f"Marie Curie did thing {i}."
        facts.append(Fact(id=f"f{i}", text=sentence, sentence=i, span=(at, at + len(sentence)),
                          auto=Verdict(label=label, confidence=0.9)))
        at += len(sentence) + 1
    s = Session(id="fromfile", language="en", entity=Entity(name="Marie Curie"), text=text, facts=facts)
    d = s.to_dict()
    d.pop("metrics", None)
    path = tmp_path / "session.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    return str(path)


class LookFails(Store):
    """A store whose look for changes made elsewhere fails every time."""

    def session_revision(self, session_id: str) -> tuple:
        raise MfactError("the session store is locked: another mfact process is writing to it")


async def test_a_file_without_figures_shows_factscore_and_drift_on_open(tmp_path):
    session = load_session_arg(session_file(tmp_path))
    assert session.metrics.factscore is None
    app = MfactApp(Config(workers=1), session=session, services=Services(store=Store()))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))
        scr = app.screen
        await wait_for(pilot, lambda: scr.metrics.factscore is not None, timeout=10)
        assert scr.metrics.factscore == pytest.approx(7 / 12, abs=1e-3)
        assert scr.metrics.semantic_drift is not None
        bar = str(scr.query_one("#metrics").render())
        assert "58.3" in bar, bar


async def test_a_failing_store_look_is_logged_once(tmp_path, caplog):
    caplog.set_level(logging.DEBUG, logger="mfact")
    app = MfactApp(Config(workers=1), session=load_session_arg(session_file(tmp_path)),
                   services=Services(store=LookFails()))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))
        await pilot.pause(3.5)         # three or four looks, one a second
    told = [r for r in caplog.records if "checking the store for changes" in r.getMessage()
            or "store check failed" in r.getMessage()]
    assert len(told) == 1, [r.getMessage() for r in told]
