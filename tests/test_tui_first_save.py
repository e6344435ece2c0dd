"""`mfact-tui --open FILE.json` of a big session the store does not hold: its first label saves the
whole session off the UI thread. Driven with Pilot on a real exported file and the real SQLite store;
the save is held by another connection holding the store's write lock (as another process writing
would), so each test knows the save has not finished when it looks."""
from __future__ import annotations

import contextlib
import sqlite3
import threading

import pytest
from _pilot import wait_for
from _sessions import papers_session

from mfact.core.config import Config
from mfact.core.formats import write_sessions
from mfact.core.session import Entity, Session
from mfact.core.store import Store
from mfact.tui.app import MfactApp, Services, load_session_arg
from mfact.tui.screens.check import CheckScreen

pytestmark = pytest.mark.anyio
N = 2_500           # facts: above the p-value limit, as the sessions this is for
SIZE = (140, 36)


@pytest.fixture
def anyio_backend():
    return "asyncio"


def exported(tmp_path) -> str:
    """A session exported to a file (as `e` in the app writes it) that the store does not hold."""
    s = papers_session(N)
    path = tmp_path / "big.json"
    write_sessions([s], path)
    return str(path)


class WriteLock:
    """Another connection holding the store's write lock: a save waits for it (busy timeout)."""

    def __init__(self, path):
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.held = False

    def hold(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.db.execute("ROLLBACK")


@contextlib.contextmanager
def write_lock(store: Store):
    lock = WriteLock(store.path)
    try:
        yield lock
    finally:
        lock.release()
        lock.db.close()


def app_store(busy_s: float) -> Store:
    store = Store()
    store._db.execute(f"PRAGMA busy_timeout={int(busy_s * 1000)}")   # a held save gives up after this
    return store


@contextlib.asynccontextmanager
async def opened(tmp_path, busy_s: float):
    """The exported session open in mfact-tui on a store whose save gives up after `busy_s`, and
    another connection ready to hold the store's write lock."""
    store = app_store(busy_s)
    app = MfactApp(Config(workers=1), session=load_session_arg(exported(tmp_path)), services=Services(store=store))
    with write_lock(store) as lock:
        async with app.run_test(size=SIZE) as pilot:
            yield app, pilot, lock


def read(sql: str, *args) -> list[tuple]:
    """What another process reading the store sees (a read never waits for the write lock)."""
    from mfact.core import paths

    db = sqlite3.connect(f"file:{paths.store_file()}?mode=ro", uri=True)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def stored(sid: str, n: int = 4) -> list[str | None] | None:
    """The first `n` facts' human labels in the store, None when it does not hold the session."""
    if not read("SELECT 1 FROM sessions WHERE id=?", sid):
        return None
    labels = dict(read("SELECT id, human_label FROM facts WHERE session_id=?", sid))
    return [labels[f"f{i}"] for i in range(n)]


def history(sid: str) -> list[tuple]:
    return read("SELECT fact_id, old_label, new_label FROM label_history WHERE session_id=? ORDER BY seq", sid)


def shown(scr: CheckScreen, n: int = 4) -> list[str | None]:
    return [f.human.label if f.human else None for f in scr.session.facts[:n]]


def recorded_notices(app) -> list[str]:
    """Every message `app` is asked to notify from now on."""
    said: list[str] = []
    notify = app.notify

    def record(message, *args, **kwargs):
        said.append(str(message))
        return notify(message, *args, **kwargs)

    app.notify = record
    return said


def errors(app) -> list:
    return [n for n in app._notifications if n.severity == "error"]


async def test_labels_pressed_while_the_first_save_runs_land_in_order(tmp_path):
    path = exported(tmp_path)
    store = app_store(busy_s=20)
    a = MfactApp(Config(workers=1), session=load_session_arg(path), services=Services(store=store))
    b = MfactApp(Config(workers=1), session=load_session_arg(path), services=Services(store=Store()))  # a second window
    with write_lock(store) as lock:
        async with a.run_test(size=SIZE) as pa, b.run_test(size=SIZE) as pb:
            sa, sb = a.screen, b.screen
            sid = sa.session.id
            said_a, said_b = recorded_notices(a), recorded_notices(b)
            assert isinstance(sa, CheckScreen) and stored(sid) is None
            lock.hold()
            await pa.press("n")         # the first label: the whole session goes in, off the UI thread
            # the key was handled and drawn while the save waits for the lock
            assert shown(sa) == ["NS", None, None, None] and stored(sid) is None and not errors(a)
            await pa.press("j", "s", "j", "i", "u", "u", "u")   # two labels, then three undos
            assert sa.selected == "f0" and shown(sa) == [None, None, None, None]
            await pa.press("s", "j", "j", "n", "j", "i", "u")
            assert shown(sa) == ["S", None, "NS", None]
            assert not sa.check_store()             # the store is behind: no look now
            await pa.pause(1.2)                     # nor at the next tick
            assert shown(sa) == ["S", None, "NS", None] and stored(sid) is None
            lock.release()
            Store().save_session(Session(language="en", entity=Entity("Pierre Curie"), text="x"))
            await wait_for(pa, lambda: stored(sid) == ["S", None, "NS", None], timeout=10)
            await wait_for(pa, lambda: not sa.keeper.saving, timeout=10)
            # exactly what saving at the first key would have written: the first label went in with
            # the session, the others through the label history, each undone one taken out of it
            assert history(sid) == [("f0", "NS", None), ("f0", None, "S"), ("f2", None, "NS")]
            # this window takes nothing back from the store and says nothing about other windows
            sa.check_store()
            assert shown(sa) == ["S", None, "NS", None]
            assert not [m for m in said_a if "elsewhere" in m or "another window" in m]
            # the second window sees labels changed, never a session replaced elsewhere
            await wait_for(pb, lambda: shown(sb) == ["S", None, "NS", None], timeout=10)
            # (as said, not as still shown: a notice leaves after 4 s, which a loaded machine can take)
            assert any("changed in another window" in m for m in said_b)
            assert not [m for m in said_b if "replaced elsewhere" in m]
            # undo of a label that waited for the save: through the history seq it got
            await pa.press("u")
            assert shown(sa) == ["S", None, None, None]
            assert stored(sid) == ["S", None, None, None]
            assert history(sid) == [("f0", "NS", None), ("f0", None, "S")]
            assert not errors(a)


async def test_quit_while_the_first_save_runs_waits_for_it(tmp_path):
    async with opened(tmp_path, busy_s=20) as (app, pilot, lock):
        scr = app.screen
        sid = scr.session.id
        lock.hold()
        await pilot.press("n", "j", "s", "u", "j", "i")
        assert shown(scr) == ["NS", None, "IR", None] and stored(sid) is None and not errors(app)
        threading.Timer(0.5, lock.release).start()      # the other writer finishes meanwhile
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, timeout=10)
    assert stored(sid) == ["NS", None, "IR", None]
    assert history(sid) == [("f2", None, "IR")]
    assert read("SELECT n_facts FROM sessions WHERE id=?", sid) == [(N,)]


