"""What went wrong with the session store, in one line that names the real cause.

SQLite says why an operation failed in its result code (`sqlite3.Error.sqlite_errorcode`): a full
disk, a read-only file or folder, a lock another process holds, a damaged file. Each gets its own
line and its own advice. Only a store that really is damaged (or not a store at all) is ever
advised to be moved away: a store on a full disk or behind a lock is intact, and moving it would
only hide the user's sessions.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from .errors import MfactError

BUSY_TIMEOUT_S = 5.0      # how long an operation waits for another process's write lock

_FULL, _READONLY, _BUSY, _LOCKED = sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_BUSY, \
    sqlite3.SQLITE_LOCKED
_CORRUPT, _NOTADB, _CANTOPEN, _IOERR = sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CANTOPEN, \
    sqlite3.SQLITE_IOERR
_PERM, _AUTH = sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH


def about_the_store(exc: BaseException | None) -> bool:
    """Whether a SQLite error is about the store (its disk, lock or file), not about the data
    written (an IntegrityError is mfact's own bug, raised as it is)."""
    return isinstance(exc, sqlite3.OperationalError) or type(exc) is sqlite3.DatabaseError


def result_code(exc: BaseException) -> int:
    """SQLite's primary result code of an error (0 when it carries none)."""
    return int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


def store_error(exc: sqlite3.Error, path: Path | str, doing: str = "") -> MfactError:
    """One MfactError naming what happened to the store at `path` (`doing`: what mfact was doing,
    e.g. "saving the sessions"), from SQLite's result code or, for errors without one, its text."""
    code = result_code(exc)
    text = str(exc)
    low = text.lower()
    during = f" while {doing}" if doing else ""
    disk = disk_state(path) if code in (_CANTOPEN, _IOERR, _FULL, _READONLY) else ""
    if disk == "read-only":
        code = _READONLY        # SQLite says "unable to open" when it cannot create the -wal file
    elif disk == "full":
        code = _FULL
    if code == _FULL or "database or disk is full" in low or "no space" in low:
        return MfactError(f"the disk holding the session store {path} is full{during}; nothing was written"
                          " and the store is intact", "free some space on that disk and try again")
    if code in (_BUSY, _LOCKED) or "database is locked" in low:
        return MfactError(f"the session store {path} is locked: another mfact process is writing to it"
                          f"{during}; nothing was changed",
                          "wait for it to finish (an import, a run, mfact-tui saving a label) and try again")
    if code in (_READONLY, _PERM, _AUTH) or "readonly" in low or "read-only" in low:
        return MfactError(f"the session store {path} is read-only here ({text}){during}; mfact writes to"
                          " it when it opens and saves every label at once",
                          "give this user write access to the file and its folder, or use another --home"
                          " / MFACT_HOME (a copy of the file works)")
    if code == _NOTADB or "not a database" in low:
        return MfactError(f"the session store {path} is not a readable mfact store ({text}){during}",
                          "move the file away (mfact starts a new store) or use another --home")
    if code == _CORRUPT or "malformed" in low:
        return MfactError(f"the session store {path} is damaged ({text}){during}",
                          "restore it from a backup; or move it away (mfact starts a new one) and recover"
                          " what can be read from the old file with sqlite3's .recover")
    if code == _CANTOPEN:
        return MfactError(f"cannot open the session store {path} ({text}){during}",
                          "check that its folder exists and this user may write there, or use another --home")
    if code == _IOERR or "disk i/o error" in low:
        return MfactError(f"the disk holding the session store {path} failed to read or write{during} ({text})",
                          "check that disk (is it full, removed or failing?) and try again")
    return MfactError(f"the session store {path} failed{during}: {text}",
                      "try again; if it persists, see the log (--verbose)")


def disk_state(path: Path | str) -> str:
    """"read-only" when the store's folder cannot be written (a read-only mount, no permission),
    "full" when its disk has less than 64 KB free, else ""."""
    folder = Path(path).parent
    try:
        st = os.statvfs(folder)
    except OSError:
        return ""
    if st.f_flag & os.ST_RDONLY or not os.access(folder, os.W_OK):
        return "read-only"
    if st.f_bavail * st.f_frsize < 64 * 1024:
        return "full"
    return ""


def quick_check(db: sqlite3.Connection, path: Path | str, doing: str) -> None:
    """Refuse to go on (`doing`, e.g. "importing") with a store that fails `PRAGMA quick_check`."""
    try:
        rows = [str(r[0]) for r in db.execute("PRAGMA quick_check(5)")]
    except sqlite3.Error as exc:
        raise store_error(exc, path, doing) from None
    if rows != ["ok"]:
        raise MfactError(f"the session store {path} is damaged (SQLite's quick_check: {rows[0][:120]});"
                         f" refused {doing}, nothing was written",
                         "restore it from a backup; or move it away (mfact starts a new one) and recover"
                         " what can be read from the old file with sqlite3's .recover")


class StoreLock:
    """The store's re-entrant lock (one connection shared by threads), whose `with` block also turns
    a SQLite error into `store_error`'s one line: every read of the store names the real cause."""

    def __init__(self, path: Path | str):
        self.path = path
        self._lock = threading.RLock()

    def acquire(self) -> bool:
        return self._lock.acquire()

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> "StoreLock":
        self._lock.acquire()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._lock.release()
        if about_the_store(exc):
            assert isinstance(exc, sqlite3.Error)
            raise store_error(exc, self.path, "reading") from None
