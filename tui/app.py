"""mfact-tui: the terminal app. `main(argv)` takes the same options as `mfact check` plus
`--lang`, `--entity` (start checking at once) and `--open ID|FILE.json` (reopen a session).

The app holds the configuration, the store and the pipeline (built once, off the UI thread, on
first use); screens render what the pipeline's events say and write labels to the store.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.widget import Widget

from mfact.core.config import Config
from mfact.core.errors import MfactError, error_line
from mfact.core.protocols import Progress
from mfact.core.session import Entity, Session, SessionFormatError
from mfact.themes import STYLESHEET, THEME_NAMES, THEMES

from .keys import ACTIONS, bindings, validate_keymap


if TYPE_CHECKING:  # pragma: no cover
    from .screens.check import CheckScreen

log = logging.getLogger("mfact.tui")

PipelineFactory = Callable[[Config, Callable[[Progress], None] | None], object]
SuggestFn = Callable[[str, str, Config, int], list[str]]


def _default_pipeline_factory(cfg: Config, on_progress=None):
    from mfact.core.pipeline import build_pipeline
    return build_pipeline(cfg, on_progress)


def _default_resolve(name: str, lang: str, cfg: Config):
    from mfact.core.knowledge import resolve_entity
    return resolve_entity(name, lang, cfg)


def _default_suggest(prefix: str, lang: str, cfg: Config, limit: int = 10) -> list[str]:
    from mfact.core.knowledge import suggest
    return suggest(prefix, lang, cfg, limit=limit)


@dataclass(frozen=True)
class Services:
    """What the app works with, each the real one when not given (tests give fakes): the session
    store (opened on first use), the pipeline factory, the entity suggestions and resolution, and
    how long the start screen waits after a keystroke before it asks for suggestions."""
    store: Any = None
    pipeline_factory: PipelineFactory | None = None
    suggest: SuggestFn | None = None
    resolve: Callable | None = None
    suggest_delay: float = 0.25


class MfactApp(App):
    """The mfact terminal workbench. It opens on `session`, or checks `entity` in `lang` at once
    (`lang` alone: the start screen's language); `services` are what it works with."""

    TITLE = "mfact"
    SUB_TITLE = "check the facts in what language models write"
    CSS_PATH = str(STYLESHEET)
    BINDINGS = bindings("app")
    ENABLE_COMMAND_PALETTE = True

    def __init__(self, cfg: Config | None = None, *, lang: str | None = None, entity: str | None = None,
                 session: Session | None = None, export_dir: str | Path | None = None,
                 services: Services = Services()):
        super().__init__()
        self.cfg = cfg or Config()
        self._store = services.store
        self._store_failed = False
        self.pipeline_factory = services.pipeline_factory or _default_pipeline_factory
        self.suggest_fn = services.suggest or _default_suggest
        self.resolve_fn = services.resolve or _default_resolve
        self.suggest_delay = max(0.01, float(services.suggest_delay))
        self.initial: dict[str, Any] = {"lang": lang, "entity": entity, "session": session}
        self.export_dir = Path(export_dir) if export_dir else None
        self._pipeline: Any = None
        self._pipeline_lock = threading.Lock()
        self.generic_said: set[str] = set()      # the generic languages whose notice was shown
        self.keymap = validate_keymap(self.cfg.keys)
        from .adapt_watch import AdaptWatch
        self.adapt = AdaptWatch(self)        # refits after every 25 new labels (adapt = auto)
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.cfg.theme if self.cfg.theme in THEME_NAMES or \
            self.cfg.theme in self.available_themes else "mfact-dark"

    # ------------------------------------------------------------------ shared services

    @property
    def store(self):
        """The session store, opened on first use (None, with a toast, when it cannot be opened)."""
        if self._store is None and not self._store_failed:
            try:
                from mfact.core.store import Store
                self._store = Store()
            except Exception as exc:  # noqa: BLE001 - the app still works, it cannot save
                self._store_failed = True
                log.exception("cannot open the store")
                self.notify(f"Sessions cannot be saved: {exc}", severity="error", markup=False)
        return self._store

    def get_pipeline(self, on_progress=None):
        """The pipeline, built once (called from worker threads; model loading happens here)."""
        with self._pipeline_lock:
            if self._pipeline is None:
                self._pipeline = self.pipeline_factory(self.cfg, on_progress)
            return self._pipeline

    def reset_pipeline(self) -> None:
        """Forget the pipeline so the next check rebuilds it (after options changed)."""
        with self._pipeline_lock:
            self._pipeline = None

    # ------------------------------------------------------------------ frames

    async def run_action(self, action, default_namespace=None, namespaces=None) -> bool:
        """Every key binding runs here: its frame is composed as soon as the key's message is done."""
        done = await super().run_action(action, default_namespace, namespaces)
        self.call_next(frame_now, self)
        return done

    # ------------------------------------------------------------------ lifecycle

    def on_mount(self) -> None:
        from .screens.start import StartScreen

        if self.keymap:
            self.set_keymap(self.keymap)
        self.push_screen(StartScreen())
        s = self.initial.get("session")
        if s is not None:
            self.open_session(s)
        elif self.initial.get("entity") and self.initial.get("lang"):
            self.start_check(self.initial["entity"], self.initial["lang"])

    def on_unmount(self) -> None:
        self.adapt.close()            # the refit's worker process goes with the app

    def start_check(self, entity: Entity | str, lang: str, text: str | None = None, question: str = "") -> None:
        from mfact.core.languages import generic_notice

        from .screens.check import CheckScreen
        notice = generic_notice(lang)
        if notice and lang not in self.generic_said:           # said once, on the first check in it
            self.generic_said.add(lang)
            self.notify(notice, title="generic rules", markup=False, timeout=8)
        self.push_screen(CheckScreen(entity=entity, lang=lang, text=text, question=question))

    def on_app_focus(self) -> None:
        """Back in this window: take in what other windows changed meanwhile."""
        from .screens.check import CheckScreen
        if isinstance(self.screen, CheckScreen):
            self.screen.check_store()

    def open_session(self, session: Session) -> None:
        from .screens.check import CheckScreen
        self.push_screen(CheckScreen(session=session))

    def pop_to_start(self) -> None:
        from .screens.start import StartScreen
        while len(self.screen_stack) > 2 and not isinstance(self.screen, StartScreen):
            self.pop_screen()
        if isinstance(self.screen, StartScreen):
            self.screen.refresh_recent()
        elif len(self.screen_stack) > 1:
            self.pop_screen()

    def check_screens(self) -> list[CheckScreen]:
        from .screens.check import CheckScreen
        return [s for s in self.screen_stack if isinstance(s, CheckScreen)]

    def shutdown(self) -> None:
        """Stop running checks and save everything (quitting)."""
        self.adapt.close()
        for screen in self.check_screens():
            try:
                screen.shutdown()
            except Exception:  # noqa: BLE001 - keep quitting; the log has it
                log.exception("saving on quit failed")

    # ------------------------------------------------------------------ app actions

    async def action_quit_app(self) -> None:
        self.shutdown()
        self.exit()

    async def action_quit(self) -> None:
        """Textual's own ctrl+q: save first, like q."""
        await self.action_quit_app()

    def action_help(self) -> None:
        from .screens.help import HelpScreen
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_report(self) -> None:
        from .screens.report import ReportScreen
        if not isinstance(self.screen, ReportScreen):
            self.push_screen(ReportScreen())

    def action_cycle_theme(self) -> None:
        names = list(THEME_NAMES)
        i = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(i + 1) % len(names)]
        self.notify(f"Theme: {self.theme}", timeout=2)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        scope = getattr(screen, "SCOPE", None)
        for a in ACTIONS:
            if a.scope not in ("app", scope) or a.id == "palette":
                continue
            target = self if a.action.startswith("app.") else screen
            action = a.action[4:] if a.action.startswith("app.") else a.action
            yield SystemCommand(a.help, f"{a.id} ({self.keymap.get(a.id, a.keys)})",
                                partial(self._palette_run, target, action))
        for name in THEME_NAMES:
            yield SystemCommand(f"Theme: {name}", "switch the colours",
                                partial(setattr, self, "theme", name))
        yield SystemCommand("Screenshot", "Save an SVG screenshot of this screen",
                            lambda: self.set_timer(0.1, self.deliver_screenshot))

    def _palette_run(self, target, action: str) -> None:
        self.call_later(self.run_action, action, target)


