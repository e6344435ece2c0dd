"""A check screen's session in the store: saving it, the human labels the user sets with their
undo, and the changes other windows or processes make to the same session.

Two windows on one session: each label of a saved, finished session goes through the store's
label history (`Store.relabel`), and the window keeps the history seq of its own changes, so its
undo takes back exactly its own change (`Store.undo_label(seq=...)`), never another window's; an
undo over a label set elsewhere since is refused (LabelConflict) and shows the label there. A
window looks for changes made elsewhere once a second and on focus: one PRAGMA when nothing changed.

A session opened from an exported file is not in the store until its first label saves it whole
(20,000 facts: about 0.35 s). That save runs in a Textual thread worker (`_first_save`), from a copy
of the session taken on the UI thread (the facts' labels as they were at that key); the labels and
undos pressed meanwhile wait in a queue that the same worker writes after the save, in order, so
the store ends exactly as if the save had been synchronous. While it runs, the UI thread asks the
store nothing (the store serialises its calls: a question would wait for the save): no look for
changes elsewhere, whose compare of a store without the queued labels would take them back. A
failure says so once; the labels stay in the window and the next label saves the whole session
again. Quitting waits for the save (`settle`).
"""
from __future__ import annotations

import collections
import copy
import dataclasses
import logging
import threading
from functools import partial
from typing import TYPE_CHECKING

from mfact.core.errors import MfactError
from mfact.core.session import Fact, HumanLabel, Session
from mfact.core.store import LabelConflict

log = logging.getLogger("mfact.tui")

if TYPE_CHECKING:  # pragma: no cover
    from .base import MfactScreen
    from .screens.check_view import CheckView


class Pending:
    """A label change queued behind the first save: the store's history seq once written."""
    __slots__ = ("seq",)

    def __init__(self) -> None:
        self.seq: int | None = None


# (fact id, its label before, the store's history seq of this window's change, a Pending while it
# waits for the first save, or None)
Undo = tuple[str, HumanLabel | None, int | Pending | None]


