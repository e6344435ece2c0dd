"""The store's automatic verdicts as data: the labelled facts that learning reads (core/adapt) and
the writing of new verdicts (`mfact rejudge`), which never touches a human label. A part of
`Store` (core/store.py), kept apart so that the store's class stays readable."""
from __future__ import annotations

import json
import sqlite3
from typing import Any, Sequence

from .figures import Metrics
from .errors import MfactError
from .schema import SessionFormatError
from .session import Adapted, Evidence, Verdict, features_field, now_iso


class StoreVerdicts:
    """Mixed into `Store`: uses its connection (`_db`), lock, `_tx` and `_refresh_score`."""

    _db: sqlite3.Connection
    _lock: Any             # a StoreLock (core/store_errors.py)

    def _tx(self) -> Any:
        raise NotImplementedError

    def _refresh_score(self, db: sqlite3.Connection, session_id: str) -> None:
        raise NotImplementedError

    def labelled_facts(self) -> list[tuple]:
        """Every fact a person labelled that has an automatic verdict, for learning from the
        labels (core/adapt): (session id, fact id, language, fact text, human label, auto label,
        auto confidence, auto verifier, auto reason, auto marks JSON, auto adaptation JSON, auto
        features JSON: `Verdict.features`, NULL when the verdict has none; `features_of` reads it)."""
        with self._lock:
            return self._db.execute(
                "SELECT f.session_id, f.id, s.language, f.text, f.human_label, f.auto_label,"
                " f.auto_confidence, f.auto_verifier, f.auto_reason, f.auto_marks, f.auto_adaptation, f.auto_features"
                " FROM facts f JOIN sessions s ON s.id = f.session_id"
                " WHERE f.human_label IS NOT NULL AND f.auto_label IS NOT NULL"
                " ORDER BY s.created_at, s.rowid, f.pos").fetchall()

    def update_verdicts(self, session_id: str, verdicts: dict[str, Verdict], evidence: Sequence[Evidence] = (),
                        metrics: Metrics | None = None) -> None:
        """Write new automatic verdicts of a session's facts (`mfact rejudge`), the passages they
        cite that the store lacks, and the session's metrics, in one transaction. Human labels
        and their history are not touched."""
        with self._tx() as db:
            if db.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone() is None:
                raise MfactError(f"no session {session_id!r} in the store", "see `mfact sessions list`")
            pos = db.execute("SELECT COALESCE(MAX(pos), -1) + 1 FROM evidence WHERE session_id=?",
                             (session_id,)).fetchone()[0]
            db.executemany(
                "INSERT OR IGNORE INTO evidence(session_id, id, pos, source, lang, title, url, section, text,"
                " score) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [(session_id, e.id, pos + i, e.source, e.lang, e.title, e.url, e.section, e.text, e.score)
                 for i, e in enumerate(evidence)])
            db.executemany(
                "UPDATE facts SET auto_label=?, auto_confidence=?, auto_verifier=?, auto_evidence=?,"
                " auto_reason=?, auto_marks=?, auto_adaptation=?, auto_features=? WHERE session_id=? AND id=?",
                [(*_auto_row(v), session_id, fid) for fid, v in verdicts.items()])
            sets, args = "updated_at=?", [now_iso()]
            if metrics is not None:
                figures = json.dumps(metrics.to_dict(), ensure_ascii=False, default=str)
                sets, args = sets + ", metrics_json=?", args + [figures]
            db.execute(f"UPDATE sessions SET {sets} WHERE id=?", (*args, session_id))
            self._refresh_score(db, session_id)


def _auto_row(v: Verdict | None) -> tuple:
    """The facts table's auto_* columns of a verdict: label, confidence, verifier, evidence,
    reason, marks, adaptation, features."""
    if v is None:
        return (None,) * 8
    adaptation = json.dumps(v.adaptation.to_dict(), ensure_ascii=False) if v.adaptation is not None else None
    return (v.label, v.confidence, v.verifier, json.dumps(v.evidence, ensure_ascii=False), v.reason,
            v.marks_json(), adaptation, features_json(v.features))


def features_json(features: list[float] | None) -> str | None:
    """A verdict's features as the store keeps them: a compact JSON array (each float as Python
    writes it, so it reads back equal), or None when there are none or they are not a valid
    feature list (more than MAX_FEATURES numbers, or one not finite: dropped, never stored)."""
    try:
        valid = features_field(features, "features")
    except SessionFormatError:
        return None
    return None if valid is None else json.dumps(valid, separators=(",", ":"))


def features_of(raw: str | None) -> list[float] | None:
    """The features stored as `features_json` wrote them (a damaged value reads as none)."""
    if not raw:
        return None
    try:
        return features_field(json.loads(raw), "features")
    except (ValueError, SessionFormatError):
        return None


def _adapted(raw: str | None) -> Adapted | None:
    """A stored adaptation record (a damaged one reads as none: the verdict stays as stored)."""
    if not raw:
        return None
    try:
        return Adapted.from_dict(json.loads(raw), "adaptation")
    except (ValueError, MfactError):
        return None
