"""Check a text you already have: paste it (or open a .txt / .md file), optionally give the question
it answers, name the person or topic (optional with a question: read from it), and check it like a
generated text. The language is detected as you type and can be changed: every language mfact
accepts is offered, found by typing part of its code or name in the open list."""
from __future__ import annotations

import os
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, TextArea

from mfact.core.languages import ALL_LANGUAGES, generic_notice, get_language
from mfact.core.errors import MfactError

MAX_FILE_BYTES = 2_000_000
TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".text")


def read_text_file(path: str) -> str:
    """The UTF-8 text of a .txt / .md file; MfactError with what to do otherwise."""
    raw = path.strip()
    if not raw:
        raise MfactError("no file name given", "type the path of a .txt or .md file")
    p = Path(os.path.expanduser(raw))
    if p.is_dir():
        raise MfactError(f"{p} is a folder", "give the path of a .txt or .md file")
    if not p.is_file():
        raise MfactError(f"{p} not found", "check the path")
    if p.suffix.lower() not in TEXT_SUFFIXES:
        raise MfactError(f"{p.name} is not a .txt or .md file", "open a plain-text or Markdown file")
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise MfactError(f"{p.name} is {size // 1000} kB", f"at most {MAX_FILE_BYTES // 1000} kB")
        data = p.read_bytes()
    except OSError as exc:
        raise MfactError(f"cannot read {p}: {exc.strerror}", "check the file's permissions") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MfactError(f"{p.name} is not UTF-8 text (byte {exc.start})", "convert it to UTF-8") from None
    if not text.strip():
        raise MfactError(f"{p.name} is empty", "nothing to check")
    return text


def detect_language(text: str) -> str | None:
    """The language of the text among mfact's, or None for too little text."""
    if len(text.strip()) < 12:
        return None
    try:
        from mfact.core.langid import detect
        code, _conf = detect(text)
        return get_language(code).code
    except Exception:  # noqa: BLE001 - detection is a help; the user picks the language
        return None


class TextCheckScreen(ModalScreen[tuple[str, str, str, str] | None]):
    """Dismisses with (text, entity, lang, question) to check (question "" for none), or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="text_cancel"),
                Binding("ctrl+s", "confirm", "Check", id="text_check", priority=True)]

    def __init__(self, lang: str = "en", entity: str = ""):
        super().__init__()
        self.lang = lang
        self.entity = entity
        self.lang_chosen = False      # the user picked the language: stop following detection
        self._auto_lang = lang        # the value set by mfact (initial or detected), not the user

    def compose(self) -> ComposeResult:
        with Vertical(id="text-dialog"):
            yield Label("Check a text: paste it below or open a .txt / .md file", id="text-title")
            with Horizontal(id="text-file-row"):
                yield Input(placeholder="path of a .txt or .md file", id="text-file")
                yield Button("Open", id="text-open")
            yield TextArea(id="text-area", soft_wrap=True, show_line_numbers=False)
            yield Input(placeholder="the question the text answers (optional), e.g. Who is Nigeria's richest woman?",
                        id="text-question")
            with Horizontal(id="text-meta-row"):
                yield Input(self.entity, placeholder="who or what the text is about, e.g. Marie Curie "
                                                     "(optional with a question)", id="text-entity")
                yield Select([(f"{lang.code} · {lang.name} · {lang.native}", lang.code) for lang in ALL_LANGUAGES],
                             value=self.lang, allow_blank=False, id="text-lang", type_to_search=True)
            yield Label("", id="text-status")
            with Horizontal(id="text-buttons"):
                yield Button("Check", variant="primary", id="text-ok")
                yield Button("Cancel", id="text-cancel")

    def on_mount(self) -> None:
        self.query_one("#text-area", TextArea).focus()

    def _status(self, message: str) -> None:
        self.query_one("#text-status", Label).update(message)

    # ------------------------------------------------------------------ the text

    @on(Button.Pressed, "#text-open")
    @on(Input.Submitted, "#text-file")
    def action_open_file(self) -> None:
        try:
            text = read_text_file(self.query_one("#text-file", Input).value)
        except MfactError as exc:
            self._status(f"{exc.message}: {exc.hint}" if exc.hint else exc.message)
            return
        self.query_one("#text-area", TextArea).load_text(text)
        self._status(f"opened {len(text)} characters")
        self.query_one("#text-entity", Input).focus()

    @on(TextArea.Changed, "#text-area")
    def _text_changed(self) -> None:
        if self.lang_chosen:
            return
        lang = detect_language(self.query_one("#text-area", TextArea).text)
        if lang is not None and lang != self.query_one("#text-lang", Select).value:
            self._auto_lang = lang
            self.query_one("#text-lang", Select).value = lang
            generic = generic_notice(lang)
            self._status(f"language detected: {get_language(lang).name} (change it if it is wrong)"
                         + (f"; {generic}" if generic else ""))

    @on(Select.Changed, "#text-lang")
    def _lang_changed(self, event: Select.Changed) -> None:
        if event.value != self._auto_lang:
            self.lang_chosen = True

    # ------------------------------------------------------------------ done

    @on(Input.Submitted, "#text-entity")
    @on(Input.Submitted, "#text-question")
    @on(Button.Pressed, "#text-ok")
    def action_confirm(self) -> None:
        from mfact.core.pipeline.question import topic_of
        from mfact.core.inputs import CONTROL

        text = self.query_one("#text-area", TextArea).text
        question = " ".join(self.query_one("#text-question", Input).value.split())
        entity = " ".join(self.query_one("#text-entity", Input).value.split()) or CONTROL.sub(
            "", topic_of(question, [])
        )
        if not text.strip():
            self._status("Paste a text or open a file first.")
            self.query_one("#text-area", TextArea).focus()
            return
        if not entity:
            self._status(
                "Say who or what the text is about (a person, a place, a film...), or the question it answers."
            )
            self.query_one("#text-entity", Input).focus()
            return
        self.dismiss((text, entity, str(self.query_one("#text-lang", Select).value), question))

    @on(Button.Pressed, "#text-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