class SessionKeeper:
    """The view's session (kept by its builder) and whether a run is going come from `view`; the
    store, notifications and workers from the screen's app."""

    def __init__(self, screen: MfactScreen, view: CheckView, saved: bool = False):
        self.screen = screen
        self.view = view
        self.saved = saved
        self._known_stored = False
        self._stale = False     # a first save or a change behind it failed: the next label saves all
        self.undo_stack: list[Undo] = []
        self._seen: tuple | None = None     # (data_version, session revision) last seen
        self._look_failed: str | None = None     # the last failure of `changes_elsewhere`, logged once
        self._lock = threading.Lock()       # guards the queue and the end of the first save
        self._flight: threading.Event | None = None     # set when the first save is over
        self._queue: collections.deque = collections.deque()

    @property
    def saving(self) -> bool:
        """Whether the first save of a session opened from a file is running (off the UI thread)."""
        return self._flight is not None

    @property
    def store(self):
        return self.screen.mfact.store

    def save(self) -> None:
        store = self.store
        if store is None:
            return
        self.wait()
        try:
            store.save_session(self.view.session)
            self.saved = self._known_stored = True
            self._stale = False
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

    def restore(self, f: Fact, prev: HumanLabel | None, seq: int | Pending | None) -> None:
        """Give `f` its label `prev` back, in the store too: through the label history when the
        change went there, so that exactly this window's change is undone. When the fact was
        relabelled elsewhere since, `f` takes that label instead and a toast says so."""
        store, screen = self.store, self.screen
        if seq is not None and store is not None:
            with self._lock:
                if self._flight is not None:        # behind the first save, in order
                    f.human = prev
                    self._queue.append(("undo", f.id, prev.label if prev else None, seq))
                    return
            if isinstance(seq, Pending):
                seq = seq.seq
        done = False
        if seq is not None and store is not None and self.saved and not self.view.running:
            try:
                done = store.undo_label(self.view.session.id, seq=seq) is not None
            except LabelConflict as exc:
                f.human = HumanLabel(exc.label) if exc.label else None
                screen.notify(exc.message, timeout=4, markup=False)
                return
            except Exception:  # noqa: BLE001 - fall back to writing the previous label
                log.exception("undo in the store failed")
        f.human = prev
        if not done:
            self.persist(f)

    def persist(self, f: Fact) -> int | Pending | None:
        """Write the fact's human label to the store at once. The store's history seq of the change
        when it went through `relabel` (so that undo can take back exactly this change); a Pending
        that gets it when the change waits for the first save."""
        store, screen = self.store, self.screen
        if store is None:
            return None
        label = f.human.label if f.human else None
        with self._lock:
            if self._flight is not None:
                pending = Pending()
                self._queue.append(("set", f.id, label, pending))
                return pending
        try:
            if self.saved and not self.view.running:
                if self._stale or not self._in_store(store):
                    self._start_first_save(store)   # one opened from a file: the whole session goes in
                    return None
                return store.relabel(self.view.session.id, f.id, label).seq
            self.save()     # a run's session: the whole session goes in
        except MfactError as exc:
            screen.app.notify(f"{exc.message}\n{exc.hint}", severity="error", markup=False)
            self.save()
        return None

    # ------------------------------------------------------------------ the first save, off the UI thread

    def _start_first_save(self, store) -> None:
        session = self.view.session
        snap = copy.copy(session)
        humans = [f.human for f in session.facts]     # the labels as they are at this key
        self._stale = False
        self._flight = done = threading.Event()
        # a Textual thread worker: the interpreter waits for it at exit, whatever ends the app
        self.screen.run_worker(partial(self._first_save, store, self.screen.app, session, snap, humans, done),
                               name="first-save", description="the first save of a session opened from a file",
                               thread=True, group="first-save", exit_on_error=False)

    def _first_save(self, store, app, session: Session, snap: Session, humans: list,
                    done: threading.Event) -> None:
        try:
            self._save_and_follow(store, app, session, snap, humans)
        except Exception as exc:  # noqa: BLE001 - said once; the window keeps the labels
            log.exception("saving the session failed")
            self._failed(app, f"Could not save the session: {exc}")
        finally:
            done.set()

    def _save_and_follow(self, store, app, session: Session, snap: Session, humans: list) -> None:
        """The save and then the changes queued behind it, in order (in the save's thread)."""
        # new facts with the labels of that key (copy.copy of 20,000 facts took 80 ms, this 30)
        snap.facts = [dataclasses.replace(f, human=h) for f, h in zip(snap.facts, humans)]
        store.save_session(snap)
        if snap.name and not session.name:      # the name the store had for it (save_session)
            session.name = snap.name
        sid = snap.id
        while True:
            with self._lock:
                if not self._queue:
                    self.saved = self._known_stored = True
                    self._flight = None
                    return
                op = self._queue.popleft()
            try:
                self._write(store, app, sid, op)
            except Exception as exc:  # noqa: BLE001
                log.exception("writing a label after the first save failed")
                return self._failed(app, f"Could not save a label: {exc}")

    def _write(self, store, app, sid: str, op: tuple) -> None:
        kind, fact_id, label, ref = op
        if kind == "set":
            ref.seq = store.relabel(sid, fact_id, label).seq
            return
        seq = ref.seq if isinstance(ref, Pending) else ref
        if seq is not None:
            try:
                if store.undo_label(sid, seq=seq) is not None:
                    return
            except LabelConflict as exc:    # the window's next look for changes shows the label there
                app.notify(exc.message, timeout=4, markup=False)
                return
        store.relabel(sid, fact_id, label)

    def _failed(self, app, message: str) -> None:
        with self._lock:
            self._queue.clear()
            self._stale = True
            self._known_stored = False
            self._flight = None
        app.notify(f"{message} (the labels are kept here; the next label tries again)",
                   severity="error", markup=False)

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the first save and the changes queued behind it."""
        flight = self._flight
        if flight is not None:
            flight.wait(timeout)

    def settle(self) -> None:
        """Before the window goes (quit, a new check): the first save done, and when it failed,
        one more try at saving the whole session."""
        self.wait()
        if self._stale:
            self.save()

    def _in_store(self, store) -> bool:
        """Whether the session is in the store (asked once: a session opened from an exported
        file is not, until its first label saves it)."""
        if not self._known_stored:
            self._known_stored = store.has_session(self.view.session.id)
        return self._known_stored

    # ------------------------------------------------------------------ other windows

    def changes_elsewhere(self) -> list[Fact] | Session | None:
        """Take in what another window or process changed in this session in the store: the
        facts whose human label changed (now changed in `self.view.builder`), or the session read
        back when it was replaced (re-imported with other facts; this window's undo is dropped).
        None when nothing changed, or the store could not say (busy or gone: the next tick
        tries again). Cheap when nothing changed: one PRAGMA (the first look reads the labels)."""
        store = self.store
        if store is None or not self.saved or self.view.running or self._flight is not None or self._stale:
            return None         # while the first save runs or after it failed the store is behind
        sid = self.view.session.id
        try:
            version = store.data_version()
            if self._seen is not None and self._seen[0] == version:
                return None
            rev = store.session_revision(sid)
            same = self._seen is not None and rev == self._seen[1]
            self._seen = (version, rev)
            self._look_failed = None
            if same or rev == (None,):   # the first look compares the store with this window; (None,): not in it
                return None
            moved = self.view.builder.take_labels(store.human_labels(sid))
            if moved is not None:
                return moved
            session = store.get_session(sid)
        except Exception as exc:  # noqa: BLE001 - a busy or vanished store: try again at the next tick
            why = f"{type(exc).__name__}: {exc}"
            if why != self._look_failed:         # told once, not at every tick (each second)
                log.warning("checking the store for changes to session %s failed: %s", sid, why,
                            exc_info=True)
                self._look_failed = why
            self._seen = None       # ... with a first look: this version was not taken in
            return None
        self.undo_stack.clear()
        return session
