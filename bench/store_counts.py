"""What a relabel and a window's poll cost the store, before (schema 1: count every fact row) and
after (schema 2: the session row's counts and revision), side by side in one run.

    .venv/bin/python bench/store_counts.py [--sizes 1000,20000] [--repeat 300]

For each size one session of that many facts (random automatic and human labels, a text of about
300 characters a fact: 6 MB at 20,000, as the big session of bench/tui_big_sessions.py) is saved with
`Store`; a copy of the file without the counting trigger runs schema 1's statements verbatim
(relabel: read, update the fact, write its history row, count S and labelled over every fact row,
update the session; poll: the group_concat over every fact row and the history summary), the
original runs `Store.relabel` and `Store.session_revision`. Old and new calls alternate, so load
falls on both alike. Figures: median wall microseconds and mean CPU microseconds per call (CPU time
is less disturbed by other processes on a shared machine; the new calls pay for the caches the old
ones churn, so the last column times them again in a row). Also the upgrade of a schema-1 store of
that size (one transaction). The last line is `relabel_ratio_20000: <old / new CPU>`.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

OLD_REFRESH = ("SELECT SUM(lab = 'S'), COUNT(lab) FROM (SELECT COALESCE(human_label, auto_label) AS lab"
               " FROM facts WHERE session_id=?)")
OLD_LABELS = ("SELECT count(*), group_concat(COALESCE(human_label, '-') || COALESCE(human_time, ''), ',')"
              " FROM facts WHERE session_id=?")


def old_relabel(db: sqlite3.Connection, sid: str, fid: str, label: str | None, now: str) -> None:
    """Schema 1's Store.relabel, statement for statement."""
    db.execute("BEGIN IMMEDIATE")
    old, old_time = db.execute("SELECT human_label, human_time FROM facts WHERE session_id=? AND id=?",
                               (sid, fid)).fetchone()
    db.execute("UPDATE facts SET human_label=?, human_time=? WHERE session_id=? AND id=?",
               (label, now if label else None, sid, fid))
    db.execute("INSERT INTO label_history(session_id, fact_id, old_label, old_time, new_label, time)"
               " VALUES (?,?,?,?,?,?)", (sid, fid, old, old_time, label, now))
    s, n = db.execute(OLD_REFRESH, (sid,)).fetchone()
    db.execute("UPDATE sessions SET factscore=?, updated_at=? WHERE id=?", (s / n if n else None, now, sid))
    db.execute("COMMIT")


def old_revision(db: sqlite3.Connection, sid: str) -> tuple:
    """Schema 1's Store.session_revision."""
    row = db.execute("SELECT updated_at, n_facts, length(text) FROM sessions WHERE id=?", (sid,)).fetchone()
    labels = db.execute(OLD_LABELS, (sid,)).fetchone()
    hist = db.execute("SELECT max(seq), count(*) FROM label_history WHERE session_id=?", (sid,)).fetchone()
    return (tuple(row) if row else None, hash(labels), tuple(hist))


def side_by_side(old, new, repeat: int) -> tuple[float, float, float, float]:
    """(old wall median us, new wall median us, old CPU mean us, new CPU mean us), alternating."""
    walls: dict[str, list[float]] = {"old": [], "new": []}
    cpus = {"old": 0.0, "new": 0.0}
    for i in range(repeat):
        for name, fn in (("old", old), ("new", new)) if i % 2 == 0 else (("new", new), ("old", old)):
            c, t = time.process_time(), time.perf_counter()
            fn(i)
            walls[name].append((time.perf_counter() - t) * 1e6)
            cpus[name] += time.process_time() - c
    return (statistics.median(walls["old"]), statistics.median(walls["new"]),
            cpus["old"] / repeat * 1e6, cpus["new"] / repeat * 1e6)


def alone(fn, repeat: int) -> float:
    """Median wall microseconds of fn called `repeat` times in a row (no old call between to
    disturb the CPU caches)."""
    out = []
    for i in range(repeat):
        t = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t) * 1e6)
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,20000")
    ap.add_argument("--repeat", type=int, default=300)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    from mfact.core.session import Entity, Fact, HumanLabel, Session, Verdict
    from mfact.core.store import Store

    rng = random.Random(0)
    labels = [None, "S", "NS", "IR"]
    rows = []
    last_ratio = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            facts = [Fact(id=f"f{i}", text=f"fact {i}", sentence=0, span=(i, i + 1),
                          auto=Verdict(label=rng.choice(labels[1:]), verifier="offline"),
                          human=HumanLabel(label=lab) if (lab := rng.choice(labels)) else None)
                     for i in range(n)]
            s = Session(language="en", entity=Entity("Bench"), text="word " * (60 * n), facts=facts)
            new_path = Path(tmp) / f"new{n}.db"
            old_path = Path(tmp) / f"old{n}.db"
            st = Store(new_path)
            st.save_session(s)
            st._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            shutil.copy(new_path, old_path)
            old = sqlite3.connect(old_path, isolation_level=None, check_same_thread=False)
            for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=30000"):
                old.execute(f"PRAGMA {pragma}")
            old.execute("DROP TRIGGER facts_label_counts")        # schema 1 had no counts
            old.execute("DROP TRIGGER sessions_saved")
            now = "2026-01-01T00:00:00+00:00"

            def pick(i):
                return f"f{(i * 7919) % n}", labels[i % 4]

            rel = side_by_side(lambda i: old_relabel(old, s.id, *pick(i), now),
                               lambda i: st.relabel(s.id, *pick(i)), args.repeat)
            rev = side_by_side(lambda i: old_revision(old, s.id),
                               lambda i: st.session_revision(s.id), args.repeat)
            rel_alone = alone(lambda i: st.relabel(s.id, *pick(i + 1)), args.repeat)
            rev_alone = alone(lambda i: st.session_revision(s.id), args.repeat)
            assert [st.list_sessions()[0].factscore] == \
                [r[0] for r in old.execute("SELECT factscore FROM sessions")]   # same labels, same score
            # the upgrade of a schema-1 store of this size
            old.execute("BEGIN IMMEDIATE")
            old.execute("DELETE FROM meta WHERE key='revision'")
            old.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
            old.execute("DROP TABLE session_counts")
            old.execute("COMMIT")
            old.close()
            t = time.perf_counter()
            up = Store(old_path)
            upgrade_ms = (time.perf_counter() - t) * 1000
            assert up.upgraded_from == 1
            up.close()
            st.close()
            rows.append((n, rel + (rel_alone,), rev + (rev_alone,), upgrade_ms))
            last_ratio = rel[2] / rel[3]
    print(f"load average: {open('/proc/loadavg').read().split()[:3] if os.path.exists('/proc/loadavg') else '?'}")
    print("| facts | call | before: wall median / CPU mean, us | after | CPU ratio before/after |"
          " after, calls in a row: wall median, us |")
    print("|---:|---|---:|---:|---:|---:|")
    for n, rel, rev, _ in rows:
        for name, r in (("relabel (committed)", rel), ("session_revision (poll)", rev)):
            print(f"| {n:,} | {name} | {r[0]:.0f} / {r[2]:.0f} | {r[1]:.0f} / {r[3]:.0f}"
                  f" | {r[2] / r[3]:.1f}x | {r[4]:.0f} |")
    for n, _, _, up in rows:
        print(f"upgrade of a schema-1 store with {n:,} facts: {up:.1f} ms (open included)")
    print(f"relabel_ratio_{sizes[-1]}: {last_ratio:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
