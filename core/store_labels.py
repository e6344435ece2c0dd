"""The labels of the session store (core/store.py): a person's label on a fact, committed at once
and written to `label_history` for undo, and the label pairs the calibration reads."""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from .errors import MfactError
from .session import LABELS, HumanLabel, now_iso
from .store_schema import COUNT_SQL, next_revision


@dataclass
class LabelChange:
    """One entry of the label history (newest first from `label_history`)."""
    seq: int
    session_id: str
    fact_id: str
    old_label: str | None
    new_label: str | None
    time: str


class LabelConflict(MfactError):
    """An undo that would overwrite a label set since, elsewhere (another window)."""

    def __init__(self, fact_id: str, label: str | None):
        self.fact_id = fact_id
        self.label = label
        super().__init__(f"this fact was relabelled elsewhere since (now {label or 'no label'});"
                         " it is left as it is", "")


class StoreLabels:
    """The label methods of `Store` (it provides the connection, its lock and transactions)."""

    _db: sqlite3.Connection
    _lock: Any             # a StoreLock (core/store_errors.py)

    def _tx(self) -> Any:
        raise NotImplementedError

    def set_human_label(self, session_id: str, fact_id: str, label: str | None) -> str | None:
        """Set (or clear, with None) a person's label on a fact; committed before returning.
        Returns the previous human label (None when there was none), for undo."""
        return self.relabel(session_id, fact_id, label).old_label

    def relabel(self, session_id: str, fact_id: str, label: str | None) -> LabelChange:
        """`set_human_label`, returning the history entry it wrote: a window keeps its `seq` so that
        `undo_label(seq=...)` undoes exactly its own change, whatever other windows did since."""
        if label is not None and label not in LABELS:
            raise MfactError(f"unknown label {label!r}", "one of S, NS, IR")
        with self._tx() as db:
            row = db.execute("SELECT human_label, human_time FROM facts WHERE session_id=? AND id=?",
                             (session_id, fact_id)).fetchone()
            if row is None:
                self._missing(db, session_id, fact_id)
            old, old_time = row
            now = now_iso()
            db.execute("UPDATE facts SET human_label=?, human_time=? WHERE session_id=? AND id=?",
                       (label, now if label else None, session_id, fact_id))
            cur = db.execute("INSERT INTO label_history(session_id, fact_id, old_label, old_time, new_label,"
                             " time) VALUES (?,?,?,?,?,?)", (session_id, fact_id, old, old_time, label, now))
            self._refresh_score(db, session_id)
        return LabelChange(int(cur.lastrowid), session_id, fact_id, old, label, now)

    def label_history(self, session_id: str, limit: int | None = None) -> list[LabelChange]:
        """The relabels of a session, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, session_id, fact_id, old_label, new_label, time FROM label_history"
                " WHERE session_id=? ORDER BY seq DESC" + (" LIMIT ?" if limit else ""),
                (session_id, limit) if limit else (session_id,)).fetchall()
        return [LabelChange(*r) for r in rows]

    def undo_label(self, session_id: str, seq: int | None = None) -> LabelChange | None:
        """Undo the newest relabel of a session, or with `seq` that one change (a window's own):
        restore the fact's previous human label and drop the history entry. Returns the undone
        change (None when there is nothing to undo). Raises LabelConflict, undoing nothing, when
        the fact was relabelled again since (in another window)."""
        with self._tx() as db:
            if seq is None:
                row = db.execute(
                    "SELECT seq, session_id, fact_id, old_label, new_label, time, old_time FROM label_history"
                    " WHERE session_id=? ORDER BY seq DESC LIMIT 1", (session_id,)).fetchone()
            else:
                row = db.execute(
                    "SELECT seq, session_id, fact_id, old_label, new_label, time, old_time FROM label_history"
                    " WHERE session_id=? AND seq=?", (session_id, seq)).fetchone()
            if row is None:
                return None
            seq, sid, fid, old, new, t, old_time = row
            cur = db.execute("SELECT human_label FROM facts WHERE session_id=? AND id=?", (sid, fid)).fetchone()
            conflict = cur is None or cur[0] != new
            if not conflict:
                db.execute("UPDATE facts SET human_label=?, human_time=? WHERE session_id=? AND id=?",
                           (old, old_time if old else None, sid, fid))
            db.execute("DELETE FROM label_history WHERE seq=?", (seq,))
            if not conflict:
                self._refresh_score(db, sid)
            else:
                db.execute("UPDATE session_counts SET revision=? WHERE session_id=?", (next_revision(db), sid))
        if conflict:
            raise LabelConflict(fid, cur[0] if cur else None)
        return LabelChange(seq, sid, fid, old, new, t)

    def _refresh_score(self, db: sqlite3.Connection, session_id: str) -> None:
        """After a relabel or an undo: the trigger `facts_label_counts` has moved the session's
        counts (and so its FActScore, metrics.factscore: S over labelled facts) and revision; a
        session without counts (saved by a schema-1 mfact) is counted here from its facts, once."""
        if db.execute("SELECT 1 FROM session_counts WHERE session_id=?", (session_id,)).fetchone() is None:
            db.execute("INSERT INTO session_counts(session_id, n_labelled, n_supported, revision)"
                       " VALUES (?, 0, 0, ?)", (session_id, next_revision(db)))
            db.execute(f"UPDATE session_counts SET (n_labelled, n_supported) = ({COUNT_SQL.format(sid='?')})"
                       " WHERE session_id=?", (session_id, session_id))

    def _missing(self, db: sqlite3.Connection, session_id: str, fact_id: str):
        if db.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone() is None:
            raise MfactError(f"no session {session_id!r} in the store", "see `mfact sessions list`")
        raise MfactError(f"session {session_id!r} has no fact {fact_id!r}")

    def human_labels(self, session_id: str) -> dict[str, HumanLabel | None]:
        """fact id -> the human label in the store (None: none)."""
        with self._lock:
            rows = self._db.execute("SELECT id, human_label, human_time FROM facts WHERE session_id=?",
                                    (session_id,)).fetchall()
        return {fid: (HumanLabel(lab, t or now_iso()) if lab else None) for fid, lab, t in rows}

    def relabel_pairs(self, language: str) -> list[tuple[str, str]]:
        """(human, automatic) label pairs of every fact a person labelled in sessions of `language`:
        the data the hallucination-rate estimate calibrates the verifier on."""
        with self._lock:
            return [(h, a) for h, a in self._db.execute(
                "SELECT f.human_label, f.auto_label FROM facts f JOIN sessions s ON s.id = f.session_id"
                " WHERE s.language=? AND f.human_label IS NOT NULL AND f.auto_label IS NOT NULL",
                (language,))]