# --------------------------------------------------------------------------- command line


def frame_now(app: App) -> None:
    """Compose the frame that shows a key's effect now, not at the screen's next refresh tick.

    Textual repaints in steps: a widget asked to refresh tells its screen when its own queue is
    next idle, the screen marks it dirty when its queue is idle, and a timer composes the dirty
    widgets on a fixed grid (`TEXTUAL_FPS` a second). A key whose action had finished waited for
    those hops and up to one interval of the grid (8 ms at 120 frames a second), while stream
    redraws and verdicts queued behind it ran first. Called right after the message that ran a
    binding's action (`MfactApp.run_action`): the widgets that only need repainting (the text, the
    evidence, the list, the bar: what keys change) are marked dirty on the screen and composed, as
    the timer's tick would; the next tick finds nothing left to draw. A widget that needs more
    (layout, styles, scrolling: a pane resized, a scrollbar appearing, a toast coming in) is left to
    Textual's own path; a layout the screen was waiting for is done first, as the tick does it.
    Nothing changed, no frame."""
    try:
        screen = app.screen
    except Exception:  # noqa: BLE001 - no screen (the app is closing): nothing to draw
        return
    if not (screen.is_current and screen.is_running) or app._batch_count:
        return
    dirty = [w for w in screen.walk_children(Widget, with_self=False)
             if w._repaint_required and w.display and not (
                 w._layout_required or w._refresh_styles_required or w._scroll_required or w._recompose_required)]
    if not dirty or screen._recompose_required:
        return
    for w in dirty:
        w._repaint_required = False
        screen._dirty_widgets.add(w)
    screen._on_timer_update()


