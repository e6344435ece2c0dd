"""`mfact rejudge` (new verdicts for stored sessions, flips reported, human labels untouched), the
adaptation in a real check, and `mfact export --format pairs`."""
from __future__ import annotations

import json
import sqlite3

import numpy as np

from mfact.core.adapt import adaptation as A
from mfact.core.adapt.model import Calibration
from mfact.core.adapt.learn import LangResult, Scores
from mfact.core.cli import main
from mfact.core.session import Entity, Evidence, Fact, HumanLabel, Session, Verdict
from mfact.core.store import Store

CURIE = ("Marie Curie was a Polish and naturalised-French physicist and chemist who conducted pioneering "
         "research on radioactivity. She was born in Warsaw in 1867. She won the Nobel Prize in Physics in "
         "1903 and the Nobel Prize in Chemistry in 1911. She died in 1934 in Passy, France.")
FACTS = ["Marie Curie was a physicist.", "Marie Curie was born in Warsaw.", "Marie Curie was born in 1867.",
         "Marie Curie won the Nobel Prize in Physics.", "Marie Curie was a famous painter.",
         "Marie Curie died in 1950.", "Marie Curie was born in Madrid.", "Marie Curie wrote many novels."]


def curie_session(sid: str, stale: str = "NS") -> Session:
    """Facts with stale verdicts (all `stale`, an old verifier) and the Wikipedia lead as evidence."""
    text = " ".join(FACTS)
    facts, pos = [], 0
    for i, t in enumerate(FACTS):
        facts.append(Fact(id=f"f{i}", text=t, sentence=i, span=(pos, pos + len(t)),
                          auto=Verdict(stale, 0.7, "offline/0-old", ["e1"], "an old verdict")))
        pos += len(t) + 1
    ev = [Evidence(id="e1", source="wikipedia", lang="en", title="Marie Curie", text=CURIE, score=1.0)]
    return Session(language="en", entity=Entity("Marie Curie"), id=sid, text=text, facts=facts, evidence=ev)


def human_state(home) -> tuple[list, list]:
    db = sqlite3.connect(home / "data" / "sessions.sqlite3")
    try:
        labels = db.execute(
            "SELECT session_id, id, human_label, human_time FROM facts ORDER BY session_id, id"
        ).fetchall()
        history = db.execute("SELECT * FROM label_history ORDER BY seq").fetchall()
    finally:
        db.close()
    return labels, history


def auto_labels(home) -> dict:
    with Store(home / "data" / "sessions.sqlite3") as st:
        return {(s.id, f.id): f.auto for s in st.iter_sessions() for f in s.facts}


def write_all_supported_adaptation(verifier: str = "offline") -> str:
    """An adaptation adopted for en whose calibration says S for every verdict."""
    cal = Calibration(np.zeros(5), 8.0)
    entry = A.LangEntry("en", 100, True, "own", "", Scores(100, 0.5, 0.0, 0.2), Scores(100, 0.8, 0.3, 0.05), cal)
    a = A.Adaptation(7, verifier, 100, languages={"en": entry}).stamp()
    A.save_adaptation(a)
    assert LangResult("en", 100, entry.before, entry.after).gain_points > 0
    return a.version


def test_rejudge_reports_flips_and_leaves_every_human_label_as_it_was(capsys, mfact_home):
    with Store() as st:
        st.save_sessions([curie_session("s1"), curie_session("s2", stale="S")])
        st.relabel("s1", "f0", "S")
        st.relabel("s1", "f4", "IR")
        st.relabel("s1", "f4", "NS")               # a history of two changes
        st.relabel("s2", "f5", "NS")
    labels0, history0 = human_state(mfact_home)
    old = auto_labels(mfact_home)

    assert main(["rejudge", "--all", "--dry-run"]) == 0
    assert "--dry-run: nothing written" in capsys.readouterr().out
    assert {k: v.verifier for k, v in auto_labels(mfact_home).items()} == {k: "offline/0-old" for k in old}

    assert main(["rejudge", "--all"]) == 0
    out = capsys.readouterr().out
    new = auto_labels(mfact_home)
    flipped = sum(1 for k in old if old[k].label != new[k].label)
    assert 0 < flipped < len(old)                        # the stale verdicts were not all wrong
    assert "rejudged 2 sessions, 16 facts with offline/" in out
    assert f": {flipped} verdicts flipped (" in out and "human labels untouched" in out
    assert all(v.verifier.startswith("offline/") and v.verifier != "offline/0-old" for v in new.values())
    assert new[("s1", "f1")].label == "S" and new[("s1", "f5")].label == "NS"     # Warsaw yes, 1950 no
    assert human_state(mfact_home) == (labels0, history0)

    version = write_all_supported_adaptation()
    assert main(["rejudge", "s1"]) == 0
    out = capsys.readouterr().out
    after = auto_labels(mfact_home)
    ns = [f for f in FACTS if new[("s1", f"f{FACTS.index(f)}")].label == "NS"]
    assert f"{len(ns)} verdicts flipped (NS->S {len(ns)})" in out and f"adaptation {version}" in out
    assert all(after[("s1", f"f{i}")].label == "S" and after[("s1", f"f{i}")].adaptation.version == version
               for i in range(len(FACTS)))
    assert after[("s2", "f0")] == new[("s2", "f0")]                   # s2 was not asked for
    assert human_state(mfact_home) == (labels0, history0)

    assert main(["rejudge", "s1", "--adapt", "off"]) == 0             # back to the verifier's own verdicts
    assert f"{len(ns)} verdicts flipped (S->NS {len(ns)})" in capsys.readouterr().out


