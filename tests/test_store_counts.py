"""The store's per-session FActScore counts and revision (schema 2): equal to a full count after
any sequence of writes, O(1) per relabel and per poll, and the upgrade of a schema-1 store: in
place, atomic (a kill leaves it old and whole or new and whole), once when two processes open it
at once, and followed by a schema-1 process that had the store open during the upgrade."""
from __future__ import annotations

import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from mfact.core.metrics import factscore
from mfact.core.errors import MfactError
from mfact.core.session import Entity, Fact, HumanLabel, Session, Verdict
from mfact.core.store import SCHEMA_VERSION, LabelConflict, Store

# The schema-1 DDL, as mfact wrote it before the counts (core/store.py at schema 1).
V1_DDL = """
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
    updated_at  TEXT NOT NULL
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
V1_SESSION_COLUMNS = ("id, name, language, entity, entity_json, created_at, model, status, n_facts,"
                      " factscore, generator_json, text, raw_text, tokens, stop_reason, checks_json,"
                      " metrics_json, config_json, updated_at")
V1_FACT_COLUMNS = ("session_id, id, pos, text, sentence, span_start, span_end, auto_label, auto_confidence,"
                   " auto_verifier, auto_evidence, auto_reason, human_label, human_time")
LABELS = [None, "S", "NS", "IR"]


def v1_relabel(db: sqlite3.Connection, sid: str, fid: str, label: str | None) -> None:
    """Schema 1's Store.relabel, statement for statement (the full count of _refresh_score)."""
    db.execute("BEGIN IMMEDIATE")
    old, old_time = db.execute("SELECT human_label, human_time FROM facts WHERE session_id=? AND id=?",
                               (sid, fid)).fetchone()
    now = "2026-03-01T00:00:00+00:00"
    db.execute("UPDATE facts SET human_label=?, human_time=? WHERE session_id=? AND id=?",
               (label, now if label else None, sid, fid))
    db.execute("INSERT INTO label_history(session_id, fact_id, old_label, old_time, new_label, time)"
               " VALUES (?,?,?,?,?,?)", (sid, fid, old, old_time, label, now))
    s, n = db.execute("SELECT SUM(lab = 'S'), COUNT(lab) FROM (SELECT COALESCE(human_label, auto_label)"
                      " AS lab FROM facts WHERE session_id=?)", (sid,)).fetchone()
    db.execute("UPDATE sessions SET factscore=?, updated_at=? WHERE id=?", (s / n if n else None, now, sid))
    db.execute("COMMIT")


def make_session(sid: str, labels: list[tuple[str | None, str | None]], name: str = "Ada") -> Session:
    """A session whose facts have these (automatic, human) labels."""
    text = "x" * max(1, len(labels))
    facts = [Fact(id=f"f{i}", text=f"fact {i}", sentence=0, span=(i, i + 1),
                  auto=Verdict(label=a, verifier="offline") if a else None,
                  human=HumanLabel(label=h, time="2026-01-02T00:00:00+00:00") if h else None)
             for i, (a, h) in enumerate(labels)]
    return Session(id=sid, language="en", entity=Entity(name), text=text, facts=facts,
                   created_at="2026-01-01T00:00:00+00:00")


def random_session(rng: random.Random, sid: str, n: int) -> Session:
    return make_session(sid, [(rng.choice(LABELS), rng.choice(LABELS)) for _ in range(n)])


def build_v1_store(path: Path, sessions: list[Session], relabels: int = 0, seed: int = 0) -> None:
    """A schema-1 store holding these sessions: the rows are written through the schema-1 DDL
    (no counts, no revision, no trigger), then relabelled with schema 1's statements."""
    staging = path.with_name(path.name + ".staging")
    st = Store(staging)
    st.save_sessions(sessions)
    st.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(V1_DDL)
    db.execute("INSERT INTO meta(key, value) VALUES ('schema_version', '1')")
    db.execute("ATTACH DATABASE ? AS staging", (str(staging),))
    db.execute("BEGIN")
    db.execute(f"INSERT INTO sessions({V1_SESSION_COLUMNS}) SELECT {V1_SESSION_COLUMNS} FROM staging.sessions")
    # the columns schema 1 had (schema 3 added facts.auto_marks)
    db.execute(f"INSERT INTO facts({V1_FACT_COLUMNS}) SELECT {V1_FACT_COLUMNS} FROM staging.facts")
    for table in ("evidence", "label_history"):
        db.execute(f"INSERT INTO {table} SELECT * FROM staging.{table}")
    db.execute("COMMIT")
    db.execute("DETACH DATABASE staging")
    rng = random.Random(seed)
    with_facts = [s for s in sessions if s.facts]
    for _ in range(relabels):
        s = rng.choice(with_facts)
        v1_relabel(db, s.id, rng.choice(s.facts).id, rng.choice(LABELS))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    for suffix in ("", "-wal", "-shm"):
        Path(str(staging) + suffix).unlink(missing_ok=True)


