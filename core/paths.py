"""Where mfact keeps its files. `MFACT_HOME` (or `--home`) puts everything under one folder."""
from __future__ import annotations

import os
from pathlib import Path

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
