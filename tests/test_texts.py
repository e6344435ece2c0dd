"""Checking texts the user already has: `mfact check --text-file F --evidence E` and
`mfact run --texts FILE.jsonl`, with given passages as the only evidence."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mfact.core.knowledge.given import GivenRetriever, parse_evidence, read_evidence
from mfact.core.errors import MfactError
from mfact.core.texts import read_text_lines

MFACT = Path(sys.executable).with_name("mfact")

EN_TEXT = ("Marie Curie was a Polish physicist and chemist. She was born in Warsaw in 1867 and won the "
           "Nobel Prize in Physics in 1903.")
EN_EVIDENCE = [
    {"text": "Marie Skłodowska Curie (born 7 November 1867 in Warsaw) was a Polish and naturalised-French "
             "physicist and chemist.", "title": "Marie Curie", "url": "https://example.org/curie"},
    "In 1903 she shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel.",
]
ES_TEXT = "Marie Curie fue una física y química polaca. Nació en Varsovia en 1867."


def mfact(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    exe = [str(MFACT)] if MFACT.exists() else [sys.executable, "-m", "mfact.core.cli"]
    env = dict(os.environ, MFACT_HOME=str(home), COLUMNS="160", NO_COLOR="1")
    return subprocess.run(exe + list(args), capture_output=True, text=True, env=env, timeout=280, cwd=cwd)


# --------------------------------------------------------------------------- reading the inputs


def test_text_lines_good_and_bad_with_line_numbers(tmp_path):
    f = tmp_path / "t.jsonl"
    lines = [
        json.dumps({"id": "a", "lang": "en", "entity": "Lyon", "text": "Lyon is a city."}),
        "",
        '{"id": "b", "lang": "en", "entity": "Lyon", "text": "Lyon is',              # 3: cut short
        json.dumps({"id": "c", "lang": "xx", "entity": "Lyon", "text": "t"}),         # 4: language
        json.dumps({"id": "d", "lang": "es", "entity": "", "text": "t"}),             # 5: entity
        json.dumps(["not", "an", "object"]),                                          # 6
        json.dumps({"id": "a", "lang": "en", "entity": "Lyon", "text": "again"}),     # 7: id used
        json.dumps({"id": "e", "lang": "en", "entity": "Lyon", "text": "t", "evidence": [3]}),  # 8
        json.dumps({"id": "f", "lang": "EN", "entity": "The Matrix", "text": "A 1999 film.",
                    "evidence": ["The Matrix is a 1999 science fiction film."]}),
        json.dumps({"id": "g", "lang": "en", "entity": "x", "text": "t", "extra": 1}),  # 10
    ]
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    good, bad = read_text_lines(f)
    assert [(s.line, s.id, s.lang) for s in good] == [(1, "a", "en"), (9, "f", "en")]
    assert good[1].evidence == ({"text": "The Matrix is a 1999 science fiction film.", "lang": "en"},)
    assert [n for n, _ in bad] == [3, 4, 5, 6, 7, 8, 10]
    reasons = dict(bad)
    assert "not valid JSON" in reasons[3] and "unknown language" in reasons[4]
    assert '"entity" must be a non-empty string' in reasons[5] and "JSON object" in reasons[6]
    assert "already used on line 1" in reasons[7] and "evidence" in reasons[8]
    assert "unknown field 'extra'" in reasons[10]
    with pytest.raises(MfactError, match="no such file"):
        read_text_lines(tmp_path / "missing.jsonl")


def test_evidence_files_json_list_or_jsonl(tmp_path):
    a = tmp_path / "a.json"
    a.write_text(json.dumps(["first passage", {"text": "second", "title": "T", "url": "u"}]), encoding="utf-8")
    assert read_evidence(a, "en") == [{"text": "first passage", "lang": "en"},
                                      {"text": "second", "lang": "en", "title": "T", "url": "u"}]
    b = tmp_path / "b.jsonl"
    b.write_text('{"text": "one", "lang": "fr"}\n\n"two"\n', encoding="utf-8")
    assert [p["text"] for p in read_evidence(b)] == ["one", "two"]
    assert read_evidence(b, "en")[0]["lang"] == "fr"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "one"}\n{"title": "no text"}\n', encoding="utf-8")
    with pytest.raises(MfactError, match=r"bad.jsonl:2.*\"text\" must be a non-empty string"):
        read_evidence(bad)
    with pytest.raises(MfactError, match="empty"):
        parse_evidence([])
    with pytest.raises(MfactError, match="no such file"):
        read_evidence(tmp_path / "nope.json")


def test_given_retriever_ranks_the_matching_passage_first():
    r = GivenRetriever(parse_evidence(EN_EVIDENCE, lang="en"))      # no embedder: BM25 alone
    got = r.retrieve("Marie Curie", "She won the Nobel Prize in Physics in 1903", ["en"], k=2)
    assert [e.source for e in got] == ["given", "given"]
    assert got[0].text.startswith("In 1903") and got[0].title == "passage 2"
    assert r.retrieve("Marie Curie", "born in Warsaw", ["en"], k=1)[0].url == "https://example.org/curie"


# --------------------------------------------------------------------------- the CLI, for real


def test_run_texts_three_lines_two_sessions_bad_line_reported(tmp_path):
    home = tmp_path / "home"
    t = tmp_path / "t.jsonl"
    t.write_text("\n".join([
        json.dumps({"id": "curie-en", "lang": "en", "entity": "Marie Curie", "text": EN_TEXT,
                    "evidence": EN_EVIDENCE}),
        json.dumps({"id": "curie-es", "lang": "es", "entity": "Marie Curie", "text": ES_TEXT}),
        '{"id": "broken", "lang": "en", "entity": "Lyon", "text": "Lyon is a city."',
    ]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    p = mfact(home, "run", "--texts", str(t), "--offline", "--out", str(out), "--no-progress")
    assert p.returncode == 0, p.stderr
    assert f"{t}:3: skipped: not valid JSON" in p.stderr
    assert "bad lines (not checked): 3" in p.stderr
    files = sorted(out.glob("txt-*.json"))
    assert len(files) == 2
    sessions = {d["name"]: d for d in (json.loads(f.read_text(encoding="utf-8")) for f in files)}
    assert set(sessions) == {"curie-en", "curie-es"}
    en, es = sessions["curie-en"], sessions["curie-es"]
    assert en["text"] == EN_TEXT and es["text"] == ES_TEXT and es["language"] == "es"
    # the given passages are the English text's only evidence; the Spanish one uses the bundled source
    assert en["evidence"] and {e["source"] for e in en["evidence"]} == {"given"}
    assert en["config"]["evidence"] == {"given": 2}
    assert es["evidence"] and "given" not in {e["source"] for e in es["evidence"]}
    for d in (en, es):
        assert d["config"]["text_source"] == "user" and d["generator"]["backend"] == "none"
        assert d["facts"] and all(f["auto"] for f in d["facts"])
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["done"] == 2 and summary["bad_lines"][0]["line"] == 3

    # resumable: the same command skips both
    again = mfact(home, "run", "--texts", str(t), "--offline", "--no-progress")
    assert again.returncode == 0 and "done 0, skipped 2" in again.stderr

    # the hallucination spans of these sessions
    spans = mfact(home, "export", "--all", "--format", "spans", "-o", "-")
    assert spans.returncode == 0, spans.stderr
    docs = {d["id"]: d for d in map(json.loads, spans.stdout.splitlines())}
    assert set(docs) == {en["id"], es["id"]}
    for d in (en, es):
        doc = docs[d["id"]]
        assert doc["text"] == d["text"]
        ns = [f["span"] for f in d["facts"] if (f["human"] or f["auto"])["label"] == "NS"]
        prev_end = -1
        for a, b, label in doc["spans"]:
            assert label == "NS" and 0 <= a < b <= len(doc["text"]) and a > prev_end
            prev_end = b
            assert all(any(x <= i < y for x, y in ns) for i in range(a, b))
        assert bool(doc["spans"]) == bool(ns)

    # nothing checkable: non-zero
    only_bad = tmp_path / "bad.jsonl"
    only_bad.write_text('{"id": 1}\nnot json\n', encoding="utf-8")
    p = mfact(home, "run", "--texts", str(only_bad), "--offline", "--no-progress")
    assert p.returncode == 1
    assert f"{only_bad}:1: skipped" in p.stderr and f"{only_bad}:2: skipped" in p.stderr
    assert "no line of" in p.stderr


def test_check_text_file_with_given_evidence(tmp_path):
    home = tmp_path / "home"
    text = tmp_path / "answer.txt"
    text.write_text(EN_TEXT, encoding="utf-8")
    ev = tmp_path / "ev.jsonl"
    ev.write_text("\n".join(json.dumps(p if isinstance(p, dict) else {"text": p}) for p in EN_EVIDENCE),
                  encoding="utf-8")
    p = mfact(home, "check", "--lang", "en", "--entity", "Marie Curie", "--text-file", str(text),
              "--evidence", str(ev), "--offline", "--json")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["text"] == EN_TEXT and s["config"]["text_source"] == "user"
    assert {e["source"] for e in s["evidence"]} == {"given"} and len(s["evidence"]) == 2
    assert s["config"]["evidence"]["given"] == 2
    # bad input: one line each
    p = mfact(home, "check", "--lang", "en", "--entity", "X", "--evidence", str(ev), "--offline")
    assert p.returncode != 0 and "--evidence needs --text-file" in p.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    p = mfact(home, "check", "--lang", "en", "--entity", "X", "--text-file", str(text), "--evidence",
              str(bad), "--offline")
    assert p.returncode != 0 and "not valid JSON" in p.stderr and len(p.stderr.strip().splitlines()) == 1
