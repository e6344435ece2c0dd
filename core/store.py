"""The session store: one SQLite file (WAL) in the user data dir, sessions, facts, labels and evidence
as rows.

- `set_human_label` commits at once: killing the process at any moment loses no label it returned
  from. Each relabel is also written to `label_history`, so the TUI can undo (`undo_label`).
- The schema version is kept in the `meta` table. A store written by a newer mfact is refused with a
  clear MfactError before anything is written to it.
- One connection per Store, usable from several threads (calls are serialised by a lock); several
  processes may share the file (WAL, busy timeout).
- Schema 2: `session_counts` keeps each session's FActScore counts (`n_labelled`, `n_supported`:
  facts whose COALESCE(human_label, auto_label) is set, and is 'S') and a `revision`, in a narrow
  row of its own: a relabel writes one fact row, one history row and one counts row, never the
  session row (which holds the text: megabytes that SQLite would copy on every update), and a
  window's poll reads one counts row, whatever the session's size. `save_session` writes the
  counts; the trigger `facts_label_counts` moves them (and the revision) on every UPDATE of a
  fact's labels, in the same transaction, whoever runs it. Revisions come from one store-wide
  counter (meta `revision`), so a value never comes back, even for a session deleted and imported
  again. `list_sessions` reads the FActScore from the counts; `sessions.factscore` and
  `updated_at` are those of the last save (or rename).
- A session without a counts row (saved by a schema-1 mfact that had the store open while another
  upgraded it: the trigger `sessions_saved` drops the counts of a session row written again) is
  counted from its facts at its next relabel, and polled and listed as schema 1 did meanwhile.
- Schema 1 is upgraded in place when opened: one IMMEDIATE transaction creates the table and
  triggers, counts every session and sets the version, so two processes opening an old store at
  once upgrade it once, and a kill leaves it either old and whole or new and whole.
- Schema 3: `facts.auto_marks` keeps the wrong words of an automatic verdict and the conflicting
  evidence words (JSON, `Verdict.marks_json`); a schema-2 store gets the column in the same kind of
  transaction.
- Schema 4: `facts.auto_adaptation` keeps, for a verdict the user's adaptation made (core/adapt),
  its version and the verifier's own label and confidence (JSON, `Adapted`); added the same way.
  `update_verdicts` writes automatic verdicts only (`mfact rejudge`): a human label is never
  touched there.
- Schema 5: `facts.auto_features` keeps the detector's numbers of a verdict (`Verdict.features`,
  for the adaptation: a compact JSON array of floats as the verifier gave them, or NULL when it gave
  none); added the same way, every existing row NULL. A damaged value reads as none.
- Schema 6: `sessions.question` keeps the question a checked text answers ('' when it answers
  none: `run --texts` lines' "question", `mfact check --question`); added the same way, every
  existing session ''.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from .figures import Checks, Metrics
from .errors import MfactError
from .session import Entity, Evidence, Fact, GeneratorInfo, HumanLabel, Session, Verdict, now_iso
from .store_labels import LabelChange as LabelChange
from .store_labels import LabelConflict as LabelConflict
from .store_labels import StoreLabels
from .store_errors import BUSY_TIMEOUT_S, StoreLock, about_the_store, quick_check, store_error
from .store_schema import DDL, SCHEMA_VERSION, SCORE_SQL, check_version, next_revision, stored_version, upgrade
from .store_verdicts import StoreVerdicts, _adapted, _auto_row, features_of

@dataclass
class SessionSummary:
    """One row of `list_sessions`: what a session list shows without loading facts."""
    id: str
    name: str
    title: str
    entity: str
    language: str
    created_at: str
    n_facts: int
    factscore: float | None
    model: str
    status: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


class Store(StoreLabels, StoreVerdicts):
    """SQLite store of sessions. `Store()` opens (creating if needed) `paths.store_file()`."""

    def __init__(self, path: str | Path | None = None):
        from . import paths

        self.path = Path(path) if path is not None else paths.store_file()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = StoreLock(self.path)
        try:
            self._db = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                       check_same_thread=False)
        except sqlite3.Error as exc:
            raise store_error(exc, self.path, "opening it") from None
        try:
            check_version(self._db, self.path)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            self._db.executescript(DDL)
            self.upgraded_from: int | None = None     # the schema this Store upgraded, if it did
            if stored_version(self._db) != SCHEMA_VERSION:
                self._upgrade()
        except sqlite3.Error as exc:
            self._db.close()
            raise store_error(exc, self.path, "opening it") from None
        except MfactError:
            self._db.close()
            raise

    # ------------------------------------------------------------------ housekeeping

    def _upgrade(self) -> None:
        """Upgrade an older store in place (core/store_schema.py `upgrade`)."""
        self.upgraded_from = upgrade(self._tx(), self.path)

    @property
    def schema_version(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            return int(row[0])

    def close(self) -> None:
        with self._lock:
            try:
                self._db.close()
            except sqlite3.Error:  # pragma: no cover
                pass

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _tx(self):
        return _Transaction(self._db, self._lock, self.path)

    def check_integrity(self, doing: str) -> None:
        """Refuse `doing` (e.g. "the import") when the store fails SQLite's `PRAGMA quick_check`."""
        with self._lock:
            quick_check(self._db, self.path, doing)

    # ------------------------------------------------------------------ writing

    def save_session(self, s: Session) -> None:
        """Insert or replace the whole session (facts, labels and evidence) in one transaction: the
        given copy is the truth. The label history is kept; a session without a name keeps the
        name the store has for it (set by `rename_session`)."""
        from .metrics import factscore

        now = now_iso()
        with self._tx() as db:
            if not s.name:          # a name given with rename_session survives a later save
                row = db.execute("SELECT name FROM sessions WHERE id=?", (s.id,)).fetchone()
                if row and row[0]:
                    s.name = row[0]
            # the labels as the store will hold them: COALESCE(human_label, auto_label)
            labels = [f.human.label if f.human is not None and f.human.label is not None
                      else f.auto.label if f.auto is not None else None for f in s.facts]
            fs = factscore(labels)                # raises on an unknown label, before any write
            n_labelled = sum(1 for lab in labels if lab is not None)
            db.execute("DELETE FROM facts WHERE session_id=?", (s.id,))
            db.execute("DELETE FROM evidence WHERE session_id=?", (s.id,))
            db.execute(
                "INSERT OR REPLACE INTO sessions(id, name, language, entity, entity_json, created_at,"
                " model, status, n_facts, factscore, generator_json, text, raw_text, tokens,"
                " stop_reason, checks_json, metrics_json, config_json, updated_at, question)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (s.id, s.name, s.language, s.entity.name, _dump(s.entity.to_dict()), s.created_at,
                 s.generator.model, s.status, len(s.facts), fs, _dump(s.generator.to_dict()), s.text,
                 s.raw_text, s.tokens, s.stop_reason, _dump(s.checks.to_dict()), _dump(s.metrics.to_dict()),
                 _dump(s.config), now, s.question))
            db.execute("INSERT INTO session_counts(session_id, n_labelled, n_supported, revision)"
                       " VALUES (?,?,?,?)", (s.id, n_labelled, labels.count("S"), next_revision(db)))
            db.executemany(
                "INSERT INTO facts(session_id, id, pos, text, sentence, span_start, span_end,"
                " auto_label, auto_confidence, auto_verifier, auto_evidence, auto_reason, auto_marks,"
                " auto_adaptation, auto_features, human_label, human_time) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [(s.id, f.id, i, f.text, f.sentence, f.span[0], f.span[1], *_auto_row(f.auto),
                  f.human.label if f.human else None, f.human.time if f.human else None)
                 for i, f in enumerate(s.facts)])
            db.executemany(
                "INSERT INTO evidence(session_id, id, pos, source, lang, title, url, section, text,"
                " score) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [(s.id, e.id, i, e.source, e.lang, e.title, e.url, e.section, e.text, e.score)
                 for i, e in enumerate(s.evidence)])

    def save_sessions(self, sessions: list[Session]) -> None:
        """Save several sessions in one transaction: all or nothing (imports)."""
        with self._tx():
            for s in sessions:
                self.save_session(s)

    def delete_session(self, session_id: str) -> None:
        with self._tx() as db:
            cur = db.execute("DELETE FROM sessions WHERE id=?", (session_id,))
            if cur.rowcount == 0:
                raise MfactError(f"no session {session_id!r} in the store", "see `mfact sessions list`")
            db.execute("DELETE FROM facts WHERE session_id=?", (session_id,))
            db.execute("DELETE FROM evidence WHERE session_id=?", (session_id,))
            db.execute("DELETE FROM label_history WHERE session_id=?", (session_id,))
            db.execute("DELETE FROM session_counts WHERE session_id=?", (session_id,))

    def rename_session(self, session_id: str, name: str) -> None:
        name = (name or "").strip()
        if not name:
            raise MfactError("a session name cannot be empty")
        with self._tx() as db:
            cur = db.execute("UPDATE sessions SET name=?, updated_at=? WHERE id=?",
                             (name, now_iso(), session_id))
            if cur.rowcount == 0:
                raise MfactError(f"no session {session_id!r} in the store", "see `mfact sessions list`")
            db.execute("UPDATE session_counts SET revision=? WHERE session_id=?",
                       (next_revision(db), session_id))

    # ------------------------------------------------------------------ reading

    def data_version(self) -> int:
        """Changes whenever another connection (another window or process) commits to the store."""
        with self._lock:
            return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def session_revision(self, session_id: str) -> tuple:
        """A value that changes whenever the session's labels, facts, text, name or undo history
        change, for a window to notice changes made elsewhere: its counts row's revision (one row
        read, whatever the session's size; never the same value twice in a store). A session
        without one (saved by a schema-1 mfact that had the store open during the upgrade) is
        summed up from its facts as schema 1 did."""
        with self._lock:
            row = self._db.execute("SELECT revision FROM session_counts WHERE session_id=?",
                                   (session_id,)).fetchone()
            if row is not None:
                return (row[0],)
            row = self._db.execute("SELECT updated_at, n_facts, length(text) FROM sessions WHERE id=?",
                                   (session_id,)).fetchone()
            if row is None:
                return (None,)
            labels = self._db.execute(
                "SELECT count(*), group_concat(COALESCE(human_label, '-') || COALESCE(human_time, ''), ',')"
                " FROM facts WHERE session_id=?", (session_id,)).fetchone()
            hist = self._db.execute("SELECT max(seq), count(*) FROM label_history WHERE session_id=?",
                                    (session_id,)).fetchone()
        return (tuple(row), hash(labels), tuple(hist))

    def has_session(self, session_id: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone() is not None

    def resolve_id(self, prefix: str) -> str:
        """A full session id from an id or a unique prefix of one (as `git` does)."""
        with self._lock:
            if self._db.execute("SELECT 1 FROM sessions WHERE id=?", (prefix,)).fetchone():
                return prefix
            rows = self._db.execute("SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' LIMIT 3",
                                    (_like_prefix(prefix),)).fetchall()
        if len(rows) == 1:
            return rows[0][0]
        if not rows:
            raise MfactError(f"no session {prefix!r} in the store", "see `mfact sessions list`")
        raise MfactError(f"session id prefix {prefix!r} is ambiguous", "give more characters")

    def get_session(self, session_id: str) -> Session:
        with self._lock:
            row = self._db.execute(
                "SELECT id, name, language, entity_json, created_at, status, generator_json, text,"
                " raw_text, tokens, stop_reason, checks_json, metrics_json, config_json, question"
                " FROM sessions WHERE id=?", (session_id,)).fetchone()
            if row is None:
                raise MfactError(f"no session {session_id!r} in the store", "see `mfact sessions list`")
            facts = self._db.execute(
                "SELECT id, text, sentence, span_start, span_end, auto_label, auto_confidence,"
                " auto_verifier, auto_evidence, auto_reason, human_label, human_time, auto_marks,"
                " auto_adaptation, auto_features FROM facts WHERE session_id=? ORDER BY pos", (session_id,)).fetchall()
            evidence = self._db.execute(
                "SELECT id, source, lang, title, url, section, text, score FROM evidence"
                " WHERE session_id=? ORDER BY pos", (session_id,)).fetchall()
        return _session_from_rows(row, facts, evidence)

    def list_sessions(self, language: str | None = None, limit: int | None = None) -> list[SessionSummary]:
        """Summaries, newest first."""
        sql = ("SELECT s.id, s.name, s.entity, s.language, s.created_at, s.n_facts,"
               f" CASE WHEN c.session_id IS NULL THEN s.factscore ELSE {SCORE_SQL} END,"
               " s.model, s.status FROM sessions s LEFT JOIN session_counts c ON c.session_id = s.id")
        args: list[Any] = []
        if language:
            sql += " WHERE s.language=?"
            args.append(language)
        sql += " ORDER BY s.created_at DESC, s.rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        out = []
        for sid, name, entity, lang, created, n, fs, model, status in rows:
            out.append(SessionSummary(id=sid, name=name, title=name or f"{entity} ({lang})",
                                      entity=entity, language=lang, created_at=created, n_facts=n,
                                      factscore=fs, model=model, status=status))
        return out

    def iter_sessions(self, language: str | None = None) -> Iterator[Session]:
        """Every session (oldest first), loaded one at a time."""
        sql = "SELECT id FROM sessions" + (" WHERE language=?" if language else "") + \
              " ORDER BY created_at, rowid"
        with self._lock:
            ids = [r[0] for r in self._db.execute(sql, (language,) if language else ())]
        for sid in ids:
            try:
                yield self.get_session(sid)
            except MfactError:  # deleted meanwhile
                continue

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])