def full_counts(db: sqlite3.Connection) -> dict[str, tuple]:
    """Per session: (labelled, supported, FActScore) counted from every fact row, as schema 1 did."""
    out = {}
    for (sid,) in db.execute("SELECT id FROM sessions").fetchall():
        s, n = db.execute("SELECT SUM(lab = 'S'), COUNT(lab) FROM (SELECT COALESCE(human_label, auto_label)"
                          " AS lab FROM facts WHERE session_id=?)", (sid,)).fetchone()
        out[sid] = (n, s or 0, s / n if n else None)
    return out


def stored_counts(db: sqlite3.Connection) -> dict[str, tuple]:
    """Per session: (labelled, supported, FActScore) as the store keeps them (list_sessions' score)."""
    return {sid: (n, s, fs) for sid, n, s, fs in db.execute(
        "SELECT s.id, c.n_labelled, c.n_supported, CASE WHEN c.session_id IS NULL THEN s.factscore"
        " WHEN c.n_labelled > 0 THEN CAST(c.n_supported AS REAL) / c.n_labelled END"
        " FROM sessions s LEFT JOIN session_counts c ON c.session_id = s.id")}


def table_rows(path: Path) -> dict[str, list]:
    """Every row of the schema-1 tables (schema-1 columns only), in a stable order."""
    db = sqlite3.connect(path)
    try:
        out = {"sessions": db.execute(f"SELECT {V1_SESSION_COLUMNS} FROM sessions ORDER BY id").fetchall()}
        out["facts"] = db.execute(f"SELECT {V1_FACT_COLUMNS} FROM facts ORDER BY session_id, id").fetchall()
        for table, order in (("evidence", "session_id, id"), ("label_history", "seq")):
            out[table] = db.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
        return out
    finally:
        db.close()


# --------------------------------------------------------------------------- counts follow every write

_label = hs.sampled_from(LABELS)
_op = hs.one_of(
    hs.tuples(hs.just("save"), hs.integers(0, 2), hs.lists(hs.tuples(_label, _label), max_size=6)),
    hs.tuples(hs.just("import"), hs.lists(hs.tuples(hs.integers(0, 2),
                                                    hs.lists(hs.tuples(_label, _label), max_size=4)),
                                          min_size=1, max_size=3)),
    hs.tuples(hs.just("relabel"), hs.integers(0, 2), hs.integers(0, 5), _label),
    hs.tuples(hs.just("relabel"), hs.integers(0, 2), hs.integers(0, 5), _label),
    hs.tuples(hs.just("undo"), hs.integers(0, 2), hs.booleans(), hs.integers(0, 20)),
    hs.tuples(hs.just("delete"), hs.integers(0, 2)),
    hs.tuples(hs.just("rename"), hs.integers(0, 2), hs.sampled_from(["a", "b"])),
)


def _label_state(st: Store) -> dict:
    db = st._db
    return {sid: (db.execute("SELECT id, auto_label, human_label, human_time FROM facts WHERE session_id=?"
                             " ORDER BY id", (sid,)).fetchall(),
                  db.execute("SELECT name, n_facts FROM sessions WHERE id=?", (sid,)).fetchone(),
                  db.execute("SELECT seq FROM label_history WHERE session_id=? ORDER BY seq", (sid,)).fetchall())
            for (sid,) in db.execute("SELECT id FROM sessions").fetchall()}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.lists(_op, min_size=1, max_size=25))
