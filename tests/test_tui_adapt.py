"""The TUI and the adaptation learnt from the labels: the "next uncertain" key (and palette command)
and the refit after every 25 new labels with its "adapted: n labels, +x pts" in the metrics bar."""
from __future__ import annotations

import json
import zlib

import pytest
from _pilot import wait_for

from mfact.core.adapt.features import p_supported
from mfact.core.adapt.refit import verifier_id
from mfact.core.config import Config
from mfact.core.session import Entity, Evidence, Fact, Session, Verdict
from mfact.core.store import Store
from mfact.tui.adapt_watch import REFIT_EVERY
from mfact.tui.app import MfactApp
from mfact.tui.screens.check import CheckScreen

pytestmark = pytest.mark.anyio
SIZE = (170, 40)
CURRENT = verifier_id(Config())        # the default verifier's name/version: the refit learns from its verdicts


@pytest.fixture
def anyio_backend():
    return "asyncio"


def harsh_session(n: int = 60) -> Session:
    """`n` facts whose verdicts (the offline verifier's) spread p(supported) over 0.2-0.8, in an
    order unrelated to it; nothing labelled yet."""
    facts, text = [], ""
    for i in range(n):
        p = 0.2 + 0.6 * ((i * 37) % n) / (n - 1)
        sent = f"In {1850 + i} Ada Lovelace wrote note {i}. "
        label = "S" if p >= 0.5 else "NS"
        facts.append(Fact(id=f"f{i}", text=sent.strip(), sentence=i, span=(len(text), len(text) + len(sent) - 1),
                          auto=Verdict(label, round(p if label == "S" else 1 - p, 4), CURRENT, ["e1"],
                                       f"p(supported)={p:.2f}")))
        text += sent
    return Session(language="en", entity=Entity("Ada Lovelace"), id="harsh", text=text.strip(), facts=facts,
                   evidence=[Evidence(id="e1", source="wikipedia", lang="en", title="Ada Lovelace", text="Ada.")])


def expected_order(facts, k: int) -> list[str]:
    """What the key should ask for, written out: the facts nearest p(supported) = 0.5, except every
    third of the first 25 labels, the fact at the next quantile of p (the median, the quartiles...).
    Ties (p and 1 - p are as near 0.5) go by a hash of the session's id and the fact's."""
    ps = {f.id: p_supported(f.auto.label, f.auto.confidence) for f in facts}
    tie = {i: zlib.crc32(f"harsh\x1f{i}".encode("utf-8")) for i in ps}
    by_p = sorted(ps, key=ps.get)
    quantiles = iter([0.5, 0.25, 0.75, 0.125, 0.625, 0.375, 0.875, 0.0625, 0.5625])
    out: list[str] = []
    while len(out) < k:
        free = [i for i in ps if i not in out]
        if len(out) < 25 and len(out) % 3 == 2:
            target = next(quantiles) * (len(by_p) - 1)
            out.append(min(free, key=lambda i: (abs(by_p.index(i) - target), tie[i])))
        else:
            out.append(min(free, key=lambda i: (round(abs(ps[i] - 0.5), 6), tie[i])))
    return out


def header(app) -> str:
    return str(app.screen.query_one("#metrics").render())


async def test_next_uncertain_key_and_the_adapted_indicator_after_25_labels(mfact_home):
    with Store() as st:
        st.save_session(harsh_session())
        session = st.get_session("harsh")
    app = MfactApp(Config(workers=1), session=session)
    expected = expected_order(session.facts, REFIT_EVERY)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, CheckScreen)
        assert "adapted" not in header(app)
        picked = []
        for _ in range(REFIT_EVERY):
            await pilot.press("w")
            picked.append(scr.selected)
            await pilot.press("s")
        assert picked == expected
        assert len(set(picked)) == REFIT_EVERY                 # never a labelled fact again
        await wait_for(pilot, lambda: app.adapt.fits == 1, timeout=30)
        written = json.loads((mfact_home / "data" / "adaptation.json").read_text(encoding="utf-8"))
        en = written["languages"]["en"]
        assert en["labels"] == REFIT_EVERY and en["adopted"] and en["model"] == "pooled"
        gain = 100 * (en["after"]["accuracy"] - en["before"]["accuracy"])
        assert f"adapted: {REFIT_EVERY} labels, {gain:+.1f} pts" in header(app)
        assert app.adapt.last_seconds is not None
        # the palette's command is the key's action
        titles = {c.title for c in app.get_system_commands(scr)}
        assert any(t.startswith("Next uncertain") for t in titles)
    with Store() as st:
        labels = st.human_labels("harsh")
    assert sorted(k for k, v in labels.items() if v is not None) == sorted(picked)


async def test_adapt_off_never_refits_and_shows_nothing(mfact_home):
    with Store() as st:
        st.save_session(harsh_session())
        session = st.get_session("harsh")
    app = MfactApp(Config(workers=1, adapt="off"), session=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(REFIT_EVERY + 1):
            await pilot.press("w", "n")
        await pilot.pause(0.3)
        assert app.adapt.fits == 0 and not app.adapt.running
        assert "adapted" not in header(app)
        assert not (mfact_home / "data" / "adaptation.json").exists()
        await pilot.press("w")                     # 26 of 60 labelled: still some left
        assert app.screen.builder.fact(app.screen.selected).human is None


async def test_next_uncertain_says_so_when_every_fact_is_labelled(mfact_home):
    s = harsh_session(3)
    with Store() as st:
        st.save_session(s)
    app = MfactApp(Config(workers=1, adapt="off"), session=s)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("w", "s", "w", "s", "w", "s", "w")
        await pilot.pause()
        assert any("No unlabelled fact" in str(n.message) for n in app._notifications)


async def test_the_refit_process_goes_with_the_app(mfact_home):
    with Store() as st:
        st.save_session(harsh_session())
        session = st.get_session("harsh")
    app = MfactApp(Config(workers=1), session=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(REFIT_EVERY):
            await pilot.press("w", "s")
        await wait_for(pilot, lambda: app.adapt.fits == 1, timeout=30)
        proc = app.adapt._proc
        assert proc and proc.alive()           # the refit ran in its own process
    assert not proc.alive()


async def test_an_adaptation_of_another_verifier_version_is_shown_as_not_applied(mfact_home):
    """After an upgrade the file's adaptation (fitted on offline/3-old's verdicts) adapts nothing,
    and the metrics bar says so instead of "adapted"."""
    from mfact.core.adapt import adaptation as A
    from mfact.core.adapt import learn as L
    from mfact.core.adapt.features import Row, feature_row

    rows = [Row(("s", f"f{i}"), "en", "S" if i % 4 else "NS", "NS", 0.3, feature_row(0.3, "", False))
            for i in range(80)]
    a = A.from_result(L.learn(rows, "offline/3-old"), 1)
    assert a.adopted("en") is not None
    A.save_adaptation(a)
    with Store() as st:
        st.save_session(harsh_session())
        session = st.get_session("harsh")
    app = MfactApp(Config(workers=1), session=session)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "another verifier" in header(app), timeout=20)
        assert "not adapted: fitted on another verifier (offline/3-old)" in header(app)
        assert "adapted: " not in header(app).replace("not adapted: ", "")