def test_rejudge_without_a_session_is_one_line(capsys):
    assert main(["rejudge"]) == 1
    err = capsys.readouterr().err
    assert "give either a SESSION_ID or --all" in err and err.count("\n") == 1
    assert main(["rejudge", "nosuch"]) == 1
    assert "no session 'nosuch'" in capsys.readouterr().err


def test_a_check_records_the_adaptation_version_in_its_verdicts(capsys, tmp_path):
    """A real check (the offline verifier, given evidence) after the adaptation is written: every
    S/NS verdict carries its version and the verifier's own verdict; with adapt = off none does."""
    version = write_all_supported_adaptation()
    text = tmp_path / "t.txt"
    text.write_text("Marie Curie was born in Madrid. Marie Curie won the Nobel Prize in Physics.", encoding="utf-8")
    ev = tmp_path / "e.jsonl"
    ev.write_text(json.dumps({"text": CURIE, "title": "Marie Curie"}) + "\n", encoding="utf-8")
    base = ["check", "--lang", "en", "--entity", "Marie Curie", "--text-file", str(text), "--evidence", str(ev),
            "--extractor", "rules", "--json"]
    assert main(base) == 0
    s = json.loads(capsys.readouterr().out)
    autos = [f["auto"] for f in s["session"]["facts"] if f["auto"]["label"] != "IR"] if "session" in s else \
        [f["auto"] for f in s["facts"] if f["auto"]["label"] != "IR"]
    assert autos and all(a["label"] == "S" and a["adaptation"]["version"] == version for a in autos)
    assert any(a["adaptation"]["label"] == "NS" for a in autos)         # Madrid: the verifier said NS
    assert main(base + ["--adapt", "off"]) == 0
    s = json.loads(capsys.readouterr().out)
    facts = s["session"]["facts"] if "session" in s else s["facts"]
    assert all("adaptation" not in f["auto"] for f in facts)


def test_export_pairs_writes_the_labels_as_training_data_that_verify_pairs_reads(capsys, tmp_path):
    s = curie_session("s1")
    s.facts[1].human = HumanLabel("S")
    s.facts[5].human = HumanLabel("NS")
    s.facts[6].auto.evidence = []
    s.facts[6].human = HumanLabel("NS")
    with Store() as st:
        st.save_session(s)
    path = tmp_path / "pairs.jsonl"
    assert main(["export", "--all", "--format", "pairs", "-o", str(path)]) == 0
    assert "exported 3 labelled facts of 1 session" in capsys.readouterr().out
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [list(r)[:4] for r in rows] == [["claim", "evidence", "lang", "label"]] * 3
    assert rows[0] == {"claim": FACTS[1], "evidence": [CURIE], "lang": "en", "label": "S", "id": "s1:f1",
                       "entity": "Marie Curie"}
    assert rows[2]["evidence"] == [] and rows[1]["label"] == "NS"
    assert main(["verify-pairs", str(path), "--json"]) == 0
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [g["id"] for g in got] == ["s1:f1", "s1:f5", "s1:f6"]