def test_counts_equal_a_full_count_after_any_writes(ops):
    ids = ["s0", "s1", "s2"]
    with tempfile.TemporaryDirectory() as tmp:
        st = Store(Path(tmp) / "s.db")
        seen_revisions: set = set()
        revs = {}
        for op in ops:
            before = _label_state(st)
            kind = op[0]
            try:
                if kind == "save":
                    st.save_session(make_session(ids[op[1]], op[2]))
                elif kind == "import":
                    st.save_sessions([make_session(ids[i], labels) for i, labels in op[1]])
                elif kind == "relabel":
                    st.relabel(ids[op[1]], f"f{op[2]}", op[3])
                elif kind == "undo":
                    hist = st.label_history(ids[op[1]])
                    seq = hist[op[3] % len(hist)].seq if op[2] and hist else None
                    st.undo_label(ids[op[1]], seq=seq)
                elif kind == "delete":
                    st.delete_session(ids[op[1]])
                elif kind == "rename":
                    st.rename_session(ids[op[1]], op[2])
            except LabelConflict:
                pass
            except MfactError as exc:        # a fact or session that is not there
                assert "no session" in str(exc) or "no fact" in str(exc)
            stored, full = stored_counts(st._db), full_counts(st._db)
            assert stored == full, op
            listed = {r.id: r.factscore for r in st.list_sessions()}
            assert listed == {sid: c[2] for sid, c in stored.items()}
            for sid in stored:                # exactly metrics.factscore over the effective labels
                assert stored[sid][2] == factscore(f.label for f in st.get_session(sid).facts)
            after = _label_state(st)
            targets = {ids[i] for i, _ in op[1]} if kind == "import" else {ids[op[1]]}
            for sid in after:
                rev = st.session_revision(sid)
                if before.get(sid) != after[sid]:
                    assert rev != revs.get(sid), (op, sid)
                    assert rev[0] not in seen_revisions       # a revision never comes back
                elif sid not in targets:
                    assert rev == revs[sid], (op, sid)         # another session's write: same
                seen_revisions.add(rev[0])
                revs[sid] = rev
            for sid in set(revs) - set(after):
                del revs[sid]
        st.close()


def _vm_steps(st: Store, fn) -> int:
    """SQLite virtual-machine steps (in hundreds) that fn makes the store's connection run."""
    steps = [0]

    def tick():
        steps[0] += 1
        return 0

    st._db.set_progress_handler(tick, 100)
    try:
        fn()
    finally:
        st._db.set_progress_handler(None, 100)
    return steps[0]


def _pages_written(st: Store, fn) -> int:
    """Pages fn's commits wrote to the write-ahead log."""
    st._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    fn()
    return st._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]


def test_relabel_and_revision_do_not_grow_with_the_session(tmp_path):
    """The work SQLite does for a relabel, an undo and a window's poll, and the pages a relabel
    writes, are the same for 100 facts as for 20,000 with a 6 MB text (schema 1 scanned every fact
    row, and rewrote the session row, text and all, on every relabel)."""
    rng = random.Random(1)
    steps = {}
    for n in (100, 20_000):
        st = Store(tmp_path / f"{n}.db")
        s = random_session(rng, "big", n)
        s.text = "word " * (60 * n)          # about 300 characters a fact, as a real text
        st.save_session(s)
        st.save_session(random_session(rng, "other", 50))
        fid = f"f{n // 2}"
        relabel = _vm_steps(st, lambda: st.relabel("big", fid, "NS"))
        undo = _vm_steps(st, lambda: st.undo_label("big"))
        poll = _vm_steps(st, lambda: st.session_revision("big"))
        pages = _pages_written(st, lambda: st.relabel("big", fid, "S"))
        steps[n] = (relabel, undo, poll, pages)
        st.close()
    small, big = steps[100], steps[20_000]
    assert big[3] <= 10, steps               # the fact's, history's, counts' and meta's pages
    for a, b in zip(small, big):
        assert b <= a + 2, steps              # B-tree depth may add a step or a page, not a scan
    # the schema-1 queries on the same store do grow: the measure can see a scan
    st = Store(tmp_path / "20000.db")
    scan = _vm_steps(st, lambda: st._db.execute(
        "SELECT count(*), group_concat(COALESCE(human_label, '-') || COALESCE(human_time, ''), ',')"
        " FROM facts WHERE session_id='big'").fetchone())
    assert scan > 10 * (big[2] + 1), (scan, steps)
    st.close()


# --------------------------------------------------------------------------- upgrading schema 1


def _v1_sessions(n_sessions=6, n_facts=30, seed=0) -> list[Session]:
    rng = random.Random(seed)
    out = [random_session(rng, f"sess{i}", n_facts) for i in range(n_sessions)]
    out.append(make_session("empty", []))
    out.append(make_session("pending", [(None, None), (None, None)]))
    out[0].name = "named"
    return out


