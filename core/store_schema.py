"""The session store's schema (core/store.py): the tables, the triggers that keep each session's
counts, the version in the `meta` table, and the upgrade of an older store in place (see
core/store.py's docstring for what each version added)."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from .errors import MfactError

SCHEMA_VERSION = 6

DDL = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL DEFAULT '',
    language    TEXT NOT NULL,
    entity      TEXT NOT NULL,
    entity_json TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    model       TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL DEFAULT 'done',
    n_facts     INTEGER NOT NULL DEFAULT 0,
    factscore   REAL,
    generator_json TEXT NOT NULL DEFAULT '{}',
    text        TEXT NOT NULL DEFAULT '',
    raw_text    TEXT,
    tokens      INTEGER NOT NULL DEFAULT 0,
    stop_reason TEXT,
    checks_json TEXT NOT NULL DEFAULT '{}',
    metrics_json TEXT NOT NULL DEFAULT '{}',
    config_json TEXT NOT NULL DEFAULT '{}',
    updated_at  TEXT NOT NULL,
    question    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS sessions_lang ON sessions(language, created_at);
CREATE TABLE IF NOT EXISTS facts (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    pos         INTEGER NOT NULL,
    text        TEXT NOT NULL,
    sentence    INTEGER NOT NULL,
    span_start  INTEGER NOT NULL,
    span_end    INTEGER NOT NULL,
    auto_label  TEXT,
    auto_confidence REAL,
    auto_verifier TEXT,
    auto_evidence TEXT,
    auto_reason TEXT,
    human_label TEXT,
    human_time  TEXT,
    PRIMARY KEY (session_id, id)
);
CREATE TABLE IF NOT EXISTS evidence (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    pos         INTEGER NOT NULL,
    source      TEXT NOT NULL,
    lang        TEXT NOT NULL,
    title       TEXT NOT NULL,
    url         TEXT NOT NULL,
    section     TEXT NOT NULL,
    text        TEXT NOT NULL,
    score       REAL NOT NULL,
    PRIMARY KEY (session_id, id)
);
CREATE TABLE IF NOT EXISTS label_history (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL,
    fact_id     TEXT NOT NULL,
    old_label   TEXT,
    old_time    TEXT,
    new_label   TEXT,
    time        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS label_history_session ON label_history(session_id, seq);
"""

# Schema 2, created by `_upgrade` (not in DDL, which also runs on a schema-1 store before it is
# upgraded, outside the upgrade's transaction).
LAB_NEW = "COALESCE(NEW.human_label, NEW.auto_label)"
LAB_OLD = "COALESCE(OLD.human_label, OLD.auto_label)"
DDL_V2 = [
    """CREATE TABLE IF NOT EXISTS session_counts (
    session_id  TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    n_labelled  INTEGER NOT NULL,
    n_supported INTEGER NOT NULL,
    revision    INTEGER NOT NULL
) WITHOUT ROWID""",
    f"""CREATE TRIGGER IF NOT EXISTS facts_label_counts AFTER UPDATE OF human_label, auto_label ON facts
BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'revision';
    UPDATE session_counts SET
        n_labelled = n_labelled + ({LAB_NEW} IS NOT NULL) - ({LAB_OLD} IS NOT NULL),
        n_supported = n_supported + ({LAB_NEW} IS 'S') - ({LAB_OLD} IS 'S'),
        revision = (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'revision')
    WHERE session_id = NEW.session_id;
END""",
    """CREATE TRIGGER IF NOT EXISTS sessions_saved AFTER INSERT ON sessions
BEGIN
    DELETE FROM session_counts WHERE session_id = NEW.id;
END""",
]
# The FActScore from the counts (metrics.factscore: S over labelled facts; None when none is):
# the same IEEE division of the same two integers as Python's s / n.
SCORE_SQL = "CASE WHEN c.n_labelled > 0 THEN CAST(c.n_supported AS REAL) / c.n_labelled END"
# A session's counts from its facts (the upgrade, and a session without counts).
COUNT_SQL = ("SELECT COUNT(COALESCE(human_label, auto_label)),"
              " COALESCE(SUM(COALESCE(human_label, auto_label) IS 'S'), 0)"
              " FROM facts WHERE session_id = {sid}")


def check_version(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a store written by a newer mfact (or with an unreadable version), touching nothing."""
    has_meta = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
    if not has_meta:
        return
    row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None:
        return
    try:
        version = int(row[0])
    except ValueError:
        raise MfactError(f"the session store {path} has an unreadable schema version {row[0]!r}",
                         "move the file away or use another --home") from None
    if version > SCHEMA_VERSION:
        raise MfactError(
            f"the session store {path} was written by a newer mfact (schema {version},"
            f" this mfact knows {SCHEMA_VERSION}); it was left untouched",
            "upgrade mfact, or use another --home / MFACT_HOME")


def stored_version(db: sqlite3.Connection) -> int | None:
    row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(row[0]) if row is not None else None


def upgrade(tx: Any, path: Path) -> int | None:
    """The schema this store had before (None: a new store or one already current). A new store
    gets the current schema; a schema-1 store is upgraded in place. One IMMEDIATE
    transaction: the version is read again inside it, so of two processes opening an old store
    at once the second finds it upgraded; a kill rolls the whole of it back."""
    with tx as db:
        check_version(db, path)                 # another mfact may have written it since
        version = stored_version(db)
        if version == SCHEMA_VERSION:
            return None
        cols = {r[1] for r in db.execute("PRAGMA table_info(facts)").fetchall()}
        for col in ("auto_marks", "auto_adaptation", "auto_features"):
            if col not in cols:
                db.execute(f"ALTER TABLE facts ADD COLUMN {col} TEXT")
        if "question" not in {r[1] for r in db.execute("PRAGMA table_info(sessions)").fetchall()}:
            db.execute("ALTER TABLE sessions ADD COLUMN question TEXT NOT NULL DEFAULT ''")
        if version is not None and version >= 2:
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)",
                       (str(SCHEMA_VERSION),))
            return version
        for stmt in DDL_V2:
            db.execute(stmt)
        db.execute("INSERT OR REPLACE INTO session_counts(session_id, n_labelled, n_supported, revision)"
                   " SELECT id, 0, 0, rowid FROM sessions")
        db.execute(f"UPDATE session_counts SET (n_labelled, n_supported) ="
                   f" ({COUNT_SQL.format(sid='session_counts.session_id')})")
        db.execute("INSERT OR REPLACE INTO meta(key, value)"
                   " SELECT 'revision', CAST(COALESCE(MAX(rowid), 0) AS TEXT) FROM sessions")
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)",
                   (str(SCHEMA_VERSION),))
        return version


def next_revision(db: sqlite3.Connection) -> int | None:
    """The store's next revision number (inside the caller's write transaction)."""
    db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'revision'")
    row = db.execute("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'revision'").fetchone()
    return row[0] if row else None
