"""Learning from the user's labels (core/adapt): the calibration, cross-validation (held-out labels
only are scored), adoption per language, the versioned file, the Adapter, `mfact learn`."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mfact.core.adapt import adaptation as A
from mfact.core.adapt import learn as L
from mfact.core.adapt.features import Row, feature_row, p_supported
from mfact.core.adapt.refit import verifier_id
from mfact.core.cli import main
from mfact.core.config import Config
from mfact.core.session import Adapted, Entity, Evidence, Fact, HumanLabel, Session, Verdict
from mfact.core.store import Store

# what the default verifier's verdicts record as their maker ("offline/<version>"): `mfact learn`
# learns from the labels of that version's verdicts only
CURRENT = verifier_id(Config())


def shifted_rows(lang: str, n: int, shift: float, seed: int = 0) -> list[Row]:
    """`n` verdicts whose human labels follow logit(p) + shift: a verifier too harsh (shift > 0)
    or too lenient (shift < 0) in this language."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        p = float(rng.uniform(0.05, 0.95))
        truth = 1.0 / (1.0 + np.exp(-(np.log(p / (1 - p)) + shift)))
        human = "S" if rng.random() < truth else "NS"
        rows.append(Row((lang, f"f{i}"), lang, human, "S" if p >= 0.5 else "NS", p, feature_row(p, "", False)))
    return rows


def labelled_session(sid: str, lang: str, n: int, shift: float, seed: int = 0,
                     verifier: str = CURRENT) -> Session:
    """A stored-session form of `shifted_rows`: facts with verdicts and human labels."""
    facts, text = [], ""
    for r in shifted_rows(lang, n, shift, seed):
        sent = f"Fact {r.key[1]} of {sid}. "
        conf = r.p if r.label == "S" else 1 - r.p
        facts.append(
            Fact(
                id=r.key[1],
                text=sent.strip(),
                sentence=len(facts),
                span=(len(text), len(text) + len(sent) - 1),
                auto=Verdict(r.label, round(conf, 4), verifier, ["e1"], f"p(supported)={r.p:.2f}"),
                human=HumanLabel(r.human),
            )
        )
        text += sent
    return Session(language=lang, entity=Entity("Ada Lovelace"), id=sid, text=text, facts=facts,
                   evidence=[Evidence(id="e1", source="wikipedia", lang=lang, title="Ada", text="Ada.")])


# --------------------------------------------------------------------------- p(supported)


def test_p_supported_keeps_each_verdict_on_its_side_of_the_threshold():
    assert p_supported("S", 0.8) == 0.8 and p_supported("NS", 0.8) == pytest.approx(0.2)
    assert p_supported("NS", 0.5) < 0.5 <= p_supported("S", 0.5)     # no evidence stays NS
    assert p_supported("IR", 0.9) is None and p_supported(None, None) is None


# --------------------------------------------------------------------------- cross-validation


def test_only_labels_never_seen_in_training_are_scored(monkeypatch):
    """Every label is scored exactly once, by models fitted on the other folds only."""
    rows = shifted_rows("en", 120, 1.0) + shifted_rows("tr", 60, -1.0, seed=1) + shifted_rows("fr", 15, 0.0, seed=2)
    data = L.Data.of(rows)
    fitted: list[set] = []
    scored: list[tuple[set, set]] = []
    real_fit, real_predict = L.fit_models, L.predict

    def spy_fit(d, idx, own):
        fitted.append({d.keys[i] for i in idx})
        return real_fit(d, idx, own)

    def spy_predict(models, d, idx):
        scored.append(({d.keys[i] for i in idx}, fitted[-1]))
        return real_predict(models, d, idx)

    monkeypatch.setattr(L, "fit_models", spy_fit)
    monkeypatch.setattr(L, "predict", spy_predict)
    probs = L.cross_validate(data, {"en", "tr"})
    assert not np.isnan(probs).any()
    assert len(scored) == L.FOLDS
    seen = [k for keys, _train in scored for k in keys]
    assert sorted(seen) == sorted(data.keys)                   # each label scored once
    for keys, train in scored:
        assert keys and not (keys & train)                     # never by a model that saw it
        assert len(keys) + len(train) == len(rows)


def test_no_gain_on_held_out_labels_is_not_adopted():
    """A verifier that already agrees with every label cannot be beaten: not adopted, and why."""
    rows = [Row(("en", f"f{i}"), "en", lab, lab, p, feature_row(p, "", False))
            for i, (lab, p) in enumerate((("S", 0.55 + 0.4 * k / 60), ("NS", 0.45 - 0.4 * k / 60))[k % 2]
                                         for k in range(60))]
    r = L.learn(rows).languages["en"]
    assert r.before.accuracy == 1.0 and r.after.n == 60
    assert not r.adopted and r.calibration is None
    assert r.why == "no gain on held-out labels (100.0% -> 100.0%)"