def test_a_schema_1_store_is_upgraded_in_place_losing_nothing(tmp_path):
    path = tmp_path / "s.db"
    sessions = _v1_sessions()
    build_v1_store(path, sessions, relabels=60)
    rows_before = table_rows(path)
    db = sqlite3.connect(path)
    scores_before = dict(db.execute("SELECT id, factscore FROM sessions"))
    expected = {sid: c[2] for sid, c in full_counts(db).items()}
    db.close()
    assert scores_before == expected                     # schema 1's own figures

    st = Store(path)
    assert st.upgraded_from == 1 and st.schema_version == SCHEMA_VERSION == 6
    assert table_rows(path) == rows_before               # every schema-1 row as it was
    assert stored_counts(st._db) == full_counts(st._db)
    assert {r.id: r.factscore for r in st.list_sessions()} == scores_before
    assert len(st.label_history("sess0")) + len(st.label_history("sess1")) > 0
    revisions = [st.session_revision(s.id)[0] for s in sessions]
    assert None not in revisions and len(set(revisions)) == len(revisions)
    # and the store works on: relabel, undo, save, revision moves
    rev = st.session_revision("sess2")
    old = st.get_session("sess2").fact("f0").label
    st.relabel("sess2", "f0", "S" if old != "S" else "NS")
    assert st.session_revision("sess2") != rev
    st.undo_label("sess2")
    assert st.get_session("sess2").fact("f0").label == old
    assert stored_counts(st._db) == full_counts(st._db)
    st.close()
    st = Store(path)                                     # opened again: nothing more to do
    assert st.upgraded_from is None and stored_counts(st._db) == full_counts(st._db)
    st.close()


def test_a_read_only_schema_1_store_is_refused_with_a_clear_message_untouched(tmp_path, monkeypatch):
    """A store mfact may not write (a read-only mount, another user's file; opened here through
    SQLite's read-only mode, since root ignores file permissions) cannot be upgraded: one line
    saying so and what to do, and the file as it was."""
    path = tmp_path / "s.db"
    build_v1_store(path, _v1_sessions(2, 5), relabels=3)
    before = path.read_bytes()
    connect = sqlite3.connect
    monkeypatch.setattr("mfact.core.store.sqlite3.connect",
                        lambda p, **kw: connect(f"file:{p}?mode=ro", uri=True, **kw))
    with pytest.raises(MfactError) as err:
        Store(path)
    assert "is read-only here" in err.value.message and "write access" in err.value.hint
    assert path.read_bytes() == before
    monkeypatch.undo()
    st = Store(path)                                     # writable again: upgraded as usual
    assert st.upgraded_from == 1
    st.close()


def test_a_store_newer_than_this_mfact_is_refused_untouched(tmp_path):
    path = tmp_path / "s.db"
    build_v1_store(path, _v1_sessions(2, 5))
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION + 1),))
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    before = path.read_bytes()
    with pytest.raises(MfactError, match="newer mfact"):
        Store(path)
    assert path.read_bytes() == before


def test_a_schema_1_process_writing_after_the_upgrade_is_followed(tmp_path):
    """A schema-1 mfact that opened the store before another upgraded it writes on with schema 1's
    statements: its relabels move the counts (the trigger), and a session it saves again
    (no counts) is counted from its facts at the next relabel and polled as schema 1 did."""
    path = tmp_path / "s.db"
    build_v1_store(path, _v1_sessions(3, 20))
    old = sqlite3.connect(path, isolation_level=None)      # the schema-1 process, open before
    old.execute("PRAGMA busy_timeout=30000")
    st = Store(path)
    assert st.upgraded_from == 1
    rev = st.session_revision("sess1")
    for i in range(10):
        v1_relabel(old, "sess1", f"f{i}", LABELS[i % 4])
    assert stored_counts(st._db) == full_counts(st._db)
    assert st.session_revision("sess1") != rev
    # schema 1's save_session: INSERT OR REPLACE naming only its own columns
    old.execute("BEGIN IMMEDIATE")
    old.execute("DELETE FROM facts WHERE session_id='sess2'")
    old.execute(f"INSERT OR REPLACE INTO sessions({V1_SESSION_COLUMNS}) SELECT {V1_SESSION_COLUMNS}"
                " FROM sessions WHERE id='sess2'")
    old.execute("INSERT INTO facts(session_id, id, pos, text, sentence, span_start, span_end, auto_label)"
                " VALUES ('sess2', 'g0', 0, 'g', 0, 0, 1, 'S'), ('sess2', 'g1', 1, 'g', 0, 0, 1, 'NS')")
    old.execute("UPDATE sessions SET n_facts=2, factscore=0.5 WHERE id='sess2'")
    old.execute("COMMIT")
    assert stored_counts(st._db)["sess2"] == (None, None, 0.5)      # listed with schema 1's figure
    rev2 = st.session_revision("sess2")
    v1_relabel(old, "sess2", "g1", "IR")
    assert st.session_revision("sess2") != rev2            # the schema-1 summary still moves
    st.relabel("sess2", "g1", "S")
    assert stored_counts(st._db)["sess2"] == full_counts(st._db)["sess2"] == (2, 2, 1.0)
    assert st.session_revision("sess2")[0] is not None
    assert stored_counts(st._db) == full_counts(st._db)
    old.close()
    st.close()


