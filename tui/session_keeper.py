"""A check screen's session in the store: saving it, the human labels the user sets with their
undo, and the changes other windows or processes make to the same session.

Two windows on one session: each label of a saved, finished session goes through the store's
label history (`Store.relabel`), and the window keeps the history seq of its own changes, so its
undo takes back exactly its own change (`Store.undo_label(seq=...)`), never another window's; an
undo over a label set elsewhere since is refused (LabelConflict) and shows the label there. A
window looks for changes made elsewhere once a second and on focus: one PRAGMA when nothing changed.
"""
from __future__ import annotations

import logging
from typing import Any

from mfact.core.errors import MfactError
from mfact.core.session import Fact, HumanLabel, Session
from mfact.core.store import LabelConflict

log = logging.getLogger("mfact.tui")

# (fact id, its label before, the store's history seq of this window's change or None)
Undo = tuple[str, HumanLabel | None, int | None]


class SessionKeeper:
    """`screen` gives the session (`screen.session`, kept by `screen.builder`), whether a run is
    going (`screen.running`) and the app (store, notifications)."""

    def __init__(self, screen: Any, saved: bool = False):
        self.screen = screen
        self.saved = saved
        self._known_stored = False
        self.undo_stack: list[Undo] = []
        self._seen: tuple | None = None     # (data_version, session revision) last seen

    @property
    def store(self):
        return self.screen.app.store

    def save(self) -> None:
        store = self.store
        if store is None:
            return
        try:
            store.save_session(self.screen.session)
            self.saved = self._known_stored = True
        except Exception as exc:  # noqa: BLE001 - keep the app alive; say what happened
            log.exception("saving the session failed")
            self.screen.app.notify(f"Could not save the session: {exc}", severity="error", markup=False)

    # ------------------------------------------------------------------ labels

    def relabel(self, f: Fact, label: str) -> None:
        prev = f.human
        f.human = HumanLabel(label)
        self.undo_stack.append((f.id, prev, self.persist(f)))

    def pop_undo(self) -> Undo | None:
        """This window's last label change, or None when there is none."""
        return self.undo_stack.pop() if self.undo_stack else None

    def restore(self, f: Fact, prev: HumanLabel | None, seq: int | None) -> None:
        """Give `f` its label `prev` back, in the store too: through the label history when the
        change went there, so that exactly this window's change is undone. When the fact was
        relabelled elsewhere since, `f` takes that label instead and a toast says so."""
        store, screen = self.store, self.screen
        done = False
        if seq is not None and store is not None and self.saved and not screen.running:
            try:
                done = store.undo_label(screen.session.id, seq=seq) is not None
            except LabelConflict as exc:
                f.human = HumanLabel(exc.label) if exc.label else None
                screen.notify(exc.message, timeout=4, markup=False)
                return
            except Exception:  # noqa: BLE001 - fall back to writing the previous label
                log.exception("undo in the store failed")
        f.human = prev
        if not done:
            self.persist(f)

    def persist(self, f: Fact) -> int | None:
        """Write the fact's human label to the store at once. The store's history seq of the change
        when it went through `relabel` (so that undo can take back exactly this change)."""
        store, screen = self.store, self.screen
        if store is None:
            return None
        try:
            if self.saved and not screen.running and self._in_store(store):
                return store.relabel(screen.session.id, f.id, f.human.label if f.human else None).seq
            self.save()     # a run's session, or one opened from a file: the whole session goes in
        except MfactError as exc:
            screen.app.notify(f"{exc.message}\n{exc.hint}", severity="error", markup=False)
            self.save()
        return None

    def _in_store(self, store) -> bool:
        """Whether the session is in the store (asked once: a session opened from an exported
        file is not, until its first label saves it)."""
        if not self._known_stored:
            self._known_stored = store.has_session(self.screen.session.id)
        return self._known_stored

    # ------------------------------------------------------------------ other windows

    def changes_elsewhere(self) -> list[Fact] | Session | None:
        """Take in what another window or process changed in this session in the store: the
        facts whose human label changed (now changed in `screen.builder`), or the session read
        back when it was replaced (re-imported with other facts; this window's undo is dropped).
        None when nothing changed, or the store could not say (busy or gone: the next tick
        tries again). Cheap when nothing changed: one PRAGMA (the first look reads the labels)."""
        store = self.store
        if store is None or not self.saved or self.screen.running:
            return None
        sid = self.screen.session.id
        try:
            version = store.data_version()
            if self._seen is not None and self._seen[0] == version:
                return None
            rev = store.session_revision(sid)
            same = self._seen is not None and rev == self._seen[1]
            self._seen = (version, rev)
            if same:      # the first look compares the store with what this window shows
                return None
            moved = self.screen.builder.take_labels(store.human_labels(sid))
            if moved is not None:
                return moved
            session = store.get_session(sid)
        except Exception:  # noqa: BLE001 - a busy or vanished store: try again at the next tick
            log.debug("store check failed", exc_info=True)
            return None
        self.undo_stack.clear()
        return session
