"""Typed metrics and checks (core/figures.py): the session JSON is the same byte for byte, files
from older or newer versions keep their unknown keys, errors name the field, and core reads the
figures by attribute, never by string key."""
from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mfact.core import metrics as M
from mfact.core.checks import calm_checks
from mfact.core.events import MetricsEvent
from mfact.core.fake import (FakeEmbedder, FakeExtractor, FakeGenerator, FakeRetriever, FakeStages, FakeVerifier,
                             fake_pipeline)
from mfact.core.figures import (Agreement, Calm, CheckError, Checks, Counts, DriftStop, Metrics,
                                SelfCheck)
from mfact.core.formats import read_sessions
from mfact.core.pipeline import CheckPipeline, Stages
from mfact.core.session import Entity, Session, SessionFormatError
from mfact.core.store import Store

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[1]
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
         "kilo", "lima", "mike", "november", "oscar", "papa", "quebec"]
DRIFT = "N S S S S S S S N N S N N N S N N".split()


def numbered(n: int) -> str:
    return "".join(f"Ada Example founded the {WORDS[i]} society in Paris. " for i in range(n))


def dumps(d) -> str:
    return json.dumps(d, ensure_ascii=False, indent=2)


def final(pipeline, entity="Marie Curie"):
    events = list(pipeline.run(entity, "en"))
    return events[-1].session, [e for e in events if isinstance(e, MetricsEvent)]


RUNS = {
    "plain": lambda: fake_pipeline(),
    "selfcheck": lambda: fake_pipeline(
        text="Marie Curie was born in Warsaw. She was the first president of Brazil. ",
        stages=FakeStages(samples=["Marie Curie was born in Warsaw in Poland. She studied physics in Paris. ",
                                   "Marie Curie was born in Warsaw. She won two Nobel prizes. "]), selfcheck_samples=2),
    "drift-stop": lambda: fake_pipeline(text=numbered(17), labels=DRIFT, stages=FakeStages(delay=0.02),
                                        stop_at_drift=True, drift_threshold=0.75),
    "repetition": lambda: fake_pipeline(text="Marie Curie was born in Warsaw in 1867. She died in 1934. "
                                        "Marie Curie was born in Warsaw in 1867. She won a prize. "),
    "error": lambda: CheckPipeline(Stages(FakeGenerator(numbered(6)), FakeExtractor(), FakeRetriever(),
                                          FakeVerifier(fail_on="echo"), embedder=FakeEmbedder())),
}


# --------------------------------------------------------------------------- the JSON is unchanged


@pytest.mark.parametrize("name", list(RUNS))
def test_sessions_of_real_runs_round_trip_exactly(name, mfact_home):
    s, metric_events = final(RUNS[name]())
    text = dumps(s.to_dict())
    again = Session.from_dict(json.loads(text))
    assert dumps(again.to_dict()) == text
    # through the store too
    store = Store()
    try:
        store.save_session(again)
        assert dumps(store.get_session(s.id).to_dict()) == text
    finally:
        store.close()
    # what each run recorded is there, typed
    c, m = s.checks, s.metrics
    assert c.has_calm and c.language_ok is True and isinstance(m.counts, Counts)
    assert m.n_facts == len(s.facts) and m.counts.S + m.counts.NS + m.counts.IR + m.counts.pending \
        == len(s.facts)
    if name == "selfcheck":
        assert isinstance(c.selfcheck, SelfCheck) and m.selfcheck == c.selfcheck.mean
        assert [x.index for x in c.selfcheck.sentences] == [0, 1]
    if name == "drift-stop":
        assert isinstance(c.drift_stop, DriftStop) and c.drift_stop.score >= 0.75
    if name == "repetition":
        assert c.repeated_sentence.start > 0 and s.stop_reason == "repetition"
    if name == "error":
        assert isinstance(c.error, CheckError) and c.error.message
    assert isinstance(metric_events[-1].metrics, Metrics)


def test_the_figures_keep_the_key_order_of_the_old_dicts(mfact_home):
    s, _ = final(RUNS["selfcheck"]())
    assert list(s.to_dict()["metrics"]) == [
        "factscore", "factscore_relevant_only", "factscore_gamma", "semantic_drift", "drift_point",
        "drift_position", "supported_before", "unsupported_after", "drifting", "drift_p_value", "calm",
        "n_facts", "n_labelled", "counts", "abstained", "agreement", "hallucination_rate",
        "hallucination_rate_raw", "hallucination_rate_reason", "hallucination_precision",
        "hallucination_recall", "selfcheck"]
    assert list(s.to_dict()["metrics"]["counts"]) == ["S", "NS", "IR", "pending"]
    assert list(s.to_dict()["checks"]) == ["non_empty", "detected_language", "language_prob",
                                           "language_ok", "repetitive", "passed", "selfcheck"]
    assert list(s.to_dict()["checks"]["selfcheck"]) == ["samples", "embedder", "sentences", "mean",
                                                        "facts"]