OPENER = textwrap.dedent("""
    import sys, time
    from mfact.core.store import Store
    start = float(sys.argv[2])
    while time.time() < start - 0.02:
        time.sleep(0.005)
    while time.time() < start:
        pass
    st = Store(sys.argv[1])
    print(st.upgraded_from, st.schema_version, flush=True)
    st.close()
""")


def test_processes_opening_an_old_store_at_once_upgrade_it_once(tmp_path):
    path = tmp_path / "s.db"
    sessions = _v1_sessions(20, 500)
    build_v1_store(path, sessions, relabels=50)
    rows_before = table_rows(path)
    script = tmp_path / "opener.py"
    script.write_text(OPENER)
    start = time.time() + 3.0
    procs = [subprocess.Popen([sys.executable, str(script), str(path), repr(start)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    results = sorted(o[0].split()[0] for o in outs)
    assert results == ["1", "None", "None"], outs          # one upgraded, the others found it done
    assert all(o[0].split()[1] == str(SCHEMA_VERSION) for o in outs)
    assert table_rows(path) == rows_before
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert stored_counts(db) == full_counts(db)
    db.close()


MIGRATOR = textwrap.dedent("""
    import sys, time
    from mfact.core.store import Store

    stop_at = int(sys.argv[2])          # freeze after this many SQLite steps (x 1000) of the upgrade

    class Frozen(Store):
        def _upgrade(self):
            steps = [0]

            def tick():
                steps[0] += 1
                if steps[0] == stop_at:
                    print("frozen", flush=True)
                    time.sleep(600)     # killed here, inside the upgrade's transaction
                return 0

            self._db.set_progress_handler(tick, 1000)
            try:
                super()._upgrade()
            finally:
                self._db.set_progress_handler(None, 1000)
            print("steps", steps[0], flush=True)

    Frozen(sys.argv[1])
""")


def test_a_killed_upgrade_leaves_the_old_store_whole(tmp_path):
    """SIGKILL at random points inside the upgrade's transaction (the child freezes after a random
    number of SQLite steps): the store is schema 1 exactly as it was (no table, no trigger) and
    then opens and upgrades; a kill after the commit leaves schema 2 with every count right."""
    original = tmp_path / "v1.db"
    build_v1_store(original, _v1_sessions(10, 500, seed=3), relabels=30)
    rows_before = table_rows(original)
    script = tmp_path / "migrator.py"
    script.write_text(MIGRATOR)
    probe = tmp_path / "probe.db"                   # how many steps the whole upgrade takes
    shutil.copy(original, probe)
    out = subprocess.run([sys.executable, str(script), str(probe), "0"], capture_output=True, text=True,
                         timeout=120)
    total = int(out.stdout.split()[-1])
    assert total > 20, out
    rng = random.Random(5)
    stops = sorted(rng.sample(range(1, total + 1), 5)) + [total + 1]   # the last: no freeze
    for stop in stops:
        path = tmp_path / f"t{stop}.db"
        shutil.copy(original, path)
        proc = subprocess.Popen([sys.executable, str(script), str(path), str(stop)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        line = proc.stdout.readline().strip()
        if stop <= total:
            assert line == "frozen", (line, proc.stderr.read())
            proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        version = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        triggers = db.execute("SELECT name FROM sqlite_master WHERE type='trigger'").fetchall()
        if stop <= total:
            assert version == "1" and "session_counts" not in tables and not triggers
        else:
            assert version == str(SCHEMA_VERSION) and triggers and stored_counts(db) == full_counts(db)
        db.close()
        assert table_rows(path) == rows_before
        st = Store(path)
        assert st.schema_version == SCHEMA_VERSION and stored_counts(st._db) == full_counts(st._db)
        st.close()