# --------------------------------------------------------------------------- helpers


class _Transaction:
    """`BEGIN IMMEDIATE` ... `COMMIT` (or `ROLLBACK`), re-entrant within one thread. A SQLite
    error of the outer transaction is rolled back (when SQLite has not already: a full disk ends
    the transaction itself) and raised as one MfactError naming its cause (core/store_errors.py)."""

    def __init__(self, db: sqlite3.Connection, lock: StoreLock | threading.RLock, path: Path | str = "the store"):
        self.db = db
        self.lock = lock
        self.path = path
        self.outer = False

    def __enter__(self) -> sqlite3.Connection:
        self.lock.acquire()
        self.outer = not self.db.in_transaction
        if self.outer:
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                self.lock.release()
                raise store_error(exc, self.path, "starting a write") from None
            except BaseException:
                self.lock.release()
                raise
        return self.db

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if not self.outer:
                return
            if exc_type is None:
                try:
                    self.db.execute("COMMIT")
                except sqlite3.Error as err:
                    self._rollback()
                    raise store_error(err, self.path, "writing") from None
                return
            self._rollback()
            if about_the_store(exc):
                raise store_error(exc, self.path, "writing") from None
        finally:
            self.lock.release()

    def _rollback(self) -> None:
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass        # SQLite ended the transaction itself (a full disk, an I/O error)