def test_learn_on_imported_factscore_chatgpt_labels_prints_before_and_after(capsys, tmp_path, shared_dir):
    """The issue's must-show: FActScore's human-labelled ChatGPT biographies (the first 60) imported,
    judged by the offline verifier (`rejudge`; no stored evidence), then `mfact learn`: the table
    with before/after figures, and adopted or refused with a reason."""
    src = shared_dir / "data" / "factscore" / "ChatGPT.jsonl"
    part = tmp_path / "chatgpt60.jsonl"
    part.write_text("".join(src.read_text(encoding="utf-8").splitlines(keepends=True)[:60]), encoding="utf-8")
    assert main(["import", str(part)]) == 0
    labels0, _ = human_state_of_store()
    assert main(["rejudge", "--all"]) == 0
    capsys.readouterr()
    assert main(["learn"]) == 0
    out = capsys.readouterr().out
    print(out)
    row = next(line for line in out.splitlines() if line.startswith("en "))
    cells = row.split()
    assert int(cells[1]) > 500 and cells[3] == cells[6] == cells[9] == "->"    # labels; before -> after
    before, after = float(cells[2]), float(cells[4])
    assert 0 < before < 100 and 0 < after < 100 and float(cells[8]) < 1 and float(cells[10]) < 1
    verdict = row.split("  ")[-1]
    if after > before:
        assert verdict.startswith("yes (own model, +") and verdict.endswith(" pts)")
        assert abs(float(verdict.split(", ")[1].split()[0]) - (after - before)) < 0.15
    else:
        assert verdict == f"no: no gain on held-out labels ({before:.1f}% -> {after:.1f}%)"
    assert human_state_of_store()[0] == labels0


def human_state_of_store() -> tuple[list, list]:
    from mfact.core import paths
    return human_state(paths.store_file().parent.parent)


class _WithFeatures:
    """The configured verifier, its verdicts given features (the fact's length and a running
    number) while `on` is set, none after: a verifier that returns features, as the default one
    does once it reads the detector's numbers, and one that does not."""

    on = True

    def __init__(self, inner):
        self.inner = inner
        # another version for each (the verdict cache keeps a verdict's features with it)
        self.name, self.version = inner.name, inner.version + ("-features" if _WithFeatures.on else "-plain")
        self.n = 0

    def __getattr__(self, attr):                 # describe, close, load, prepare, uses_context...
        return getattr(self.inner, attr)

    def verify(self, *item) -> Verdict:
        return self.verify_batch([item])[0]

    def verify_batch(self, items, **kw) -> list[Verdict]:
        out = self.inner.verify_batch(items, **kw)
        for (fact, *_), v in zip(items, out):
            self.n += 1
            v.features = [float(len(fact)), float(self.n), 0.1234] if _WithFeatures.on else None
        return out


def test_rejudge_writes_the_new_verdicts_features_and_no_human_label(capsys, mfact_home, monkeypatch):
    from mfact.core import checking

    real = checking.build_verifier
    monkeypatch.setattr(checking, "build_verifier", lambda *a, **kw: _WithFeatures(real(*a, **kw)))
    s1 = curie_session("s1")
    s1.facts[3].auto.features = [9.0] * 5                 # a verdict from before, with features
    with Store() as st:
        st.save_sessions([s1, curie_session("s2")])
        st.relabel("s1", "f0", "S")
        st.relabel("s1", "f0", "NS")
        st.relabel("s2", "f6", "IR")
    labels0, history0 = human_state(mfact_home)

    assert main(["rejudge", "s1"]) == 0
    assert "human labels untouched" in capsys.readouterr().out
    autos = auto_labels(mfact_home)
    feats = [autos[("s1", f"f{i}")].features for i in range(len(FACTS))]
    assert [f[0] for f in feats] == [float(len(t)) for t in FACTS] and all(f[2] == 0.1234 for f in feats)
    assert len({f[1] for f in feats}) == len(FACTS)                # each fact its own verdict's numbers
    assert all(autos[("s2", f"f{i}")].features is None for i in range(len(FACTS)))    # s2 not asked for
    with Store() as st:                                            # and learning reads them
        rows = {(r[0], r[1]): r[-1] for r in st.labelled_facts()}
    assert json.loads(rows[("s1", "f0")]) == feats[0] and rows[("s2", "f6")] is None
    assert human_state(mfact_home) == (labels0, history0)

    _WithFeatures.on = False                                       # a verifier without features
    try:
        assert main(["rejudge", "--all"]) == 0
    finally:
        _WithFeatures.on = True
    assert all(v.features is None for v in auto_labels(mfact_home).values())     # none kept from before
    assert human_state(mfact_home) == (labels0, history0)
