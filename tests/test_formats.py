"""Import/export: FActScore JSONL (spans, abstentions, round trip), mfact JSON (one, list, {"sessions"}),
validation errors naming file/line/field, atomic writes."""
from __future__ import annotations

import json
import os

import pytest

from mfact.core import formats
from mfact.core.formats import parse_factscore, read_sessions, session_to_factscore, write_sessions
from mfact.core.errors import MfactError
from mfact.core.session import Entity, Fact, HumanLabel, Session, Verdict

RECORD = {
    "input": "Question: Tell me a bio of Ada Lovelace.",
    "output": "Ada Lovelace was a mathematician[1]. She  wrote the first program.",
    "topic": "Ada Lovelace",
    "cat": ["very freq", "Europe/Middle East"],
    "annotations": [
        {"text": "Ada Lovelace was a mathematician.", "is-relevant": True,
         "model-atomic-facts": [{"text": "Ada Lovelace was a mathematician."}],
         "human-atomic-facts": [{"text": "Ada Lovelace was a mathematician.", "label": "S"}]},
        {"text": "She wrote the first program.", "is-relevant": True,
         "model-atomic-facts": [{"text": "She wrote the first program."}],
         "human-atomic-facts": [{"text": "She wrote a program.", "label": "S"},
                                {"text": "It was the first program.", "label": "NS"},
                                {"text": "Programs exist.", "label": "IR"}]},
        {"text": "Unrelated.", "is-relevant": False, "model-atomic-facts": [], "human-atomic-facts": None},
    ],
}
ABSTAIN = {"input": "Question: Tell me a bio of Nobody.", "output": "I'm sorry, I don't know.",
           "topic": "Nobody", "cat": ["very rare", "Asia/Pacific"], "annotations": None}


def _jsonl(*records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_factscore_record_to_session():
    s, a = parse_factscore(_jsonl(RECORD, ABSTAIN), "GPT-X.jsonl")
    assert s.language == "en" and s.entity.name == "Ada Lovelace"
    assert s.entity.attributes["rarity"] == "very freq"
    assert s.entity.attributes["region"] == "Europe/Middle East"
    assert s.generator.prompt == RECORD["input"] and s.generator.model == "GPT-X"
    assert [f.label for f in s.facts] == ["S", "S", "NS", "IR"]
    assert all(f.auto is None and f.human is not None for f in s.facts)
    # spans: the smallest part of the annotation sentence in the output holding the fact's words,
    # tolerating "[1]" and doubled spaces
    assert [s.text[slice(*f.span)] for f in s.facts] == [
        "Ada Lovelace was a mathematician", "wrote the first program", "first program", "program"]
    assert s.facts[1].sentence == 1
    assert a.abstained and a.facts == [] and a.entity.attributes["rarity"] == "very rare"
    assert s.checks["language_ok"] is True


def test_factscore_ids_are_stable():
    a = parse_factscore(_jsonl(RECORD), "X.jsonl")[0]
    b = parse_factscore(_jsonl(RECORD), "X.jsonl")[0]
    c = parse_factscore(_jsonl(RECORD), "Y.jsonl")[0]
    assert a.id == b.id != c.id


def test_factscore_round_trip_small():
    sessions = parse_factscore(_jsonl(RECORD, ABSTAIN), "X.jsonl")
    assert [session_to_factscore(s) for s in sessions] == [RECORD, ABSTAIN]


def test_factscore_export_uses_effective_labels():
    s = parse_factscore(_jsonl(RECORD), "X.jsonl")[0]
    s.facts[2].human = HumanLabel(label="S")
    rec = session_to_factscore(s)
    assert [f["label"] for f in rec["annotations"][1]["human-atomic-facts"]] == ["S", "S", "IR"]


def test_round_trip_chatgpt(shared_dir, tmp_path):
    src = shared_dir / "data" / "factscore" / "ChatGPT.jsonl"
    sessions = read_sessions(src)
    assert len(sessions) == 183
    out = tmp_path / "back.jsonl"
    write_sessions(sessions, out, "factscore")
    orig = [json.loads(line) for line in src.read_text().splitlines()]
    back = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["topic"] for r in back] == [r["topic"] for r in orig]
    for o, b in zip(orig, back):
        facts = lambda r: [(f["text"], f["label"]) for a in (r["annotations"] or [])  # noqa: E731
                           for f in (a["human-atomic-facts"] or [])]
        assert facts(b) == facts(o)
    assert back == orig                                   # and in fact byte-for-byte the same data


def test_perplexity_sentences_found_despite_citations(shared_dir):
    sessions = read_sessions(shared_dir / "data" / "factscore" / "PerplexityAI.jsonl")
    for s in sessions:
        for f in s.facts:
            assert 0 <= f.span[0] < f.span[1] <= len(s.text)   # found despite " [1]" citations


