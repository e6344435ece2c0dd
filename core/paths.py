"""Where mfact keeps its files. `MFACT_HOME` (or `--home`) puts everything under one folder."""
from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import platformdirs

APP = "mfact"


def home_override() -> Path | None:
    h = os.environ.get("MFACT_HOME")
    return Path(h).expanduser() if h else None


def _dir(kind: str) -> Path:
    h = home_override()
    if h is not None:
        p = h / kind
    else:
        p = Path(getattr(platformdirs, f"user_{kind}_dir")(APP, appauthor=False))
    try:
        p.mkdir(parents=True, exist_ok=True)
        if not p.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "not a folder")
    except OSError as exc:
        from .errors import MfactError

        why = exc.strerror or str(exc)
        if isinstance(exc, (FileExistsError, NotADirectoryError)):
            why = "a file is in the way (not a folder)"
        where = f"MFACT_HOME={h}" if h is not None else "mfact's folder"
        raise MfactError(f"{where}: cannot make the folder {p}: {why[:1].lower() + why[1:]}",
                         "set MFACT_HOME (or --home) to a folder you can write") from None
    return p


def config_dir() -> Path:
    return _dir("config")


def data_dir() -> Path:
    return _dir("data")


def cache_dir() -> Path:
    return _dir("cache")


def state_dir() -> Path:
    return _dir("state")


def config_file() -> Path:
    return config_dir() / "config.toml"


def store_file() -> Path:
    return data_dir() / "sessions.sqlite3"


def log_file() -> Path:
    return state_dir() / "mfact.log"


def cached_json(name: str, build: Callable[[], Any], valid: Callable[[Any], bool] = lambda _v: True) -> Any:
    """The JSON file `name` of the cache folder, or `build()`'s value, then written there: to a temporary
    file of its own (two threads or processes building at once each write theirs), renamed into place.
    A file that cannot be read (read bounded: a FIFO or a device in its place is never read) or that
    `valid` refuses is built again; one that cannot be written only makes the next start slower."""
    from .errors import MfactError
    from .inputs import read_own

    path = cache_dir() / name
    try:
        raw = read_own(path, "the cache file", "it is built again")
        got = json.loads(raw) if raw is not None else None
        if raw is not None and valid(got):
            return got
    except (OSError, ValueError, RecursionError, MfactError):
        pass
    value = build()
    replace_file(path, json.dumps(value, ensure_ascii=False))
    return value


def replace_file(path: Path, text: str) -> bool:
    """Write a cache file: a temporary file of its own, renamed into place (whatever was there, a FIFO
    included, is replaced, never opened). False when it cannot be written."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:64]}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
        return True
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False