def test_learn_adopts_per_language_and_says_why_not():
    rows = shifted_rows("en", 300, 2.0) + shifted_rows("tr", 300, -2.0, seed=1) + shifted_rows("fr", 6, 0.0, seed=2)
    res = L.learn(rows)
    en, tr, fr = res.languages["en"], res.languages["tr"], res.languages["fr"]
    assert en.adopted and tr.adopted and en.model == tr.model == "own"
    assert en.gain_points > 5 and tr.gain_points > 5
    assert en.after.ece < en.before.ece
    assert en.calibration.b > 0.5 > -0.5 > tr.calibration.b       # too harsh in en, too lenient in tr
    assert not fr.adopted and fr.why == f"too few labels (6 < {L.MIN_LABELS})"


def test_a_language_with_few_labels_gets_the_pooled_calibration():
    rows = shifted_rows("en", 300, 2.0) + shifted_rows("es", 25, 2.0, seed=5)
    res = L.learn(rows)
    es = res.languages["es"]
    assert es.model == "pooled" and es.labels == 25
    if es.adopted:
        assert es.calibration.b == pytest.approx(res.pooled.b)


# --------------------------------------------------------------------------- the file and the Adapter


def test_the_adapter_applies_adopted_languages_and_records_the_version(tmp_path):
    res = L.learn(shifted_rows("en", 300, 2.5) + shifted_rows("fr", 300, 0.0, seed=4))
    a = A.from_result(res, 1)
    path = A.save_adaptation(a, tmp_path / "adaptation.json")
    assert a.version.startswith("1-") and A.load_adaptation(path).version == a.version
    ad = A.Adapter(path)
    v = Verdict("NS", 0.6, "offline/3-x", ["e1"], "p(supported)=0.40")
    got = ad.apply(v, "en")
    assert got.label == "S" and got.adaptation == Adapted(a.version, "NS", 0.6)
    assert "adapted (" in got.reason and got.unadapted.label == "NS"
    assert v.adaptation is None and v.label == "NS"                    # the verifier's verdict untouched
    assert ad.apply(got, "en") is got                                  # never adapted twice
    assert ad.apply(Verdict("IR", 0.6, "offline/3-x"), "en").adaptation is None
    assert ad.apply(Verdict("NS", 0.6, "lite/1"), "en").adaptation is None        # another verifier
    if not a.languages["fr"].adopted:
        assert ad.apply(v, "fr") is v
    assert A.Adapter(path, mode="off").apply(v, "en") is v


def test_an_adaptation_applies_only_to_the_verifier_version_it_was_fitted_on(tmp_path):
    """Fitted on offline/3-old's verdicts, it leaves a new version's verdicts alone (an upgraded
    verifier's p(supported) means something else); a file that names only the verifier (written
    before versions were recorded) applies to any version of it."""
    rows = shifted_rows("en", 300, 2.5)
    a = A.from_result(L.learn(rows, "offline/3-old"), 1)
    assert a.verifier == "offline/3-old" and a.adopted("en") is not None
    ad = A.Adapter(A.save_adaptation(a, tmp_path / "a.json"))
    assert ad.apply(Verdict("NS", 0.6, "offline/3-old", ["e1"], "p(supported)=0.40"), "en").label == "S"
    new = Verdict("NS", 0.6, "offline/3-new", ["e1"], "p(supported)=0.40")
    assert ad.apply(new, "en") is new
    legacy = A.Adapter(A.save_adaptation(A.from_result(L.learn(rows, "offline"), 1), tmp_path / "b.json"))
    assert legacy.apply(new, "en").label == "S"


def test_learning_from_the_store_takes_the_labels_of_one_version(mfact_home):
    _store_with(labelled_session("a", "en", 40, 2.5, verifier="offline/3-old"),
                labelled_session("b", "en", 30, 2.5, seed=1, verifier="offline/3-new"))
    with Store() as st:
        assert len(L.rows_from_store(st, "offline/3-new")) == 30
        assert len(L.rows_from_store(st, "offline/3-old")) == 40
        assert len(L.rows_from_store(st, "offline")) == 70


