"""The detector's features of a verdict (`Verdict.features`, issue 23) travel wherever the verdict
does: the store (schema 5, `facts.auto_features`; a schema-4 store upgraded in place), the labelled
facts that learning reads, the verdict cache, `mfact export`/`import`; the web page and the report
do not show them."""
from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np

from mfact.core.adapt import adaptation as A
from mfact.core.adapt.learn import Scores
from mfact.core.adapt.model import Calibration
from mfact.core.cli import main
from mfact.core.pipeline.cache import VerdictCache
from mfact.core.pipeline.check import CachedVerifier
from mfact.core.protocols import VerifierBase
from mfact.core.session import Entity, Evidence, Fact, HumanLabel, Session, Verdict
from mfact.core.store import SCHEMA_VERSION, Store

# 50 numbers rounded to 4 digits, as the default verifier writes them; some whole, some negative
PHI = [round((i - 20) * 0.12345 + (0.5 if i % 7 == 0 else 0.0), 4) for i in range(50)]
MARK = 9.8765                      # a value no page or report may print


def session(sid: str = "s1", n: int = 6) -> Session:
    """Facts with verdicts, every other one with features; fact 1 labelled by a person."""
    text = " ".join(f"Ada fact {i}." for i in range(n))
    facts = []
    for i in range(n):
        phi = [MARK] + [x + i for x in PHI[1:]] if i % 2 == 0 else None
        facts.append(Fact(id=f"f{i}", text=f"Ada fact {i}.", sentence=i, span=(i * 11, i * 11 + 10),
                          auto=Verdict("S" if i % 3 else "NS", 0.75, "offline/3-test", ["e1"],
                                       "p(supported)=0.75", features=phi)))
    facts[1].human = HumanLabel("NS", "2026-01-02T00:00:00+00:00")
    facts[2].human = HumanLabel("S", "2026-01-02T00:00:01+00:00")
    ev = [Evidence(id="e1", source="wikipedia", lang="en", title="Ada Lovelace", text="Ada was a mathematician.")]
    return Session(language="en", entity=Entity("Ada Lovelace"), id=sid, text=text, facts=facts, evidence=ev,
                   created_at="2026-01-01T00:00:00+00:00")


def raw_features(path: Path) -> dict[str, str | None]:
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT id, auto_features FROM facts ORDER BY pos").fetchall())
    finally:
        db.close()


def test_features_round_trip_through_the_store_compactly_and_reach_learning(tmp_path):
    path = tmp_path / "s.db"
    s = session()
    with Store(path) as st:
        assert st.schema_version == SCHEMA_VERSION == 6
        st.save_session(s)
    with Store(path) as st:                                  # reopened: read from the file
        back = st.get_session("s1")
        assert back.to_dict() == s.to_dict()
        assert [f.auto.features for f in back.facts] == [f.auto.features for f in s.facts]
        assert back.facts[0].auto.features[0] == MARK and back.facts[1].auto.features is None
        rows = st.labelled_facts()
    raw = raw_features(path)
    assert raw["f0"] == json.dumps(s.facts[0].auto.features, separators=(",", ":")) and " " not in raw["f0"]
    assert len(raw["f0"]) < 50 * 9 and raw["f1"] is None        # about 400 bytes for 50 numbers
    # learning reads the features JSON as the last element of each labelled fact
    assert [(r[1], len(r)) for r in rows] == [("f1", 12), ("f2", 12)]
    assert rows[0][-1] is None and json.loads(rows[1][-1]) == s.facts[2].auto.features


