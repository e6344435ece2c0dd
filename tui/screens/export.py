"""Export the session to a path the user confirms: mfact JSON (read back by `mfact import`),
FActScore's labelled-data format (one JSON line), or a web page (HTML, core/html_session.py): after
writing the page the dialog shows its path and a `file://` link, and can open it in a browser."""
from __future__ import annotations

import os
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from rich.style import Style
from rich.text import Text
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from mfact.core.errors import MfactError
from mfact.core.session import Session


def export_session(session: Session, path: str | Path, fmt: str = "json",
                   overwrite: bool = False) -> Path:
    """Write the session to `path`. Raises MfactError with what to do on any problem."""
    p = Path(os.path.expanduser(str(path).strip()))
    if not str(path).strip():
        raise MfactError("no file name given", "type a path, e.g. marie-curie.json")
    if p.is_dir():
        raise MfactError(f"{p} is a folder", "add a file name to the path")
    if p.exists() and not overwrite:
        raise MfactError(f"{p} exists", "press Export again to overwrite it, or change the path")
    if not p.parent.exists():
        raise MfactError(f"folder {p.parent} does not exist", "create it first or pick another path")
    if fmt == "html":
        from mfact.core.formats import atomic_write
        from mfact.core.html_session import session_page
        return atomic_write(p, session_page(session))
    from mfact.core.formats import write_sessions
    return write_sessions([session], p, "factscore" if fmt == "factscore" else "mfact", single=True)


EXTENSIONS = {"json": "json", "factscore": "jsonl", "html": "html"}


def default_export_name(session: Session, fmt: str = "json") -> str:
    safe = "".join(c if c.isalnum() else "-" for c in session.entity.name.lower()).strip("-")
    safe = "-".join(x for x in safe.split("-") if x)[:40] or "session"
    ident = "".join(c for c in session.id[:6] if c.isalnum()) or "id"
    return f"mfact-{safe}-{session.language}-{ident}.{EXTENSIONS[fmt]}"


def written_text(path: Path) -> Text:
    """What the dialog shows after writing a page: its path and its `file://` link (literal text)."""
    from mfact.core.textsafe import clean_terminal

    uri = path.resolve().as_uri()
    t = Text("Written: ")
    t.append(clean_terminal(str(path), one_line=True), style="bold")
    t.append("\n")
    t.append(clean_terminal(uri, one_line=True), style=Style(link=uri, underline=True))
    return t


class ExportScreen(ModalScreen[Path | None]):
    """Ask for the path and the format; Enter or Export writes, Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export_cancel")]

    def __init__(self, session: Session, directory: str | Path | None = None):
        super().__init__()
        self.session = session
        self.directory = Path(directory) if directory else Path.cwd()
        self._confirm_overwrite: str | None = None
        self.written: Path | None = None       # the page written, once it is

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog"):
            yield Label("Export the session", id="export-title")
            with RadioSet(id="export-format"):
                yield RadioButton("mfact JSON (mfact import reads it)", value=True, id="fmt-json")
                yield RadioButton("FActScore format (JSON lines)", id="fmt-factscore")
                yield RadioButton("Web page (HTML: opens in any browser, offline)", id="fmt-html")
            yield Input(str(self.directory / default_export_name(self.session)), id="export-path")
            yield Label("", id="export-error")
            yield Label("", id="export-done")
            with Horizontal(id="export-buttons"):
                yield Button("Open in browser", id="export-open")
                yield Button("Export", variant="primary", id="export-ok")
                yield Button("Cancel", id="export-cancel")

    def on_mount(self) -> None:
        self.query_one("#export-open", Button).display = False
        inp = self.query_one("#export-path", Input)
        inp.focus()
        inp.cursor_position = len(inp.value)

    @property
    def fmt(self) -> str:
        for fmt in ("factscore", "html"):
            if self.query_one(f"#fmt-{fmt}", RadioButton).value:
                return fmt
        return "json"

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self) -> None:
        inp = self.query_one("#export-path", Input)
        p = Path(inp.value)
        stem = p.name.rsplit(".", 1)[0] if "." in p.name else p.name
        inp.value = str(p.with_name(f"{stem}.{EXTENSIONS[self.fmt]}"))
        self._confirm_overwrite = None

    @on(Input.Changed, "#export-path")
    def _path_changed(self) -> None:
        self._confirm_overwrite = None
        self.query_one("#export-error", Label).update("")
        self.query_one("#export-done", Label).update("")

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export-ok")
    def action_confirm(self) -> None:
        path = self.query_one("#export-path", Input).value
        try:
            out = export_session(self.session, path, self.fmt,
                                 overwrite=self._confirm_overwrite == path)
        except MfactError as exc:
            if "exists" in exc.message:
                self._confirm_overwrite = path
            self.query_one("#export-error", Label).update(Text(f"{exc.message}: {exc.hint}"))
            return
        self.app.notify(f"Exported to {out}", timeout=5, markup=False)
        if self.fmt != "html":
            self.dismiss(out)
            return
        # a page: say where it is and offer to open it; Close (or Escape) leaves
        self.written = out
        self.query_one("#export-done", Label).update(written_text(out))
        self.query_one("#export-open", Button).display = True
        self.query_one("#export-cancel", Button).label = "Close"

    @on(Button.Pressed, "#export-open")
    def action_open(self) -> None:
        if self.written is not None:
            self.app.open_url(self.written.resolve().as_uri())

    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        self.dismiss(self.written)