@pytest.mark.parametrize("mutate, where", [
    (lambda r: r.update(topic=5), "topic"),
    (lambda r: r.update(output=None), "output"),
    (lambda r: r.update(annotations="x"), "annotations"),
    (lambda r: r["annotations"][1]["human-atomic-facts"][2].update(label="X"),
     "annotations[1].human-atomic-facts[2].label"),
    (lambda r: r["annotations"][0].update(text=None), "annotations[0].text"),
    (lambda r: r.update(cat="rare"), "cat"),
])
def test_factscore_errors_name_file_line_field(mutate, where):
    bad = json.loads(json.dumps(RECORD))
    mutate(bad)
    with pytest.raises(MfactError) as err:
        parse_factscore(_jsonl(RECORD, ABSTAIN, bad), "data.jsonl")
    assert str(err.value).startswith(f"data.jsonl:3: {where}:")


def test_factscore_bad_json_line():
    with pytest.raises(MfactError, match=r"^data.jsonl:2: not valid JSON"):
        parse_factscore(_jsonl(RECORD) + "{oops\n", "data.jsonl")


def _mfact_session(n=2) -> Session:
    text = "Marie Curie was a physicist. She won two Nobel Prizes."
    facts = [Fact(id=f"f{i}", text=f"fact {i}", sentence=i, span=(0, 28),
                  auto=Verdict(label="S"), human=None) for i in range(n)]
    return Session(language="en", entity=Entity("Marie Curie"), text=text, facts=facts)


def test_mfact_json_shapes(tmp_path):
    a, b = _mfact_session(), _mfact_session(1)
    one = tmp_path / "one.json"
    write_sessions([a], one)
    assert json.loads(one.read_text())["schema"] == "mfact.session/1"
    assert [s.to_dict() for s in read_sessions(one)] == [a.to_dict()]
    many = tmp_path / "many.json"
    write_sessions([a, b], many)
    assert list(json.loads(many.read_text())) == ["sessions"]
    assert [s.id for s in read_sessions(many)] == [a.id, b.id]
    lst = tmp_path / "list.json"
    lst.write_text(json.dumps([a.to_dict(), b.to_dict()]))
    assert len(read_sessions(lst)) == 2


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(schema="mfact.session/9"), "schema: expected 'mfact.session/1'"),
    (lambda d: d["facts"][1].update(span=[0, 999]), "facts[1].span: [0, 999) lies outside the text"),
    (lambda d: d["facts"][0]["auto"].update(label="TRUE"), "facts[0].auto.label: unknown label 'TRUE'"),
    (lambda d: d.update(language="xx"), "language: unknown language 'xx'"),
])
def test_mfact_errors_name_file_and_field(tmp_path, mutate, message):
    d = _mfact_session().to_dict()
    mutate(d)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps({"sessions": [_mfact_session().to_dict(), d]}, indent=2))
    with pytest.raises(MfactError) as err:
        read_sessions(p)
    msg = str(err.value)
    assert msg.startswith(f"{p}:") and f"sessions[1].{message}" in msg
    assert msg.split(":")[1].isdigit()          # the line where the bad session starts


def test_mfact_malformed_json(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"schema": "mfact.session/1",\n "id": }')
    with pytest.raises(MfactError, match=r"bad.json:2: not valid JSON"):
        read_sessions(p)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(MfactError, match="no such file"):
        read_sessions(tmp_path / "nope.json")
    p = tmp_path / "bin.json"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(MfactError, match="not UTF-8"):
        read_sessions(p)


def test_duplicate_ids_rejected(tmp_path):
    a = _mfact_session()
    p = tmp_path / "dup.json"
    p.write_text(json.dumps([a.to_dict(), a.to_dict()]))
    with pytest.raises(MfactError, match="appears twice"):
        read_sessions(p)


def test_atomic_write_keeps_old_file_on_failure(tmp_path, monkeypatch):
    folder = tmp_path / "exports"
    folder.mkdir()
    target = folder / "out.json"
    target.write_text("old content")

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(formats.os, "replace", boom)
    with pytest.raises(MfactError, match="No space left"):
        write_sessions([_mfact_session()], target)
    assert target.read_text() == "old content"
    assert os.listdir(folder) == ["out.json"]              # no temp file left behind


def test_atomic_write_to_missing_folder(tmp_path):
    with pytest.raises(MfactError, match="does not exist"):
        write_sessions([_mfact_session()], tmp_path / "no" / "out.json")


def test_atomic_write_gives_the_mode_open_would_and_keeps_a_replaced_files(tmp_path):
    """An exported page or session file is readable as any file the user writes (umask 022: 0644),
    not mkstemp's 0600; a file it replaces keeps its own mode."""
    old = os.umask(0o022)
    try:
        new = formats.atomic_write(tmp_path / "page.html", "<p>x</p>")
        assert new.stat().st_mode & 0o777 == 0o644
        kept = tmp_path / "private.json"
        kept.write_text("{}")
        kept.chmod(0o600)
        formats.atomic_write(kept, "[]")
        assert kept.stat().st_mode & 0o777 == 0o600 and kept.read_text() == "[]"
        os.umask(0o077)
        assert formats.atomic_write(tmp_path / "b.json", "1").stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)
