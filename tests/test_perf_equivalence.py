"""Fast paths give what the plain ones give: the validator's walk without field paths, the
repetition check's hashed candidates, a fact's token count by binary search, a one-line session
file parsed once. Property tests against the straightforward versions."""
from __future__ import annotations

import json
import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mfact.core import checks, inputs
from mfact.core import metrics as M
from mfact.core.formats import read_sessions
from mfact.core.errors import MfactError

# ------------------------------------------------------------------ the validator


def slow_loads(text: str, name: str = "f.json"):
    """inputs.loads without its fast path: every hook, the walk that names fields."""
    try:
        data = json.loads(text, parse_int=inputs._parse_int, parse_float=inputs._parse_float,
                          parse_constant=inputs._parse_constant, object_pairs_hook=inputs._object)
    except RecursionError:
        return "deep"
    except json.JSONDecodeError as exc:
        return f"json: {exc.msg}"
    return inputs._first_problem(data, "") or data


def fast_loads(text: str, name: str = "f.json"):
    try:
        return inputs.loads(text, name)
    except MfactError as exc:
        return exc.message


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8), st.sampled_from(["\ud800", "a\udfffb", "\U0001f600"]))
json_trees = st.recursive(scalars, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=4), kids, max_size=4)), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(tree=json_trees, ascii_only=st.booleans(), raw=st.sampled_from(
    ["", "NaN", "Infinity", "1e999", "1" * 50, "0." + "1" * 200, '"\\ud800"', '"\\uD83D\\uDE00"',
     '{"k": 1, "k": 2}', '[{"a": {"b": 1, "c": 2, "b": 3}}]']))
def test_loads_fast_path_agrees(tree, ascii_only, raw):
    try:
        text = json.dumps({"a": tree, "b": [1, 2]}, ensure_ascii=ascii_only)
    except UnicodeEncodeError:
        return
    if raw:
        text = text[:-1] + f', "raw": {raw}}}'
    assert_same(text)


def assert_same(text: str) -> None:
    slow = slow_loads(text)
    fast = fast_loads(text)
    if slow == "deep":
        assert "nested deeper" in fast
    elif isinstance(slow, str):
        assert fast == f"f.json: {slow}"
    else:
        assert fast == slow


def test_loads_deep_and_wide():
    for depth in (63, 64, 65, 66, 200):
        for inner in ("1", "", "{}", '{"k": 1}', '"s"'):
            assert_same("[" * depth + inner + "]" * depth)
        text = "[" * depth + "1" + "]" * depth
        assert (fast_loads(text) == json.loads(text)) == (depth <= 64), depth
    assert "nested deeper" in fast_loads("[" * 100_000 + "]" * 100_000)
    assert "5000 digits" in fast_loads('{"x": ' + "7" * 5000 + "}")
    assert "beyond the 64-bit" in fast_loads('{"x": [' + str(2**64) + "]}")
    assert fast_loads('{"x": ' + str(2**63 - 1) + "}") == {"x": 2**63 - 1}


# ------------------------------------------------------------------ the repetition check


def plain_repeated_run(toks, run, times):
    if run <= 0 or len(toks) < run:
        return None
    seen = Counter()
    for i in range(len(toks) - run + 1):
        key = tuple(toks[i:i + run])
        seen[key] += 1
        if seen[key] >= times:
            return key
    return None


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 600), vocab=st.integers(1, 50),
       run=st.integers(1, 25), times=st.integers(1, 6), big=st.booleans())
def test_repeated_run_same_as_counting_every_run(seed, n, vocab, run, times, big):
    rng = random.Random(seed)
    base = [rng.randrange(vocab) + (2**40 if big else 0) for _ in range(n)]
    if n > 50 and rng.random() < 0.5:          # plant a repeated phrase
        phrase = base[:rng.randint(run, run + 5)]
        for _ in range(rng.randint(1, times + 1)):
            at = rng.randrange(len(base))
            base[at:at] = phrase
    assert checks.repeated_run(base, run, times) == plain_repeated_run(base, run, times)


def test_repeated_run_long_text():
    rng = random.Random(3)
    toks = [rng.randrange(200_000) for _ in range(50_000)]
    assert checks.repeated_run(toks) is None
    phrase = toks[100:125]
    for at in (9_000, 20_000, 30_000):
        toks[at:at] = phrase
    assert checks.repeated_run(toks) == plain_repeated_run(toks, 20, 4) == tuple(phrase[:20])