async def test_a_failed_first_save_says_so_once_and_the_next_label_saves_everything(tmp_path):
    async with opened(tmp_path, busy_s=1.5) as (app, pilot, lock):
        scr = app.screen
        sid = scr.session.id
        lock.hold()                             # held past the busy timeout: the save fails
        await pilot.press("n")
        assert not errors(app)                  # the key did not wait for the failure
        await pilot.press("j", "s")
        await wait_for(pilot, lambda: errors(app), timeout=10)
        lock.release()
        await pilot.pause(0.3)
        (err,) = errors(app)
        assert err.message.startswith("Could not save the session: the session store")
        assert "is locked: another mfact process is writing to it" in err.message
        assert "the labels are kept here; the next label tries again" in err.message
        assert err.markup is False
        assert shown(scr) == ["NS", "S", None, None]
        await pilot.press("j", "i")             # the next label saves the whole session again
        await wait_for(pilot, lambda: stored(sid) == ["NS", "S", "IR", None], timeout=10)
        await wait_for(pilot, lambda: not scr.keeper.saving, timeout=10)
        await pilot.press("u", "u")              # IR, then S: through the store
        assert stored(sid) == ["NS", None, None, None]
        assert len(errors(app)) == 1


async def test_quit_after_a_failed_first_save_saves_the_labels(tmp_path):
    async with opened(tmp_path, busy_s=1.5) as (app, pilot, lock):
        scr = app.screen
        sid = scr.session.id
        lock.hold()
        await pilot.press("n", "j", "s")
        await wait_for(pilot, lambda: errors(app), timeout=10)
        lock.release()                          # the other writer is done; no label since
        await pilot.press("q")                  # quitting saves what the window holds
        await wait_for(pilot, lambda: not app.is_running, timeout=10)
    assert stored(sid) == ["NS", "S", None, None]
    assert len(errors(app)) == 1


async def test_a_failed_look_at_the_store_is_tried_again(tmp_path):
    """A look at the store that fails (busy, or a save read half-way) marks nothing as seen: the
    next tick looks again, and the labels another window saved arrive, with the notice. Before, the
    failed look recorded the store's version as seen, and with no later write the labels never came."""
    from mfact.core.errors import MfactError
    path = exported(tmp_path)
    fails: list[str] = []

    class Flaky(Store):          # fails the first look that would bring the new label
        def human_labels(self, session_id):
            labels = super().human_labels(session_id)
            if labels and not fails:
                fails.append(session_id)
                raise MfactError("database is locked", "try again")
            return labels

    a = MfactApp(Config(workers=1), session=load_session_arg(path), services=Services(store=Store()))
    b = MfactApp(Config(workers=1), session=load_session_arg(path), services=Services(store=Flaky()))
    async with a.run_test(size=SIZE) as pa, b.run_test(size=SIZE) as pb:
        sa, sb = a.screen, b.screen
        sid = sa.session.id
        said_b = recorded_notices(b)
        await pa.press("n")
        await wait_for(pa, lambda: stored(sid) == ["NS", None, None, None], timeout=10)
        await wait_for(pb, lambda: shown(sb) == ["NS", None, None, None], timeout=10)
        assert fails == [sid]
        assert any("changed in another window" in m for m in said_b)