def test_damaged_features_read_as_none_and_the_verdict_stays(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as st:
        st.save_session(session())
    bad = {"f0": "[1.0, 2", "f2": '["x"]', "f4": "[NaN]", "f3": '{"a": 1}', "f5": json.dumps([0.5] * 257)}
    db = sqlite3.connect(path)
    db.executemany("UPDATE facts SET auto_features=? WHERE id=?", [(v, k) for k, v in bad.items()])
    db.commit()
    db.close()
    with Store(path) as st:
        back = st.get_session("s1")
    assert all(f.auto.features is None for f in back.facts)
    assert [(f.auto.label, f.auto.confidence, f.auto.reason) for f in back.facts] == \
        [(f.auto.label, f.auto.confidence, f.auto.reason) for f in session().facts]


def test_invalid_features_are_never_written(tmp_path):
    s = session()
    s.facts[0].auto.features = [float("nan")] + PHI[1:]       # a verifier's object, not validated JSON
    s.facts[2].auto.features = [0.5] * 300
    with Store(tmp_path / "s.db") as st:
        st.save_session(s)
        back = st.get_session("s1")
    assert back.facts[0].auto.features is None and back.facts[2].auto.features is None
    assert back.facts[4].auto.features == s.facts[4].auto.features


# --------------------------------------------------------------------------- schema 4 -> 5


def build_v4_store(path: Path, sessions: list[Session]) -> None:
    """A schema-4 store: a current one holding these sessions, its `facts.auto_features` dropped and
    its version set back to 4 (schema 4 is schema 5 without that column)."""
    with Store(path) as st:
        st.save_sessions(sessions)
        st.relabel(sessions[0].id, "f3", "IR")
        st.relabel(sessions[0].id, "f3", "S")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("ALTER TABLE facts DROP COLUMN auto_features")
    db.execute("UPDATE meta SET value='4' WHERE key='schema_version'")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def all_rows(path: Path) -> dict[str, list]:
    db = sqlite3.connect(path)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'"
                                             " AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        out = {}
        for t in tables:
            cols = [r[1] for r in db.execute(f"PRAGMA table_info({t})") if r[1] != "auto_features"]
            out[t] = db.execute(f"SELECT {', '.join(cols)} FROM {t} ORDER BY {', '.join(cols)}").fetchall()
        return out
    finally:
        db.close()


def test_a_schema_4_store_is_upgraded_keeping_every_value_and_reads_no_features(tmp_path):
    path = tmp_path / "s.db"
    build_v4_store(path, [session("s1"), session("s2", 3)])
    before = all_rows(path)
    assert "auto_features" not in {r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(facts)")}
    assert before["label_history"] and any(r[1] == "4" for r in before["meta"])

    with Store(path) as st:
        assert st.upgraded_from == 4 and st.schema_version == SCHEMA_VERSION
        sessions = {s.id: s for s in st.iter_sessions()}
    after = all_rows(path)
    assert after.pop("meta") != before.pop("meta")             # the version, and only it, moved
    assert after == before                                     # every other value as it was
    assert set(raw_features(path).values()) == {None}
    assert all(f.auto.features is None for s in sessions.values() for f in s.facts)
    assert sessions["s1"].fact("f3").human.label == "S" and sessions["s1"].fact("f1").human.label == "NS"
    with Store(path) as st:                                    # opened again: nothing more to do
        assert st.upgraded_from is None
        st.save_session(session("s3"))                        # and it keeps features from now on
        assert st.get_session("s3").facts[0].auto.features[0] == MARK


# --------------------------------------------------------------------------- the verdict cache


class FeaturedVerifier(VerifierBase):
    """A verifier whose verdicts carry features (the fact's length and word count, then PHI)."""

    name = "featured"
    version = "1"

    def __init__(self) -> None:
        self.calls = 0

    def verify(self, fact, entity, lang, passages) -> Verdict:
        self.calls += 1
        return Verdict("NS", 0.8, "featured/1", [p.id for p in passages], "p(supported)=0.20",
                       features=[float(len(fact)), float(len(fact.split()))] + PHI[2:])


def test_a_cached_verdict_keeps_its_features_and_the_adaptation_comes_after_the_cache(tmp_path, mfact_home):
    ev = [Evidence(id="e1", source="wikipedia", lang="en", title="Ada", text="Ada was a mathematician.")]
    cache = VerdictCache(tmp_path / "cache.sqlite3")
    inner = FeaturedVerifier()
    v1, hit1 = CachedVerifier(inner, cache).verify("Ada was a poet.", "Ada", "en", ev)
    v2, hit2 = CachedVerifier(inner, VerdictCache(tmp_path / "cache.sqlite3")).verify(
        "Ada was a poet.", "Ada", "en", ev
    )
    assert (hit1, hit2, inner.calls) == (False, True, 1)
    assert v2.features == v1.features == [15.0, 4.0] + PHI[2:]
    raw = sqlite3.connect(tmp_path / "cache.sqlite3").execute("SELECT verdict FROM verdicts").fetchone()[0]
    assert '"features":[15.0,4.0,' in raw                      # the entry is compact JSON

    # an adaptation adopted for en that says S for every verdict of this verifier
    entry = A.LangEntry("en", 100, True, "own", "", Scores(100, 0.5, 0.0, 0.2), Scores(100, 0.8, 0.3, 0.05),
                        Calibration(np.zeros(5), 8.0))
    A.save_adaptation(A.Adaptation(7, "featured", 100, languages={"en": entry}).stamp())
    adapted, hit = CachedVerifier(inner, cache, A.Adapter()).verify("Ada was a poet.", "Ada", "en", ev)
    assert hit and inner.calls == 1 and adapted.label == "S" and adapted.adaptation.label == "NS"
    assert adapted.features == v1.features
    assert (
        cache.get(next(iter(_keys(tmp_path / "cache.sqlite3")))).adaptation is None
    )  # the cache keeps the verifier's own


def _keys(path: Path) -> list[str]:
    return [r[0] for r in sqlite3.connect(path).execute("SELECT key FROM verdicts")]


def test_a_verifier_s_invalid_features_are_dropped_not_fatal(tmp_path):
    class Broken(FeaturedVerifier):
        def verify(self, fact, entity, lang, passages) -> Verdict:
            v = super().verify(fact, entity, lang, passages)
            return replace(v, features=[float("inf")] if "inf" in fact else [0.0] * 257)

    cv = CachedVerifier(Broken(), VerdictCache(tmp_path / "c.sqlite3"))
    assert [v.features for v, _ in cv.verify_many([("inf", "Ada", "en", []), ("long", "Ada", "en", [])])] == [
        None,
        None,
    ]
    assert [v.features for v, hit in cv.verify_many([("inf", "Ada", "en", []), ("long", "Ada", "en", [])])
            if hit] == [None, None]


# --------------------------------------------------------------------------- export, import, pages


def test_export_and_import_keep_the_features_and_pages_do_not_show_them(tmp_path, capsys, monkeypatch):
    with Store() as st:
        st.save_session(session())
    path = tmp_path / "s.json"
    assert main(["export", "s1", "-o", str(path)]) == 0
    doc = json.loads(path.read_text(encoding="utf-8"))
    facts = doc["facts"] if "facts" in doc else doc["session"]["facts"]
    assert facts[0]["auto"]["features"][0] == MARK and "features" not in facts[1]["auto"]

    monkeypatch.setenv("MFACT_HOME", str(tmp_path / "other-home"))
    assert main(["import", str(path)]) == 0
    with Store() as st:
        back = st.get_session("s1")
    assert [f.auto.features for f in back.facts] == [f.auto.features for f in session().facts]

    for fmt in ("html", "pairs"):
        out = tmp_path / f"s.{fmt}"
        assert main(["export", "s1", "--format", fmt, "-o", str(out)]) == 0
        assert str(MARK) not in out.read_text(encoding="utf-8") and "features" not in out.read_text(encoding="utf-8")
    pairs = [json.loads(line) for line in (tmp_path / "s.pairs").read_text(encoding="utf-8").splitlines()]
    assert [sorted(p) for p in pairs] == [["claim", "entity", "evidence", "id", "label", "lang"]] * 2
    capsys.readouterr()
    for fmt in ("markdown", "html"):
        report = tmp_path / f"report.{fmt}"
        assert main(["report", f"--{fmt}", "-o", str(report)]) == 0, capsys.readouterr().err
        assert str(MARK) not in report.read_text(encoding="utf-8")
