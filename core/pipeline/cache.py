"""The on-disk verdict cache (SQLite), shared by every run of every pipeline in the process."""
from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Sequence

from ..session import Verdict

log = logging.getLogger("mfact.pipeline")


class VerdictCache:
    """Verdicts on disk, keyed by (verifier name + version, entity, language, fact text, evidence
    ids). SQLite under paths.cache_dir(); safe to share between threads. An entry is the verdict's
    session JSON (`Verdict.to_dict`, compact), so it keeps all of it, the detector's features too."""

    def __init__(self, path: Path | None = None):
        from ..paths import cache_dir

        self.path = Path(path) if path else cache_dir() / "verdicts.sqlite3"
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verifier TEXT,"
                         " verdict TEXT NOT NULL, created REAL)")
            self._conn = conn
        return self._conn

    @staticmethod
    def key(verifier: str, version: str, entity: str, lang: str, fact: str, evidence_ids: Sequence[str]) -> str:
        blob = json.dumps([verifier, version, entity, lang, fact, list(evidence_ids)], ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def get(self, key: str) -> Verdict | None:
        try:
            with self._lock:
                row = self._db().execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:   # a broken cache never stops checking
            log.warning("verdict cache unreadable: %s", exc)
            return None
        if row is None:
            self.misses += 1
            return None
        try:
            v = Verdict.from_dict(json.loads(row[0]), "cached verdict")
        except Exception:  # noqa: BLE001 - a corrupt row is a miss
            self.misses += 1
            return None
        self.hits += 1
        return v

    def put(self, key: str, verdict: Verdict) -> None:
        self.put_many([(key, verdict)])

    def put_many(self, items: list[tuple[str, Verdict]]) -> None:
        """Store verdicts in one transaction (one disk sync for a batch)."""
        if not items:
            return
        now = time.time()
        try:
            with self._lock:
                db = self._db()
                db.executemany(
                    "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?)",
                    [
                        (key, v.verifier, json.dumps(v.to_dict(), ensure_ascii=False, separators=(",", ":")), now)
                        for key, v in items
                    ],
                )
                db.commit()
        except sqlite3.Error as exc:
            log.warning("verdict cache not written: %s", exc)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