def test_imported_factscore_sessions_round_trip_exactly(tmp_path, shared_dir):
    src = shared_dir / "data" / "factscore" / "ChatGPT.jsonl"
    f = tmp_path / "some.jsonl"
    f.write_text("".join(src.read_text(encoding="utf-8").splitlines(keepends=True)[:4]), encoding="utf-8")
    for s in read_sessions(f, "factscore"):
        # (reading sorts the facts into text order: the import keeps FActScore's order)
        text = dumps(Session.from_dict(s.to_dict()).to_dict())
        assert dumps(Session.from_dict(json.loads(text)).to_dict()) == text
        assert json.loads(text)["checks"] == s.to_dict()["checks"]
        assert s.checks.has_calm and s.metrics.to_dict() == {}


OLD_OR_NEW = {
    "schema": "mfact.session/1", "id": "s1", "language": "en", "entity": {"name": "Marie Curie"},
    "text": "Marie Curie was born in Warsaw.",
    # another order, a subset, unknown keys at every level, ints where floats are usual
    "checks": {"passed": True, "from_the_future": {"a": [1, 2, {"b": None}]}, "language_ok": True,
               "drift_stop": {"point": 3, "facts": 9, "score": 1, "why": "x"},
               "selfcheck": {"mean": None, "sentences": [{"score": 0.25, "index": 0, "new": 1}],
                             "facts": {"f1": None, "f2": 0.5}}},
    "metrics": {"calm": {"non_empty": True, "new_check": "?"}, "factscore": 1, "semantic_drift": None,
                "counts": {"S": 1, "unsure": 4}, "new_figure": 0.3, "agreement": {"n": 0}},
}