def test_mfact_learn_after_an_upgrade_says_to_rejudge_first(capsys, mfact_home):
    """Labels whose verdicts an earlier version of the default verifier made are not learnt from
    (nor is the adaptation applied to the new version's verdicts): one line says what to do."""
    _store_with(labelled_session("a", "en", 60, 2.5, verifier="offline/3-old"))
    assert main(["learn"]) == 1
    err = capsys.readouterr().err
    assert f"this version of the offline verifier ({CURRENT})" in err and "60 labels" in err
    assert "mfact rejudge --all" in err and err.count("\n") == 1
    assert not (mfact_home / "data" / "adaptation.json").exists()


def test_an_unreadable_adaptation_file_is_one_line_and_adapts_nothing(tmp_path):
    path = tmp_path / "adaptation.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(Exception) as exc:
        A.load_adaptation(path)
    assert "unreadable" in str(exc.value) and "\n" not in str(exc.value)
    v = Verdict("NS", 0.6, "offline/3-x")
    assert A.Adapter(path).apply(v, "en") is v


def test_a_verdict_keeps_its_adaptation_through_json_and_the_store():
    s = labelled_session("s1", "en", 3, 0.0)
    s.facts[0].auto.adaptation = Adapted("4-abcdef12", "NS", 0.61)
    d = s.to_dict()
    assert d["facts"][0]["auto"]["adaptation"] == {"version": "4-abcdef12", "label": "NS", "confidence": 0.61}
    assert "adaptation" not in d["facts"][1]["auto"]
    assert Session.from_dict(d).facts[0].auto.adaptation == s.facts[0].auto.adaptation
    with Store() as st:
        st.save_session(s)
        assert st.get_session("s1").facts[0].auto.adaptation == Adapted("4-abcdef12", "NS", 0.61)
    bad = json.loads(json.dumps(d))
    bad["facts"][0]["auto"]["adaptation"]["confidence"] = 2
    with pytest.raises(ValueError, match=r"facts\[0\].auto.adaptation.confidence"):
        Session.from_dict(bad)


# --------------------------------------------------------------------------- mfact learn


def _store_with(*sessions: Session) -> None:
    with Store() as st:
        st.save_sessions(list(sessions))


def test_mfact_learn_prints_the_table_writes_a_version_and_resets(capsys, mfact_home):
    _store_with(
        labelled_session("a", "en", 200, 2.5),
        labelled_session("b", "tr", 200, 0.0, seed=1),
        labelled_session("c", "es", 4, 0.0, seed=2),
        labelled_session("d", "en", 50, 2.5, seed=3, verifier="lite/1"),
    )
    assert main(["learn"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"404 labels of the offline verifier's verdicts (version {CURRENT.split('/')[1]})")
    en = next(x for x in lines if x.startswith("en "))
    assert " 200 " in en and "yes (own model, +" in en
    assert next(x for x in lines if x.startswith("es ")).endswith("no: too few labels (4 < 10)")
    path = mfact_home / "data" / "adaptation.json"
    first = json.loads(path.read_text())
    assert first["number"] == 1 and first["languages"]["en"]["adopted"] is True and first["verifier"] == CURRENT
    assert lines[-1].startswith(f"adaptation {first['version']} written to {path}")
    assert main(["learn", "--dry-run"]) == 0
    assert "--dry-run: nothing written" in capsys.readouterr().out
    assert json.loads(path.read_text())["version"] == first["version"]
    assert main(["learn", "--reset"]) == 0
    second = json.loads(path.read_text())
    assert second["number"] == 2 and second["reset"] and second["languages"] == {}
    assert "unadapted verifier" in capsys.readouterr().out


def test_mfact_learn_lang_keeps_the_other_languages(capsys, mfact_home):
    _store_with(labelled_session("a", "en", 200, 2.5), labelled_session("b", "tr", 200, -2.5, seed=1))
    assert main(["learn"]) == 0
    before = json.loads((mfact_home / "data" / "adaptation.json").read_text())
    assert main(["learn", "--lang", "tr"]) == 0
    out = capsys.readouterr().out
    assert "\ntr " in out and "\nen " not in out.split("adaptation 1-")[1]
    after = json.loads((mfact_home / "data" / "adaptation.json").read_text())
    assert after["number"] == 2 and after["languages"]["en"] == before["languages"]["en"]
    assert main(["learn", "--lang", "ko"]) == 1
    assert "no labelled fact in ko has a verdict" in capsys.readouterr().err
    assert json.loads((mfact_home / "data" / "adaptation.json").read_text()) == after


@pytest.mark.parametrize("args,message", [
    (["learn"], "no labelled fact has a verdict of the offline verifier"),
    (["learn", "--lang", "xx-nope"], "xx-nope"),
])
def test_mfact_learn_bad_input_is_one_line(capsys, args, message):
    assert main(args) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
