"""The start screen: pick a language (type to filter), name a person (live suggestions from the
knowledge source, debounced and off the UI thread; disambiguation choices), choose the model and
options, check a text you already have ("Check a text…": paste or open a file), or reopen / delete
a recent session."""
from __future__ import annotations

import logging
import threading

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.suggester import SuggestFromList
from textual.timer import Timer
from textual.widgets import Button, Checkbox, DataTable, Footer, Input, Label, OptionList, Select
from textual.widgets.option_list import Option

from mfact.core.batch import name_problem
from mfact.core.errors import MfactError
from mfact.core.session import Entity

from ..base import MfactScreen
from ..keys import bindings
from ..messages import EntityResolved, SuggestionsReady
from ..render import one_line
from ..widgets.start_tables import LanguageTable, RecentSessions

log = logging.getLogger("mfact.tui")

VERIFIERS = [("verifier: offline", "offline"), ("verifier: llm", "llm"),
             ("verifier: nli mDeBERTa", "nli:MoritzLaurer/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7")]


def _spawn(fn, *args) -> None:
    """Run `fn` in a daemon thread (knowledge look-ups can wait on the network; they must never
    hold the app's exit). Results come back as messages."""
    threading.Thread(target=fn, args=args, daemon=True, name="mfact-tui-lookup").start()


