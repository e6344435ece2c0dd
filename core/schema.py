"""The schema layer under `session` and `figures`: the error a malformed document raises, the JSON
type names its messages use, and the readers of one field each (which name the field that is
wrong: `facts[3].span: must be [start, end) as two integers`)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from .errors import MfactError
from .inputs import CONTROL_OR_TAB

LABELS = ("S", "NS", "IR")


class SessionFormatError(MfactError, ValueError):
    """A session document is malformed. `where` names the field (e.g. `facts[3].span`)."""

    def __init__(self, where: str, message: str):
        self.where = where
        self.message = message
        self.hint = ""
        ValueError.__init__(self, f"{where}: {message}" if where else message)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")



# --------------------------------------------------------------------------- field readers


def json_type(v: Any) -> str:
    """The JSON name of a parsed value's type, for messages ("a string", "null")."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def shown(v: Any) -> str:
    """A short JSON-like rendering of a bad value for a message."""
    if v is None or isinstance(v, bool):
        return {None: "null", True: "true", False: "false"}[v]
    if isinstance(v, (list, dict)):
        return json_type(v)
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def json_object(d: Any, where: str) -> dict:
    if not isinstance(d, dict):
        raise SessionFormatError(where, f"must be an object, got {json_type(d)}")
    return d


def field_name(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def opt_obj(d: dict, key: str, where: str) -> dict:
    """An optional object field: missing or null is {}, anything but an object is refused."""
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise SessionFormatError(field_name(where.rstrip("."), key), f"must be an object, got {json_type(v)}")
    return v


def opt_list(d: dict, key: str, where: str) -> list:
    v = d.get(key)
    if v is None:
        return []
    if not isinstance(v, list):
        raise SessionFormatError(field_name(where.rstrip("."), key), f"must be a list, got {json_type(v)}")
    return v


def text_field(d: dict, key: str, where: str, default: str = "") -> str:
    """An optional string field: missing or null is `default`; any other type is refused."""
    v = d.get(key)
    if v is None:
        return default
    if not isinstance(v, str):
        raise SessionFormatError(field_name(where, key), f"must be a string, got {json_type(v)}")
    return v


def time_field(d: dict, key: str, where: str) -> str:
    """An ISO 8601 time (missing, null or empty: now)."""
    v = text_field(d, key, where)
    if not v:
        return now_iso()
    try:
        datetime.fromisoformat(v)
    except ValueError:
        raise SessionFormatError(field_name(where, key), f"{shown(v)} is not an ISO 8601 time"
                                 " (e.g. 2026-01-31T12:00:00+00:00)") from None
    return v


def limited(v: str, limit: int, where: str) -> str:
    if len(v) > limit:
        raise SessionFormatError(where, f"{len(v):,} characters is over the limit of {limit:,}")
    return v


def id_field(d: dict, where: str) -> str:
    v = str_field(d, "id", where)
    bad = CONTROL_OR_TAB.search(v)
    if bad:
        raise SessionFormatError(field_name(where, "id"), f"holds a control character (U+{ord(bad.group()):04X})")
    return v


def str_field(d: dict, key: str, where: str) -> str:
    v = d.get(key)
    if not isinstance(v, str) or (key in ("id", "name", "language") and not v.strip()):
        raise SessionFormatError(f"{where}.{key}" if where else key, "must be a non-empty string"
                                 if key in ("id", "name", "language") else "must be a string")
    return v


def opt_str(d: dict, key: str, where: str) -> str | None:
    v = d.get(key)
    if v is None:
        return None
    if not isinstance(v, str):
        raise SessionFormatError(f"{where}.{key}", "must be a string or null")
    return v


def label_field(v: Any, where: str) -> str:
    if v not in LABELS:
        raise SessionFormatError(where, f"unknown label {v!r}; one of S, NS, IR")
    return v