# ------------------------------------------------------------------ token counts


def walk_tokens_in(text, spans):
    bounds = sorted((s[0], s[1]) for s in spans)
    count = i = 0
    for start, end in M._text_tokens(text):
        while i < len(bounds) and bounds[i][1] <= start:
            i += 1
        if i < len(bounds) and bounds[i][0] < end:
            count += 1
    return count


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.sampled_from(["Curie", "1867", ",", " ", "  ", "出生", "a.b", "\n"]), max_size=40),
       a=st.integers(0, 200), length=st.integers(0, 40))
def test_tokens_in_one_span(words, a, length):
    text = "".join(words)
    a = min(a, len(text))
    b = min(len(text), a + length)
    assert M.tokens_in(text, [(a, b)]) == walk_tokens_in(text, [(a, b)])


# ------------------------------------------------------------------ reading a session file once


def session_doc(n: int) -> dict:
    text = " ".join(f"Fact number {i} is here." for i in range(n))
    facts = [{"id": f"f{i}", "text": "x", "sentence": i, "span": [0, 4], "human": None,
              "auto": {"label": "S", "confidence": 0.5, "evidence": []}} for i in range(n)]
    return {"schema": "mfact.session/1", "id": "s1", "language": "en", "entity": {"name": "X"},
            "text": text, "facts": facts}


@pytest.mark.parametrize("indent", [None, 1])
def test_one_line_session_read_once(tmp_path, indent, monkeypatch):
    p = tmp_path / "s.json"
    p.write_text(json.dumps(session_doc(50), indent=indent))
    calls = []
    real = json.loads
    monkeypatch.setattr(json, "loads", lambda *a, **k: calls.append(len(a[0])) or real(*a, **k))
    [s] = read_sessions(p)
    assert len(s.facts) == 50
    big = [c for c in calls if c > 1000]
    assert len(big) == 1          # detecting the format did not parse the document a second time


def test_one_line_factscore_and_bad_values_still_detected(tmp_path):
    rec = {"input": "Tell me a bio of X.", "output": "X was born.", "topic": "X", "cat": ["rare"],
           "annotations": [{"text": "X was born.", "is-relevant": True,
                            "human-atomic-facts": [{"text": "X was born.", "label": "S"}]}]}
    p = tmp_path / "fs.json"
    p.write_text(json.dumps(rec))
    [s] = read_sessions(p)
    assert s.facts[0].human.label == "S"
    bad = dict(rec, cat=[math.nan])
    p.write_text(json.dumps(bad))
    with pytest.raises(MfactError, match="NaN is not a number"):
        read_sessions(p)
    doc = session_doc(2)
    doc["facts"][1]["auto"]["confidence"] = math.inf
    p.write_text(json.dumps(doc))
    with pytest.raises(MfactError, match=r"facts\[1\]\.auto\.confidence"):
        read_sessions(p)


# ------------------------------------------------------------------ the store's FActScore


def test_store_factscore_after_relabels(tmp_path, monkeypatch):
    """The store's per-session FActScore, counted in SQL after each relabel and undo, is
    metrics.factscore of the effective labels."""
    from mfact.core.session import Entity, Fact, Session, Verdict
    from mfact.core.store import Store

    rng = random.Random(5)
    facts = [Fact(id=f"f{i}", text="x", sentence=i, span=(0, 0),
                  auto=Verdict(rng.choice(["S", "NS", "IR"])) if rng.random() < 0.8 else None)
             for i in range(40)]
    s = Session(language="en", entity=Entity("X"), facts=facts)
    st = Store(tmp_path / "s.db")
    st.save_session(s)
    labels = {f.id: (None, f.auto.label if f.auto else None) for f in facts}
    seqs = []
    for _ in range(60):
        if seqs and rng.random() < 0.3:
            change = st.undo_label(s.id, seq=seqs.pop())
            labels[change.fact_id] = (change.old_label, labels[change.fact_id][1])
        else:
            fid = rng.choice(facts).id
            lab = rng.choice(["S", "NS", "IR", None])
            seqs.append(st.relabel(s.id, fid, lab).seq)
            labels[fid] = (lab, labels[fid][1])
        want = M.factscore([h or a for h, a in labels.values()])
        got = next(r.factscore for r in st.list_sessions() if r.id == s.id)
        assert got == want