def _dump(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, default=str)


def _load(v: str | None, default: Any) -> Any:
    if v is None:
        return default
    try:
        return json.loads(v)
    except json.JSONDecodeError:
        return default


def _like_prefix(prefix: str) -> str:
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _session_from_rows(row, facts, evidence) -> Session:
    (sid, name, language, entity_json, created_at, status, generator_json, text, raw_text, tokens,
     stop_reason, checks_json, metrics_json, config_json, question) = row
    ent = _load(entity_json, {})
    gen = _load(generator_json, {})
    fact_objs = []
    for (fid, ftext, sentence, a, b, al, ac, av, ae, ar, hl, ht, am, ad, ff) in facts:
        auto = Verdict(label=al, confidence=ac if ac is not None else 1.0, verifier=av or "",
                       evidence=list(_load(ae, [])), reason=ar, adaptation=_adapted(ad),
                       features=features_of(ff)).with_marks_json(am) if al else None
        human = HumanLabel(label=hl, time=ht or "") if hl else None
        fact_objs.append(Fact(id=fid, text=ftext, sentence=sentence, span=(a, b), auto=auto, human=human))
    return Session(
        id=sid, name=name, language=language,
        entity=Entity(name=ent.get("name", ""), qid=ent.get("qid"), titles=dict(ent.get("titles") or {}),
                      attributes=dict(ent.get("attributes") or {})),
        created_at=created_at, status=status,
        generator=GeneratorInfo(backend=gen.get("backend", "none"), model=gen.get("model", ""),
                                prompt=gen.get("prompt", ""), params=dict(gen.get("params") or {}),
                                seed=gen.get("seed")),
        text=text, raw_text=raw_text, tokens=tokens, stop_reason=stop_reason, facts=fact_objs,
        question=question or "", evidence=[Evidence(id=e[0], source=e[1], lang=e[2], title=e[3], url=e[4], section=e[5],
                           text=e[6], score=e[7]) for e in evidence],
        checks=Checks.from_dict(_load(checks_json, {}), "checks"),
        metrics=Metrics.from_dict(_load(metrics_json, {}), "metrics"), config=_load(config_json, {}))