def test_a_file_from_an_older_or_newer_version_loses_nothing(tmp_path, mfact_home):
    text = dumps(OLD_OR_NEW)
    s = Session.from_dict(json.loads(text))
    out = s.to_dict()
    for key in ("checks", "metrics"):
        assert dumps(out[key]) == dumps(OLD_OR_NEW[key])
    assert s.metrics.factscore == 1 and s.metrics.drift_point is None and s.metrics.calm.non_empty
    assert s.metrics.extra == {"new_figure": 0.3} and s.metrics.counts.extra == {"unsure": 4}
    assert s.checks.drift_stop.point == 3 and s.checks.selfcheck.sentences[0].extra == {"new": 1}
    assert not s.checks.has_calm          # so the CaLM checks are computed when needed
    # a figure set later comes after the keys read, as in a dict
    s.metrics.drift_point = 4
    assert list(s.metrics.to_dict())[-1] == "drift_point"
    # through the CLI: import, then show the stored session as JSON
    f = tmp_path / "old.json"
    f.write_text(text, encoding="utf-8")
    bin_dir = Path(sys.executable).parent
    subprocess.run([str(bin_dir / "mfact"), "import", str(f)], check=True, capture_output=True, timeout=120)
    p = subprocess.run([str(bin_dir / "mfact"), "sessions", "show", "s1", "--json"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    shown = json.loads(p.stdout)
    assert dumps(shown["checks"]) == dumps(OLD_OR_NEW["checks"])
    assert dumps(shown["metrics"]) == dumps(OLD_OR_NEW["metrics"])


# --------------------------------------------------------------------------- errors name the field


@pytest.mark.parametrize("path,value,needle", [
    ("metrics.factscore", "high", "metrics.factscore: must be a number or null, got a string"),
    ("metrics.drifting", 1, "metrics.drifting: must be true or false or null, got a number"),
    ("metrics.n_facts", 2.5, "metrics.n_facts: must be an integer or null, got a number"),
    ("metrics.calm", [], "metrics.calm: must be an object, got a list"),
    ("metrics.calm.language_ok", "yes", "metrics.calm.language_ok: must be true or false"),
    ("metrics.counts.S", True, "metrics.counts.S: must be an integer or null, got a boolean"),
    ("checks.detected_language", 3, "checks.detected_language: must be a string or null, got a number"),
    ("checks.selfcheck.sentences", {}, "checks.selfcheck.sentences: must be a list or null, got an object"),
    ("checks.selfcheck.sentences", [{"score": "x"}],
     "checks.selfcheck.sentences[0].score: must be a number or null, got a string"),
    ("checks.selfcheck.facts", {"f1": "x"}, "checks.selfcheck.facts.f1: must be a number or null"),
    ("checks.error", "boom", "checks.error: must be an object, got a string"),
    ("metrics", [1], "metrics: must be an object, got a list"),
])
def test_a_bad_figure_is_refused_naming_the_field(path, value, needle):
    d = copy.deepcopy(OLD_OR_NEW)
    obj, keys = d, path.split(".")
    for k in keys[:-1]:
        obj = obj.setdefault(k, {})
    obj[keys[-1]] = value
    with pytest.raises(SessionFormatError) as e:
        Session.from_dict(d)
    assert str(e.value).startswith(needle), str(e.value)
    with pytest.raises(SessionFormatError, match="^session.x.metrics|^session.x.checks"):
        Session.from_dict(d, where="session.x")


def test_a_bad_figure_is_one_line_from_the_cli(tmp_path, mfact_home):
    d = copy.deepcopy(OLD_OR_NEW)
    d["metrics"]["calm"]["language_ok"] = "\x1b[31myes"
    f = tmp_path / "bad.json"
    f.write_text(dumps(d), encoding="utf-8")
    p = subprocess.run([str(Path(sys.executable).parent / "mfact"), "score", str(f)], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert "metrics.calm.language_ok: must be true or false or null, got a string" in p.stderr
    assert "\x1b" not in p.stderr


# --------------------------------------------------------------------------- the typed objects


def test_built_in_code_an_object_has_every_key_but_the_optional_ones():
    assert list(Checks(language_ok=True).to_dict()) == ["non_empty", "detected_language", "language_prob",
                                                        "language_ok", "repetitive", "passed"]
    assert "selfcheck" not in Metrics().to_dict() and Metrics(selfcheck=None).to_dict().get("selfcheck", 1)
    m = Metrics()
    m.selfcheck = None                       # set, even to null: the key is there
    assert list(m.to_dict())[-1] == "selfcheck" and m.to_dict()["selfcheck"] is None
    assert Metrics.empty().to_dict() == {} and not Metrics.empty() and Checks.empty().to_dict() == {}
    assert Agreement(3, 0.5, None, "why").to_dict() == {"n": 3, "accuracy": 0.5, "kappa": None,
                                                         "reason": "why"}


def test_update_is_dict_update_and_copy_is_independent():
    old = {"b": 1, "factscore": 0.1, "calm": {"non_empty": False}}
    m = Metrics.from_dict(copy.deepcopy(old), "metrics")
    new = Metrics(factscore=0.5, n_facts=3)
    m.update(new)
    want = dict(old)
    want.update(new.to_dict())
    assert dumps(m.to_dict()) == dumps(want)
    c = m.copy()
    c.drift_point = 7
    c.extra["z"] = 1
    assert m.drift_point is None and "z" not in m and "drift_point" in c
    m2 = Metrics.from_dict(copy.deepcopy(old), "metrics")
    deep = copy.deepcopy(m2)
    deep.calm.language_ok = True
    assert m2.calm.language_ok is None
    assert dumps(deep.to_dict()["calm"]) == dumps({"non_empty": False, "language_ok": True})


def test_the_mapping_view_is_the_json():
    s, _ = final(RUNS["plain"]())
    m = s.metrics
    assert m["factscore"] == m.factscore and m.get("nope") is None and "selfcheck" not in m
    assert m == s.to_dict()["metrics"] and dict(m)["calm"] == m.calm
    assert json.loads(json.dumps(s.to_dict())) == s.to_dict()
    with pytest.raises(KeyError):
        Metrics.empty()["factscore"]


def test_plain_dicts_given_to_a_session_become_typed():
    s = Session(language="en", entity=Entity("X"), metrics={"factscore": 0.5},
                checks={"language_ok": False, "detected_language": "fr", "repetitive": True,
                        "non_empty": True})
    assert isinstance(s.metrics, Metrics) and s.metrics.factscore == 0.5
    assert isinstance(s.checks, Checks) and s.checks.has_calm
    s.metrics = {}
    assert isinstance(s.metrics, Metrics) and s.to_dict()["metrics"] == {}
    out = M.session_metrics(s, p_value=False)
    assert out.calm == Calm(language_ok=False, detected_language="fr", repetitive=True, non_empty=True)
    assert calm_checks("", "en").to_dict()["detected_language"] is None


# --------------------------------------------------------------------------- property: any file round-trips

_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
_json = st.recursive(_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                     max_leaves=8)
_num = st.one_of(st.none(), st.integers(-100, 100), st.floats(allow_nan=False, allow_infinity=False))
_int = st.one_of(st.none(), st.integers(0, 10**6))
_bool = st.one_of(st.none(), st.booleans())
_str = st.one_of(st.none(), st.text(max_size=10))


def _obj(known: dict) -> st.SearchStrategy:
    """A JSON object with some of the known keys (valid values), unknown keys, in any order."""
    @st.composite
    def build(draw):
        keys = draw(st.lists(st.sampled_from(sorted(known)), unique=True)) if known else []
        items = [(k, draw(known[k])) for k in keys]
        items += [(k, draw(_json)) for k in draw(st.lists(st.text(max_size=6).filter(
            lambda k: k not in known), unique=True, max_size=3))]
        return dict(draw(st.permutations(items)))
    return build()


_CALM = {"language_ok": _bool, "detected_language": _str, "repetitive": _bool, "non_empty": _bool}
_METRICS = {"factscore": _num, "semantic_drift": _num, "drift_point": _int, "drifting": _bool,
            "calm": _obj(_CALM), "counts": _obj({"S": _int, "NS": _int, "IR": _int, "pending": _int}),
            "agreement": _obj({"n": _int, "kappa": _num, "reason": _str}),
            "hallucination_rate_reason": _str, "selfcheck": _num}
_CHECKS = {**_CALM, "language_prob": _num, "passed": _bool,
           "repeated_sentence": _obj({"start": _int, "end": _int}),
           "drift_stop": _obj({"facts": _int, "score": _num, "point": _int}),
           "selfcheck": _obj({"samples": _int, "embedder": _str, "mean": _num,
                              "sentences": st.lists(_obj({"index": _int, "score": _num}), max_size=3),
                              "facts": st.dictionaries(st.text(max_size=4), _num, max_size=3)}),
           "error": _obj({"stage": _str, "message": _str})}


@settings(max_examples=150, deadline=None)
@given(metrics=_obj(_METRICS), checks=_obj(_CHECKS))
def test_any_valid_figures_round_trip_byte_for_byte(metrics, checks):
    m, c = Metrics.from_dict(metrics, "metrics"), Checks.from_dict(checks, "checks")
    assert json.dumps(m.to_dict()) == json.dumps(metrics)
    assert json.dumps(c.to_dict()) == json.dumps(checks)
    assert json.dumps(copy.deepcopy(m).to_dict()) == json.dumps(m.copy().to_dict()) == json.dumps(metrics)
    assert list(m) == list(metrics) and list(c) == list(checks)


# --------------------------------------------------------------------------- no string keys in core

_STRINGLY = re.compile(r"\.(metrics|checks)(\[|\.get\(|\.setdefault\(|\.pop\()|"
                       r"\b(metrics|checks)\[\"")
# a batch event told as a kind string and loose parts, `on_event("done", job, data)`
_STRINGLY_EVENTS = re.compile(r"\bon_event\(\s*[\"']|def on_event\(\s*(self,\s*)?kind\b|"
                              r"\brecord\(\s*\w+,\s*[\"'](done|failed|interrupted)")


def _matches(pattern: re.Pattern, *dirs: str) -> list[str]:
    found = []
    for d in dirs:
        for path in sorted((ROOT / d).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    return found


def test_core_reads_the_figures_by_attribute_and_batch_events_are_typed():
    found = _matches(_STRINGLY, "core") + _matches(_STRINGLY_EVENTS, "core", "tui", "tests", "bench")
    found = [f for f in found if not f.startswith("tests/test_figures.py")]
    assert not found, "\n".join(found)


def test_the_tui_header_reads_the_typed_figures(mfact_home):
    from mfact.tui.render import Palette
    from mfact.tui.widgets.metrics_bar import RunState, metrics_text

    s, _ = final(RUNS["drift-stop"]())
    typed = metrics_text(s, s.metrics, s.checks, Palette(), RunState(running=False)).plain
    assert f"FActScore {100 * s.metrics.factscore:.1f}" in typed
    assert f"SD {s.metrics.semantic_drift:.2f} @ fact {s.metrics.drift_point + 1}" in typed
    d = s.to_dict()
    assert metrics_text(s, d["metrics"], d["checks"], Palette(), RunState(running=False)).plain == typed
    # the run's checks win over the last metrics' CaLM figures; nothing known: "…"
    wrong = metrics_text(s, s.metrics, {"language_ok": False, "detected_language": "fr"}, Palette(),
                         RunState(running=True)).plain
    assert "fr" in wrong and "FActScore" in wrong
    empty = metrics_text(s, Metrics.empty(), Checks.empty(), Palette(), RunState(running=True)).plain
    assert "FActScore — S/all" in empty and "lang …" in empty and "repetition …" in empty
