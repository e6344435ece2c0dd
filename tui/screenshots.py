"""Write SVG screenshots of the start, check and report screens (for the README and docs/tui.md).

    .venv/bin/python -m mfact.tui.screenshots [docs/screenshots]

Uses the deterministic fake pipeline (mfact.core.fake) so the pictures are reproducible; the
screens are the real ones. Everything is written under a temporary MFACT_HOME.
"""
from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

SIZE = (150, 40)
LABELS = ["S", "S", "S", "S", "S", "N", "S", "N"]


def _app(**kw):
    from mfact.core.config import Config
    from mfact.core.fake import fake_pipeline
    from mfact.tui.app import MfactApp, Services

    cfg = Config(workers=1)
    services = Services(pipeline_factory=lambda c, p=None: fake_pipeline(labels=LABELS, cfg=c),
                        suggest=lambda prefix, lang, c, n: [t for t in (
                            "Marie Curie", "Marie Antoinette", "Marie de' Medici", "Marie Laurencin")
                            if t.lower().startswith(prefix.lower())],
                        resolve=lambda name, lang, c: None)
    app = MfactApp(cfg, services=services, **kw)
    app.animation_level = "none"
    return app


async def _settle(pilot) -> None:
    from textual.widgets import Input

    from mfact.tui.screens.check import CheckScreen
    from mfact.tui.screens.report import ReportScreen
    app = pilot.app
    t0 = time.monotonic()
    while time.monotonic() - t0 < 20:
        await pilot.pause(0.05)
        scr = app.screen
        if isinstance(scr, ReportScreen) and scr.report is None:
            continue
        if not isinstance(scr, CheckScreen) or (not scr.running and scr.session.facts):
            break
    for inp in app.screen.query(Input):
        inp.cursor_blink = False
    app.clear_notifications()
    if isinstance(app.screen, CheckScreen):
        app.screen.tokens_per_s = 12.4
        app.screen._render_all()
    await pilot.pause(0.2)


async def _shoot(out: Path) -> list[Path]:
    written = []
    # start screen: a language picked, suggestions for a typed name, recent sessions
    app = _app(lang="en", entity="Marie Curie")
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await pilot.press("j", "j", "n")          # relabel the third fact
        await pilot.press("j", "j", "j")
        await pilot.pause(0.3)
        await _settle(pilot)
        written.append(Path(app.save_screenshot(str(out / "check.svg"))))
        await pilot.press("escape")
        await pilot.pause(0.2)
        await pilot.click("#entity")
        await pilot.press(*"Mari")
        await pilot.pause(0.5)
        await _settle(pilot)
        written.append(Path(app.save_screenshot(str(out / "start.svg"))))
    # report screen over a few sessions in three languages
    from mfact.core.config import Config
    from mfact.core.events import StopEvent
    from mfact.core.fake import fake_pipeline
    from mfact.core.session import HumanLabel
    from mfact.core.store import Store
    store = Store()
    for lang, labels in (("en", LABELS), ("es", ["S", "N", "S", "S", "N", "N", "S", "N"]),
                         ("bn", ["S", "S", "N", "N", "N", "N", "N", "N"])):
        pipe = fake_pipeline(labels=labels, cfg=Config(workers=1))
        s = [e for e in pipe.run("Marie Curie", lang) if isinstance(e, StopEvent)][0].session
        s.facts[1].human = HumanLabel("NS")
        store.save_session(s)
    store.close()
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await _settle(pilot)
        written.append(Path(app.save_screenshot(str(out / "report.svg"))))
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else "docs/screenshots").resolve()
    out.mkdir(parents=True, exist_ok=True)
    os.environ["MFACT_HOME"] = tempfile.mkdtemp(prefix="mfact-shots-")
    for p in asyncio.run(_shoot(out)):
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
