"""The start screen's two tables: the languages (filtered as you type, the selection kept) and the
recent sessions of the store."""
from __future__ import annotations

from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from mfact.core.languages import ALL_LANGUAGES, get_language
from mfact.core.store import Store

from ..render import fmt_pct, one_line


class LanguageTable(DataTable):
    """Every language mfact offers: code, name, native name, resources (and "generic" for one without
    word tables of its own); one row per language."""

    def __init__(self, id: str) -> None:
        super().__init__(id=id, cursor_type="row")
        self.last = "en"          # the language selected last (kept while a filter hides it)

    def setup(self) -> None:
        self.add_column("code", key="code", width=4)
        self.add_column("language", key="name")
        self.add_column("native", key="native")
        self.add_column("resources", key="res")

    def fill(self, query: str) -> None:
        """The languages matching `query` (any of their names or codes), the selection kept."""
        current = self.selected()
        self.clear()
        q = query.strip().lower()
        for lang in ALL_LANGUAGES:
            res = lang.resource if lang.tables else f"{lang.resource} · generic"
            hay = f"{lang.code} {lang.name} {lang.native} {res}".lower()
            if q and q not in hay:
                continue
            self.add_row(lang.code, lang.name, Text(lang.native), res, key=lang.code)
        if current in self.rows:
            self.move_cursor(row=self.get_row_index(current), animate=False)

    def selected(self) -> str:
        if not self.row_count:
            return self.last
        try:
            code = self.coordinate_to_cell_key(Coordinate(self.cursor_row, 0)).row_key.value
        except Exception:  # noqa: BLE001 - no row under the cursor
            code = None
        self.last = code or self.last
        return self.last

    def select(self, code: str) -> None:
        code = get_language(code).code
        self.fill("")
        self.move_cursor(row=self.get_row_index(code), animate=False)
        self.last = code


class RecentSessions(DataTable):
    """The store's recent sessions: title, language, facts, FActScore, model, created, status."""

    def __init__(self, id: str) -> None:
        super().__init__(id=id, cursor_type="row")

    def setup(self) -> None:
        for key, label in (("title", "session"), ("lang", "lang"), ("facts", "facts"),
                           ("fs", "FActScore"), ("model", "model"), ("created", "created"),
                           ("status", "status")):
            self.add_column(label, key=key)

    def fill(self, store: Store | None) -> str | None:
        """The newest 100 sessions; the error when the store cannot list them, else None."""
        self.clear()
        if store is None:
            return None
        try:
            rows = store.list_sessions(limit=100)
        except Exception as exc:  # noqa: BLE001
            return str(exc)
        for s in rows:
            self.add_row(Text(one_line(s.title, 40)), s.language, str(s.n_facts),
                         fmt_pct(s.factscore), Text(one_line(s.model, 24)),
                         (s.created_at or "")[:16].replace("T", " "), s.status, key=s.id)
        return None

    def selected_id(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(Coordinate(self.cursor_row, 0)).row_key.value
