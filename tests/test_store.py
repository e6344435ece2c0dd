"""The SQLite session store: round trip, list/rename/delete, labels committed at once (a killed
writer loses nothing it reported), undo history, future schema refused untouched."""
from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from mfact.core import paths
from mfact.core.errors import MfactError
from mfact.core.session import Entity, Evidence, Fact, GeneratorInfo, HumanLabel, Session, Verdict
from mfact.core.store import SCHEMA_VERSION, Store


def make_session(n_facts=4, lang="en", name="Marie Curie", created="2026-01-01T00:00:00+00:00"):
    text = "Marie Curie was a physicist. She won two Nobel Prizes."
    ev = [Evidence(id="e1", source="wikipedia", lang="en", title="Marie Curie",
                   text="Marie Curie was a Polish and naturalised-French physicist.", url="https://x", score=0.8)]
    facts = []
    for i in range(n_facts):
        span = (0, 28) if i < n_facts // 2 else (29, len(text))
        facts.append(Fact(id=f"f{i}", text=f"fact {i}", sentence=0 if i < n_facts // 2 else 1, span=span,
                          auto=Verdict(label="S" if i % 2 == 0 else "NS", confidence=0.7,
                                       verifier="offline", evidence=["e1"], reason="r")))
    return Session(language=lang, entity=Entity(name, qid="Q7186", titles={"en": name},
                                                attributes={"rarity": "frequent"}),
                   created_at=created, generator=GeneratorInfo(backend="embedded", model="gemma",
                                                               prompt="Tell me a bio", seed=1),
                   text=text, tokens=12, stop_reason="eos", facts=facts, evidence=ev,
                   checks={"language_ok": True}, metrics={"factscore": 0.5}, config={"k": 8})


def test_default_path_is_in_the_data_dir(mfact_home):
    st = Store()
    assert st.path == paths.store_file()
    assert str(st.path).startswith(str(mfact_home))
    assert st.schema_version == SCHEMA_VERSION
    mode = sqlite3.connect(st.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    st.close()


def test_round_trip_is_lossless(tmp_path):
    st = Store(tmp_path / "s.db")
    s = make_session()
    s.facts[1].human = HumanLabel(label="IR", time="2026-01-02T00:00:00+00:00")
    st.save_session(s)
    back = st.get_session(s.id)
    assert back.to_dict() == s.to_dict()
    st.close()
    # and after reopening the file
    st2 = Store(tmp_path / "s.db")
    assert st2.get_session(s.id).to_dict() == s.to_dict()


def test_list_rename_delete(tmp_path):
    st = Store(tmp_path / "s.db")
    a = make_session(created="2026-01-01T00:00:00+00:00")
    b = make_session(lang="es", name="Pablo Picasso", created="2026-01-02T00:00:00+00:00")
    c = make_session(n_facts=0, lang="es", name="Nobody", created="2026-01-03T00:00:00+00:00")
    for s in (a, b, c):
        st.save_session(s)
    rows = st.list_sessions()
    assert [r.id for r in rows] == [c.id, b.id, a.id]           # newest first
    assert rows[2].factscore == 0.5 and rows[2].n_facts == 4 and rows[2].model == "gemma"
    assert rows[0].factscore is None and rows[0].n_facts == 0
    assert rows[1].title == "Pablo Picasso (es)"
    assert [r.id for r in st.list_sessions(language="es")] == [c.id, b.id]
    assert len(st.list_sessions(limit=1)) == 1
    assert [s.id for s in st.iter_sessions(language="es")] == [b.id, c.id]
    st.rename_session(b.id, "Picasso, try 2")
    assert st.get_session(b.id).name == "Picasso, try 2"
    assert st.list_sessions(language="es")[1].title == "Picasso, try 2"
    st.delete_session(a.id)
    assert not st.has_session(a.id)
    with pytest.raises(MfactError):
        st.get_session(a.id)
    with pytest.raises(MfactError):
        st.delete_session(a.id)
    with pytest.raises(MfactError):
        st.rename_session(b.id, "  ")
    assert st.count() == 2


def test_resolve_id_prefix(tmp_path):
    st = Store(tmp_path / "s.db")
    s = make_session()
    s.id = "abc123def456"
    st.save_session(s)
    assert st.resolve_id("abc1") == s.id
    with pytest.raises(MfactError, match="no session"):
        st.resolve_id("zzz")
    t = make_session()
    t.id = "abc999"
    st.save_session(t)
    with pytest.raises(MfactError, match="ambiguous"):
        st.resolve_id("abc")


def test_human_labels_history_and_undo(tmp_path):
    st = Store(tmp_path / "s.db")
    s = make_session()
    st.save_session(s)
    assert st.set_human_label(s.id, "f0", "NS") is None
    assert st.set_human_label(s.id, "f0", "IR") == "NS"
    assert st.set_human_label(s.id, "f1", "S") is None
    got = st.get_session(s.id)
    assert got.fact("f0").label == "IR" and got.fact("f1").label == "S"
    assert st.list_sessions()[0].factscore == 0.5        # f0 IR, f1 S, f2 S, f3 NS
    hist = st.label_history(s.id)
    assert [(h.fact_id, h.old_label, h.new_label) for h in hist] == [
        ("f1", None, "S"), ("f0", "NS", "IR"), ("f0", None, "NS")]
    undone = st.undo_label(s.id)
    assert (undone.fact_id, undone.new_label) == ("f1", "S")
    assert st.get_session(s.id).fact("f1").human is None
    st.undo_label(s.id)
    assert st.get_session(s.id).fact("f0").human.label == "NS"
    assert st.set_human_label(s.id, "f0", None) == "NS"
    assert st.get_session(s.id).fact("f0").human is None
    with pytest.raises(MfactError, match="unknown label"):
        st.set_human_label(s.id, "f0", "MAYBE")
    with pytest.raises(MfactError, match="no fact"):
        st.set_human_label(s.id, "nope", "S")
    with pytest.raises(MfactError, match="no session"):
        st.set_human_label("nope", "f0", "S")


def test_save_replaces_the_whole_session_but_keeps_the_name(tmp_path):
    st = Store(tmp_path / "s.db")
    s = make_session()
    st.save_session(s)
    st.rename_session(s.id, "mine")
    st.set_human_label(s.id, "f3", "S")
    s.facts[0].auto = Verdict(label="NS", verifier="offline")
    s.facts[1].human = HumanLabel(label="IR")
    s.facts.pop()                                # f3 gone from the new copy
    st.save_session(s)                           # the copy is the truth
    got = st.get_session(s.id)
    assert [f.id for f in got.facts] == ["f0", "f1", "f2"]
    assert got.fact("f0").auto.label == "NS" and got.fact("f1").human.label == "IR"
    assert got.name == "mine"
    assert len(st.label_history(s.id)) == 1      # history kept for undo


def test_threads_share_a_store(tmp_path):
    st = Store(tmp_path / "s.db")
    s = make_session(n_facts=40)
    st.save_session(s)
    errors = []

    def work(start):
        try:
            for i in range(start, 40, 4):
                st.set_human_label(s.id, f"f{i}", "IR")
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(f.label == "IR" for f in st.get_session(s.id).facts)


def _db_digest(path):
    h = hashlib.sha256()
    for suffix in ("", "-wal"):
        p = str(path) + suffix
        if os.path.exists(p):
            with open(p, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


def test_future_schema_is_refused_untouched(tmp_path):
    path = tmp_path / "s.db"
    st = Store(path)
    st.save_session(make_session())
    st._db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION + 1),))
    st.close()
    before = _db_digest(path)
    mtime = os.path.getmtime(path)
    with pytest.raises(MfactError, match="newer mfact"):
        Store(path)
    assert _db_digest(path) == before
    assert os.path.getmtime(path) == mtime


