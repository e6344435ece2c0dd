"""The adaptation file's lock: `adaptation.json.lock` beside it, held (fcntl.flock) around every
read-modify-write of the file, so that `mfact learn --lang en` and `--lang es` run at once keep
each other's languages and get versions of their own.

The lock file also holds the number of the last write: a damaged adaptation file loses its own
number, and the next write must not take a number (and so a version) that was given before.
Where flock is missing (Windows), the lock is a no-op: a single user there runs one learn at a time.
"""
from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path
from typing import Iterator

from ..errors import MfactError

try:
    import fcntl
except ImportError:                    # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

WAIT_S = 120.0          # longer than any learn's write step; then a clear line instead of a hang


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


class Held:
    """The lock while it is held: the last write's number it records, and `record` for the next."""

    def __init__(self, fd: int, path: Path):
        self.fd = fd
        self.path = path

    def last_number(self) -> int:
        try:
            os.lseek(self.fd, 0, os.SEEK_SET)
            raw = os.read(self.fd, 32)
            return max(0, int(raw.decode("ascii").strip() or 0))
        except (OSError, ValueError, UnicodeDecodeError):
            return 0

    def record(self, number: int) -> None:
        try:
            os.lseek(self.fd, 0, os.SEEK_SET)
            os.ftruncate(self.fd, 0)
            os.write(self.fd, f"{number}\n".encode("ascii"))
        except OSError:
            pass                      # the numbers then come from the adaptation file alone


@contextlib.contextmanager
def locked(path: Path, wait_s: float = WAIT_S) -> Iterator[Held]:
    """Hold the lock of the adaptation file `path` (waiting for another holder at most `wait_s`)."""
    lock = lock_path(path)
    hint = "check the permissions of the folder, or remove the lock file if it is not a file"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0),
                     0o644)
    except OSError as exc:
        raise MfactError(f"cannot open the lock file {lock}: {exc.strerror or exc}", hint) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise MfactError(f"the lock file {lock} is not a regular file", hint)
        _take(fd, lock, wait_s)
        yield Held(fd, lock)
    finally:
        os.close(fd)                   # closing it lets the lock go


def _take(fd: int, lock: Path, wait_s: float) -> None:
    if fcntl is None:                  # pragma: no cover - Windows
        return
    end = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= end:
                raise MfactError(f"another mfact process has held {lock} for {wait_s:.0f} s",
                                 "wait for the other `mfact learn` to end, then run it again") from None
            time.sleep(0.05)
        except OSError as exc:
            raise MfactError(f"cannot lock {lock}: {exc.strerror or exc}") from None