def tune_gc() -> None:
    """Fewer, shorter garbage-collector pauses while the UI runs: what exists at start-up (the
    model, the libraries) is moved out of the collector's sight, and young collections run less
    often. Measured with bench/tui_latency.py: key latency p99 83-93 ms -> 49-50 ms."""
    import gc
    gc.collect()
    gc.freeze()
    gc.set_threshold(20000, 50, 100)


def build_parser() -> argparse.ArgumentParser:
    from mfact.core.options import (add_checking_options, add_global_options, add_knowledge_options,
                                    add_model_options)

    p = argparse.ArgumentParser(
        prog="mfact-tui", description="The mfact terminal workbench: pick a language and a person, "
        "watch the biography stream and its facts get checked, relabel with single keys.")
    add_global_options(p)
    p.add_argument("--lang", help="language code (e.g. en, es, bn); with --entity starts at once")
    p.add_argument("--entity", help="the person to write about, e.g. 'Marie Curie'")
    p.add_argument("--open", dest="open_session", metavar="ID|FILE.json",
                   help="reopen a saved session (id or id prefix) or an exported JSON file")
    p.add_argument("--theme", choices=list(THEME_NAMES), help="colour theme")
    add_model_options(p)
    add_knowledge_options(p)
    add_checking_options(p)
    return p


def load_session_arg(ref: str, store=None) -> Session:
    """A session from `--open`: an exported JSON file, or an id (prefix) in the store."""
    path = Path(os.path.expanduser(ref))
    if path.suffix.lower() in (".json", ".jsonl") or os.path.lexists(path):
        from mfact.core.formats import read_sessions

        sessions = read_sessions(path, hint="")
        if len(sessions) != 1:
            raise MfactError(f"{path} holds {len(sessions)} sessions; --open needs exactly one",
                             "import the file (mfact import) and open one session by id")
        return sessions[0]
    if store is None:
        from mfact.core.store import Store
        store = Store()
    sid = store.resolve_id(ref) if hasattr(store, "resolve_id") else ref
    return store.get_session(sid)


def main(argv: list[str] | None = None) -> int:
    from mfact.core.options import apply_global_options, config_from_args
    from mfact.core.languages import UnknownLanguage, get_language
    from mfact.core.logs import setup_logging

    args = build_parser().parse_args(argv)
    apply_global_options(args)
    setup_logging(verbose=bool(getattr(args, "verbose", False)), console=False)
    try:
        cfg = config_from_args(args)
        if args.theme:
            cfg.theme = args.theme
        validate_keymap(cfg.keys)
        lang = None
        if args.lang:
            try:
                lang = get_language(args.lang).code
            except UnknownLanguage as exc:
                raise MfactError(str(exc), "run `mfact languages` for the list") from None
        if args.entity is not None and not args.entity.strip():
            raise MfactError("--entity is empty", "name the person, e.g. --entity 'Marie Curie'")
        if args.entity:
            from mfact.core.batch import parse_entity_lines
            parse_entity_lines([args.entity], "--entity")  # no control characters, at most 500 characters
        if args.entity and not lang:
            lang = "en"
        session = load_session_arg(args.open_session) if args.open_session else None
    except (MfactError, SessionFormatError) as exc:
        print(f"mfact-tui: error: {error_line(exc)}", file=sys.stderr)
        return 1
    except (OSError, ValueError, RecursionError) as exc:   # never a traceback for a bad input
        log.exception("cannot start")
        print(f"mfact-tui: error: {type(exc).__name__}: {str(exc)[:200]} (details in the log)", file=sys.stderr)
        return 1
    app = MfactApp(cfg, lang=lang, entity=args.entity.strip() if args.entity else None,
                   session=session)
    tune_gc()
    app.run()
    # Everything was saved by the quit action. Threads that may still run (the model mid-token,
    # verifications) and the interpreter's teardown of torch would hold the exit for seconds:
    # close the store, flush, and leave now.
    rc = app.return_code or 0
    try:
        if app._store is not None:
            app._store.close()
    except Exception:  # noqa: BLE001 - leaving anyway
        log.exception("closing the store failed")
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