def test_not_a_database_is_refused(tmp_path):
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(MfactError, match="not a readable mfact store"):
        Store(path)
    assert path.read_bytes() == b"this is not sqlite" * 100


def test_save_sessions_is_all_or_nothing(tmp_path):
    st = Store(tmp_path / "s.db")
    good = make_session()
    bad = make_session()
    bad.facts.append(bad.facts[0])   # duplicate fact id: primary key violation
    with pytest.raises(sqlite3.IntegrityError):
        st.save_sessions([good, bad])
    assert st.count() == 0


WRITER = textwrap.dedent("""
    import sys
    from mfact.core.store import Store
    st = Store(sys.argv[1])
    sid = sys.argv[2]
    labels = ["S", "NS", "IR"]
    i = 0
    while True:
        fid = f"f{i % 100}"
        lab = labels[i % 3]
        st.set_human_label(sid, fid, lab)
        print(f"{i} {fid} {lab}", flush=True)
        i += 1
""")


def test_killed_writer_loses_no_committed_label(tmp_path):
    path = tmp_path / "s.db"
    st = Store(path)
    s = make_session(n_facts=100)
    st.save_session(s)
    st.close()
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    proc = subprocess.Popen([sys.executable, str(script), str(path), s.id], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    reported: dict[str, str] = {}
    last = -1
    deadline = time.monotonic() + 120
    n = 0
    while n < 150 and time.monotonic() < deadline:      # wrap around: later labels overwrite
        line = proc.stdout.readline()
        if not line:
            break
        i, fid, lab = line.split()
        reported[fid], last = lab, int(i)
        n += 1
    proc.send_signal(signal.SIGKILL)                      # mid-way through the loop
    # read the rest through the same buffered reader: communicate() would read the raw pipe and
    # miss lines the reader already buffered
    rest = proc.stdout.read()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    for line in rest.splitlines():                        # lines printed before the kill landed
        parts = line.split()
        if len(parts) == 3:
            reported[parts[1]], last = parts[2], int(parts[0])
    assert proc.returncode == -signal.SIGKILL, err
    assert n >= 150, f"the writer did not get going: {err}"
    # the one write that may have committed without being reported is iteration last + 1
    maybe_fid, maybe_lab = f"f{(last + 1) % 100}", ["S", "NS", "IR"][(last + 1) % 3]
    got = Store(path).get_session(s.id)
    for fid, lab in reported.items():
        assert got.fact(fid).human is not None, fid
        assert got.fact(fid).human.label == lab or (fid == maybe_fid and got.fact(fid).human.label
                                                    == maybe_lab), fid
