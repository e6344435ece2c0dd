"""Where mfact keeps its files. `MFACT_HOME` (or `--home`) puts everything under one folder."""
from __future__ import annotations

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
    p.mkdir(parents=True, exist_ok=True)
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
    A file that cannot be read or that `valid` refuses is built again; one that cannot be written only
    makes the next start slower."""
    path = cache_dir() / name
    try:
        got = json.loads(path.read_text(encoding="utf-8"))
        if valid(got):
            return got
    except (OSError, ValueError):
        pass
    value = build()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(value, fh, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return value