class StartScreen(MfactScreen[None]):
    BINDINGS = bindings("start")
    SCOPE = "start"

    def __init__(self):
        super().__init__()
        self._suggest_timer: Timer | None = None
        self._choices_for: str | None = None    # entity name whose disambiguation is shown
        self._proceed_anyway: str | None = None

    def compose(self) -> ComposeResult:
        cfg = self.mfact.cfg
        with Horizontal(id="start"):
            with Vertical(id="start-left"):
                yield Input(placeholder="type to filter languages", id="lang-filter")
                yield LanguageTable(id="languages")
            with Vertical(id="start-right"):
                yield Label("Person (Enter to check)", classes="field-label")
                yield Input(placeholder="e.g. Marie Curie", id="entity")
                yield OptionList(id="suggestions", classes="-empty")
                yield Label("Model: embedded, a Hugging Face id, a .gguf file or a server URL",
                            classes="field-label")
                yield Input(cfg.base_url or cfg.model, id="model",
                            suggester=SuggestFromList(self._recent_models(), case_sensitive=False))
                yield Label("Options: passages k · max tokens · verifier · sources",
                            classes="field-label")
                with Horizontal(id="options"):
                    yield Input(str(cfg.k), id="opt-k", type="integer", tooltip="passages per fact")
                    yield Input(str(cfg.max_tokens), id="opt-max-tokens", type="integer",
                                tooltip="max tokens")
                    yield Select(self._verifier_options(cfg.verifier), value=cfg.verifier,
                                 allow_blank=False, id="opt-verifier")
                with Horizontal(id="options2", classes="-row"):
                    yield Input(",".join(cfg.sources), id="opt-sources", tooltip="knowledge sources")
                    yield Checkbox("stop at drift", cfg.stop_at_drift, id="opt-stop-drift")
                    yield Checkbox("offline", cfg.offline, id="opt-offline")
                with Horizontal(id="start-buttons"):
                    yield Button("Check", variant="primary", id="start-check")
                    yield Button("Check a text…", id="start-text")
                    yield Button("Report", id="start-report")
                yield Label("Recent sessions (Enter or ctrl+o opens, ctrl+d deletes)",
                            classes="field-label")
                yield RecentSessions(id="recent")
        yield Footer()

    def _verifier_options(self, current: str):
        opts = list(VERIFIERS)
        if current not in [v for _, v in opts]:
            opts.append((current, current))
        return opts

    def _recent_models(self) -> list[str]:
        models = ["embedded"]
        store = self.mfact.store
        if store is not None:
            try:
                for s in store.list_sessions(limit=50):
                    if s.model and s.model not in models:
                        models.append(s.model)
            except Exception:  # noqa: BLE001
                log.exception("listing sessions failed")
        return models

    def on_mount(self) -> None:
        self.query_one(LanguageTable).setup()
        self._fill_languages("")
        initial = self.mfact.initial.get("lang")
        if initial:
            self.select_language(initial)
        self.query_one(RecentSessions).setup()
        self.refresh_recent()
        self.query_one("#entity", Input).focus()

    def on_screen_resume(self) -> None:
        self.refresh_recent()

    # ------------------------------------------------------------------ languages

    def _fill_languages(self, query: str) -> None:
        self.query_one(LanguageTable).fill(query)

    def selected_language(self) -> str:
        return self.query_one(LanguageTable).selected()

    def select_language(self, code: str) -> None:
        self.query_one("#lang-filter", Input).value = ""
        self.query_one(LanguageTable).select(code)

    @on(Input.Changed, "#lang-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._fill_languages(event.value)

    @on(Input.Submitted, "#lang-filter")
    def _filter_submitted(self) -> None:
        self.query_one("#entity", Input).focus()

    @on(DataTable.RowSelected, "#languages")
    def _language_chosen(self) -> None:
        self.query_one("#entity", Input).focus()

    # ------------------------------------------------------------------ suggestions

    @on(Input.Changed, "#entity")
    def _entity_changed(self, event: Input.Changed) -> None:
        self._choices_for = None
        self._proceed_anyway = None
        if self._suggest_timer is not None:
            self._suggest_timer.stop()
        prefix = event.value.strip()
        if len(prefix) < 2 or name_problem(prefix):     # no lookup for what cannot be a name
            self._show_suggestions([])
            return
        lang = self.selected_language()
        self._suggest_timer = self.set_timer(self.mfact.suggest_delay,
                                             lambda: _spawn(self._fetch_suggestions, prefix, lang))

    def _fetch_suggestions(self, prefix: str, lang: str) -> None:
        try:
            items = list(self.mfact.suggest_fn(prefix, lang, self.mfact.cfg, 10))
            self.post_message(SuggestionsReady(prefix, lang, items))
        except Exception as exc:  # noqa: BLE001 - suggestions are a help, never an obstacle
            log.info("suggestions failed: %s", exc)
            self.post_message(SuggestionsReady(prefix, lang, [], str(exc)))

    def on_suggestions_ready(self, message: SuggestionsReady) -> None:
        if message.prefix != self.query_one("#entity", Input).value.strip():
            return    # the user typed on; a newer request is under way
        self._show_suggestions(message.items)

    def _show_suggestions(self, items: list[str], title: str | None = None) -> None:
        ol = self.query_one("#suggestions", OptionList)
        ol.clear_options()
        if title:
            ol.add_option(Option(Text(title, style="bold"), disabled=True))
        for it in items:
            ol.add_option(Option(Text(one_line(it, 120)), id=None))
        ol.set_class(not items, "-empty")

    @on(OptionList.OptionSelected, "#suggestions")
    def _suggestion_chosen(self, event: OptionList.OptionSelected) -> None:
        name = event.option.prompt.plain if isinstance(event.option.prompt, Text) \
            else str(event.option.prompt)
        choosing = self._choices_for is not None
        inp = self.query_one("#entity", Input)
        with inp.prevent(Input.Changed):
            inp.value = name
        self._show_suggestions([])
        inp.focus()
        if choosing:
            self._launch(Entity(name=name))

    # ------------------------------------------------------------------ starting

    @on(Input.Submitted, "#entity")
    @on(Button.Pressed, "#start-check")
    def action_start_check(self) -> None:
        name = " ".join(self.query_one("#entity", Input).value.split())
        if not name:
            self.notify("Name a person first, e.g. Marie Curie.", severity="warning")
            self.query_one("#entity", Input).focus()
            return
        problem = name_problem(name)
        if problem:
            self.notify(f"Cannot check this name: {problem}.", severity="error", markup=False)
            self.query_one("#entity", Input).focus()
            return
        try:
            self._apply_options()
        except MfactError as exc:
            self.notify(f"{exc.message}\n{exc.hint}", severity="error", markup=False)
            return
        if self._proceed_anyway == name:
            self._launch(Entity(name=name))
            return
        _spawn(self._resolve, name, self.selected_language())

    def _resolve(self, name: str, lang: str) -> None:
        try:
            match = self.mfact.resolve_fn(name, lang, self.mfact.cfg)
        except Exception as exc:  # noqa: BLE001 - no knowledge source: check the name as given
            log.info("resolving %r failed: %s", name, exc)
            match = None
        self.post_message(EntityResolved(name, lang, match))

    def on_entity_resolved(self, message: EntityResolved) -> None:
        name, match = message.name, message.match
        if match is None:
            self._launch(Entity(name=name))
            return
        if match.entity is not None:
            self._launch(match.entity)
            return
        choices = list(match.choices)
        if choices:
            self._choices_for = name
            self._show_suggestions(choices, f"Which {name}? (choose, or Enter again for the name as typed)")
            self._proceed_anyway = name
            self.query_one("#suggestions", OptionList).focus()
            return
        sugg = list(match.suggestions)
        self._proceed_anyway = name
        if sugg:
            self._choices_for = name
            self._show_suggestions(sugg, f"{name!s} is not in the knowledge source. Did you mean…"
                                         " (Enter again checks it as typed)")
        else:
            self.notify(f"{name} is not in the knowledge source; press Enter again to check it "
                        "anyway (evidence may be missing).", severity="warning", markup=False)

    def _launch(self, entity: Entity) -> None:
        self._choices_for = None
        self._proceed_anyway = None
        self._show_suggestions([])
        self.mfact.start_check(entity, self.selected_language())

    def _apply_options(self) -> None:
        cfg = self.mfact.cfg
        before = cfg.to_dict()
        model = self.query_one("#model", Input).value.strip() or "embedded"
        if model.startswith(("http://", "https://")):
            cfg.base_url = model
        else:
            cfg.base_url = ""
            cfg.model = model
        for wid, name in (("#opt-k", "k"), ("#opt-max-tokens", "max_tokens")):
            raw = self.query_one(wid, Input).value.strip()
            try:
                value = int(raw)
                if value <= 0:
                    raise ValueError
            except ValueError:
                raise MfactError(f"{name.replace('_', ' ')} must be a positive whole number, "
                                 f"got {raw!r}", "fix it in the options row") from None
            setattr(cfg, name, value)
        cfg.verifier = str(self.query_one("#opt-verifier", Select).value)
        cfg.sources = [s.strip() for s in self.query_one("#opt-sources", Input).value.split(",")
                       if s.strip()] or cfg.sources
        cfg.stop_at_drift = self.query_one("#opt-stop-drift", Checkbox).value
        cfg.offline = self.query_one("#opt-offline", Checkbox).value
        if cfg.to_dict() != before:
            self.mfact.reset_pipeline()

    # ------------------------------------------------------------------ recent sessions

    def refresh_recent(self) -> None:
        error = self.query_one(RecentSessions).fill(self.mfact.store)
        if error is not None:
            self.notify(f"Cannot list sessions: {error}", severity="error", markup=False)

    def _recent_id(self) -> str | None:
        return self.query_one(RecentSessions).selected_id()

    @on(DataTable.RowSelected, "#recent")
    def action_open_session(self) -> None:
        sid = self._recent_id()
        if sid is None or self.mfact.store is None:
            self.notify("No session selected.", timeout=2)
            return
        try:
            session = self.mfact.store.get_session(sid)
        except MfactError as exc:
            self.notify(f"{exc.message}\n{exc.hint}", severity="error", markup=False)
            return
        self.mfact.open_session(session)

    def action_delete_session(self) -> None:
        sid = self._recent_id()
        if sid is None or self.mfact.store is None:
            self.notify("No session selected.", timeout=2)
            return
        self.mfact.store.delete_session(sid)
        self.notify(f"Deleted session {sid}.", timeout=3)
        self.refresh_recent()

    @on(Button.Pressed, "#start-report")
    def _report(self) -> None:
        self.mfact.action_report()

    # ------------------------------------------------------------------ check a text

    @on(Button.Pressed, "#start-text")
    def action_check_text(self) -> None:
        """Paste a text (or open a file), name its person or topic, and check it."""
        from .text_input import TextCheckScreen

        try:
            self._apply_options()
        except MfactError as exc:
            self.notify(f"{exc.message}\n{exc.hint}", severity="error", markup=False)
            return
        entity = " ".join(self.query_one("#entity", Input).value.split())
        self.app.push_screen(TextCheckScreen(self.selected_language(), entity), self._text_chosen)

    def _text_chosen(self, result: tuple[str, str, str, str] | None) -> None:
        if result is None:
            return
        text, entity, lang, question = result
        self.mfact.start_check(Entity(name=entity), lang, text=text, question=question)
