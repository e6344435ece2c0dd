"""Hostile inputs through the real commands (`mfact import`, `mfact score`, `mfact-tui --open`,
`mfact verify-pairs`, `mfact run --entities/--entity/--texts`): each is refused in exactly one line
naming the file and the field, with no traceback and a non-zero exit, and nothing changes in the store.

The kinds are the parameter lists below; `docs/reliability.md` holds the block `kinds_block()` renders
(a test checks it; `python tests/test_reliability_inputs.py` rewrites it). The commands run in-process
(`mfact.core.cli.main`, `mfact.tui.app.main`: the functions the installed scripts call), so the ~500
runs take seconds; `test_the_installed_scripts_agree` runs a few kinds through the real executables.
"""
from __future__ import annotations

import copy
import gzip
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
MFACT, MFACT_TUI = str(BIN / "mfact"), str(BIN / "mfact-tui")
DOC = Path(__file__).resolve().parents[1] / "docs" / "reliability.md"

GOOD = {
    "schema": "mfact.session/1", "id": "s1", "language": "en", "entity": {"name": "Marie Curie"},
    "created_at": "2026-01-01T00:00:00+00:00",
    "text": "Marie Curie was born in Warsaw. She won two Nobel Prizes.",
    "facts": [
        {"id": "f1", "text": "Marie Curie was born in Warsaw.", "sentence": 0, "span": [0, 31],
         "auto": {"label": "S", "confidence": 0.9, "evidence": ["e1"]},
         "human": {"label": "S", "time": "2026-01-01T00:00:00+00:00"}},
        {"id": "f2", "text": "She won two Nobel Prizes.", "sentence": 1, "span": [32, 57],
         "auto": {"label": "S", "confidence": 0.8, "evidence": ["e1"]}, "human": None},
    ],
    "evidence": [{"id": "e1", "source": "wikipedia", "lang": "en", "title": "Marie Curie",
                  "text": "Marie Curie, born in Warsaw, won two Nobel Prizes.", "score": 0.5}],
}
_MARK = "@@RAW@@"


def _with(path: str, value, base=None) -> dict:
    """GOOD with the field at `path` (dots; list indexes as numbers) set to `value`."""
    d = copy.deepcopy(GOOD if base is None else base)
    obj = d
    keys = path.split(".")
    for k in keys[:-1]:
        obj = obj[int(k)] if isinstance(obj, list) else obj[k]
    last = keys[-1]
    if isinstance(obj, list):
        obj[int(last)] = value
    else:
        obj[last] = value
    return d


def _without(path: str) -> dict:
    d = copy.deepcopy(GOOD)
    obj = d
    keys = path.split(".")
    for k in keys[:-1]:
        obj = obj[int(k)] if isinstance(obj, list) else obj[k]
    del obj[keys[-1]]
    return d


def _dump(d) -> str:
    return json.dumps(d, ensure_ascii=False)


def _raw(path: str, token: str) -> str:
    """GOOD as JSON text with the field at `path` written as the raw JSON `token` (NaN, 1e999, ...)."""
    return _dump(_with(path, _MARK)).replace(f'"{_MARK}"', token, 1)


def _deep(n: int, opener: str = "[", closer: str = "]") -> str:
    return opener * n + closer * n


DEEP_OBJ = '{"a": ' * 200_000 + "1" + "}" * 200_000

# ------------------------------------------------------------------ session files: import, score, --open
# (kind, file name, content as text or bytes, what the one line must say besides the file name)
SESSION_KINDS = [
    # numbers mfact cannot keep
    (
        "confidence-nan",
        "s.json",
        _raw("facts.1.auto.confidence", "NaN"),
        "facts[1].auto.confidence: NaN is not a number",
    ),
    (
        "confidence-infinity",
        "s.json",
        _raw("facts.0.auto.confidence", "Infinity"),
        "facts[0].auto.confidence: Infinity is not a number",
    ),
    (
        "confidence-minus-infinity",
        "s.json",
        _raw("facts.0.auto.confidence", "-Infinity"),
        "facts[0].auto.confidence: -Infinity is not a number",
    ),
    ("score-nan", "s.json", _raw("evidence.0.score", "NaN"), "evidence[0].score: NaN is not a number"),
    ("score-infinity", "s.json", _raw("evidence.0.score", "Infinity"), "evidence[0].score: Infinity is not a number"),
    (
        "score-minus-infinity",
        "s.json",
        _raw("evidence.0.score", "-Infinity"),
        "evidence[0].score: -Infinity is not a number",
    ),
    ("metric-nan", "s.json", _raw("metrics", '{"factscore": NaN}'), "metrics.factscore: NaN is not a number"),
    ("float-overflow", "s.json", _raw("evidence.0.score", "1e999"), "evidence[0].score: 1e999 is out of range"),
    (
        "float-overflow-negative",
        "s.json",
        _raw("facts.0.auto.confidence", "-1e400"),
        "facts[0].auto.confidence: -1e400 is out of range",
    ),
    (
        "int-beyond-sqlite-tokens",
        "s.json",
        _dump(_with("tokens", 2**64)),
        "tokens: 18446744073709551616 is beyond the 64-bit integer range",
    ),
    (
        "int-beyond-sqlite-span",
        "s.json",
        _dump(_with("facts.0.span", [0, 2**70])),
        "facts[0].span[1]: 1180591620717411303424 is beyond the 64-bit",
    ),
    (
        "int-beyond-sqlite-sentence",
        "s.json",
        _dump(_with("facts.0.sentence", 2**63)),
        "facts[0].sentence: 9223372036854775808 is beyond the 64-bit",
    ),
    (
        "int-beyond-sqlite-seed",
        "s.json",
        _dump(_with("generator", {"seed": -(2**63) - 1})),
        "generator.seed: -9223372036854775809 is beyond the 64-bit",
    ),
    (
        "int-beyond-sqlite-confidence",
        "s.json",
        _dump(_with("facts.0.auto.confidence", 2**64)),
        "facts[0].auto.confidence: 18446744073709551616 is beyond the 64-bit",
    ),
    ("int-beyond-sqlite-metrics", "s.json", _dump(_with("metrics", {"x": -(2**63) - 1})), "metrics.x:"),
    (
        "5000-digit-int",
        "s.json",
        _raw("evidence.0.score", "9" * 5000),
        "evidence[0].score: a number with 5000 digits is out of range",
    ),
    (
        "5000-digit-negative-int",
        "s.json",
        _raw("tokens", "-" + "9" * 5000),
        "tokens: a number with 5000 digits is out of range",
    ),
    ("5000-digit-float", "s.json", _raw("evidence.0.score", "0." + "1" * 5000), "evidence[0].score: a number with"),
    # text that is not text
    (
        "lone-surrogate-value",
        "s.json",
        _dump(GOOD).replace("Warsaw.", "Warsaw\\ud800.", 1),
        "text: a lone surrogate (\\ud800) is not text",
    ),
    (
        "lone-surrogate-low",
        "s.json",
        _raw("entity.name", '"Marie \\udc00"'),
        "entity.name: a lone surrogate (\\udc00) is not text",
    ),
    ("lone-surrogate-id", "s.json", _raw("facts.0.id", '"f\\udbff"'), "facts[0].id: a lone surrogate"),
    ("lone-surrogate-key", "s.json", _raw("metrics", '{"\\udc00": 1}'), "metrics: a key with a lone surrogate"),
    ("control-in-id", "s.json", _dump(_with("id", "s1\x1b[2J")), "id: holds a control character (U+001B)"),
    (
        "bidi-in-fact-id",
        "s.json",
        _dump(_with("facts.0.id", "f\u202e1")),
        "facts[0].id: holds a control character (U+202E)",
    ),
    # nesting
    (
        "deep-200000-lists",
        "s.json",
        _raw("checks", '{"a": ' + _deep(200_000) + "}"),
        "checks.a[0][0]...: nested deeper than 64 levels",
    ),
    ("deep-200000-objects", "s.json", _raw("config", DEEP_OBJ), "config.a.a.a...: nested deeper than 64 levels"),
    ("deep-200000-document", "s.json", _deep(200_000), "s.json: [0][0][0][0]...: nested deeper than 64 levels"),
    ("deep-200000-unclosed", "s.json", "[" * 200_000, "nested deeper than 64 levels"),
    ("deep-100", "s.json", _dump(_with("config", json.loads(_deep(100)))), "nested deeper than 64 levels"),
    # duplicates
    (
        "duplicate-evidence-id",
        "s.json",
        _dump(_with("evidence", GOOD["evidence"] * 2)),
        "evidence[1].id: duplicate evidence id 'e1'",
    ),
    (
        "duplicate-fact-id",
        "s.json",
        _dump(_with("facts", [GOOD["facts"][0], GOOD["facts"][0]])),
        "facts[1].id: duplicate fact id 'f1'",
    ),
    ("duplicate-session-id", "s.json", _dump([GOOD, GOOD]), "session id 's1' appears twice"),
    (
        "duplicate-key",
        "s.json",
        _dump(GOOD)[:-1] + ', "text": "Another text."}',
        "text: the key appears twice in one object",
    ),
    # not JSON, or JSON of the wrong shape
    ("truncated", "s.json", _dump(GOOD)[: len(_dump(GOOD)) // 2], "not valid JSON"),
    ("trailing-garbage", "s.json", _dump(GOOD) + "\n}", "s.json:2: not valid JSON: Extra data"),
    (
        "two-objects-in-a-json",
        "s.json",
        _dump(GOOD) + "\n" + _dump(_with("id", "s2")),
        "s.json:2: not valid JSON: Extra data",
    ),
    ("csv-as-json", "s.json", "id,language,text\ns1,en,Marie Curie was born in Warsaw.\n", "not valid JSON"),
    ("python-literal", "s.json", repr(GOOD), "not valid JSON"),
    ("json-null", "s.json", "null", 'expected a session object, a list of sessions or {"sessions": [...]}, got null'),
    ("json-number", "s.json", "42", "got a number"),
    ("json-string", "s.json", '"a session"', "got a string"),
    ("json-boolean", "s.json", "true", "got a boolean"),
    ("json-empty-list", "s.json", "[]", "no sessions (an empty list)"),
    ("sessions-not-a-list", "s.json", '{"sessions": 5}', "sessions: must be a list"),
    ("list-of-numbers", "s.json", "[1, 2]", "[0]: must be an object, got a number"),
    (
        "schema-from-the-future",
        "s.json",
        _dump(_with("schema", "mfact.session/2")),
        "schema: expected 'mfact.session/1', got 'mfact.session/2' (a newer mfact wrote this file?)",
    ),
    ("schema-other", "s.json", _dump(_with("schema", "other")), "schema: expected 'mfact.session/1'"),
    ("schema-missing", "s.json", _dump(_without("schema")), "schema: expected 'mfact.session/1', got None"),
    # wrong types, field by field
    ("text-as-number", "s.json", _dump(_with("text", 42)), "text: must be a string"),
    ("raw-text-as-number", "s.json", _dump(_with("raw_text", 42)), "raw_text: must be a string or null"),
    (
        "facts-as-object",
        "s.json",
        _dump(_with("facts", {"f1": GOOD["facts"][0]})),
        "facts: must be a list, got an object",
    ),
    ("facts-as-empty-string", "s.json", _dump(_with("facts", "")), "facts: must be a list, got a string"),
    ("facts-as-zero", "s.json", _dump(_with("facts", 0)), "facts: must be a list, got a number"),
    ("evidence-as-string", "s.json", _dump(_with("evidence", "e1")), "evidence: must be a list, got a string"),
    ("metrics-as-list", "s.json", _dump(_with("metrics", [])), "metrics: must be an object, got a list"),
    ("checks-as-string", "s.json", _dump(_with("checks", "ok")), "checks: must be an object, got a string"),
    ("generator-as-list", "s.json", _dump(_with("generator", [])), "generator: must be an object, got a list"),
    ("entity-as-string", "s.json", _dump(_with("entity", "Marie Curie")), "entity: must be an object, got a string"),
    ("entity-missing", "s.json", _dump(_without("entity")), "entity: must be an object, got null"),
    ("entity-name-missing", "s.json", _dump(_with("entity", {})), "entity.name: must be a non-empty string"),
    (
        "entity-titles-values",
        "s.json",
        _dump(_with("entity.titles", {"en": ["Marie"]})),
        "entity.titles.en: must be a string",
    ),
    (
        "fact-as-string",
        "s.json",
        _dump(_with("facts.0", "Marie Curie was born in Warsaw.")),
        "facts[0]: must be an object, got a string",
    ),
    ("fact-text-as-number", "s.json", _dump(_with("facts.0.text", 1867)), "facts[0].text: must be a string"),
    ("fact-id-empty", "s.json", _dump(_with("facts.0.id", " ")), "facts[0].id: must be a non-empty string"),
    ("fact-id-as-number", "s.json", _dump(_with("facts.0.id", 1)), "facts[0].id: must be a non-empty string"),
    (
        "sentence-negative",
        "s.json",
        _dump(_with("facts.0.sentence", -1)),
        "facts[0].sentence: must be a non-negative integer",
    ),
    (
        "sentence-as-string",
        "s.json",
        _dump(_with("facts.0.sentence", "0")),
        "facts[0].sentence: must be a non-negative integer",
    ),
    ("span-negative", "s.json", _dump(_with("facts.0.span", [-5, 31])), "facts[0].span: start -5 is negative"),
    (
        "span-beyond-text",
        "s.json",
        _dump(_with("facts.0.span", [0, 9999])),
        "facts[0].span: [0, 9999) lies outside the text (length 57)",
    ),
    ("span-reversed", "s.json", _dump(_with("facts.0.span", [31, 0])), "facts[0].span: start 31 is after end 0"),
    (
        "span-three-numbers",
        "s.json",
        _dump(_with("facts.0.span", [0, 10, 31])),
        "facts[0].span: must be [start, end) as two integers",
    ),
    ("span-floats", "s.json", _dump(_with("facts.0.span", [0.0, 31.0])), "facts[0].span: must be [start, end)"),
    ("span-booleans", "s.json", _dump(_with("facts.0.span", [False, True])), "facts[0].span: must be [start, end)"),
    ("span-as-string", "s.json", _dump(_with("facts.0.span", "0-31")), "facts[0].span: must be [start, end)"),
    ("auto-as-list", "s.json", _dump(_with("facts.0.auto", ["S"])), "facts[0].auto: must be an object, got a list"),
    (
        "human-as-string",
        "s.json",
        _dump(_with("facts.0.human", "S")),
        "facts[0].human: must be an object, got a string",
    ),
    (
        "label-unknown",
        "s.json",
        _dump(_with("facts.0.auto.label", "MAYBE")),
        "facts[0].auto.label: unknown label 'MAYBE'; one of S, NS, IR",
    ),
    (
        "human-label-unknown",
        "s.json",
        _dump(_with("facts.0.human.label", "true")),
        "facts[0].human.label: unknown label 'true'",
    ),
    ("label-as-number", "s.json", _dump(_with("facts.0.auto.label", 1)), "facts[0].auto.label: unknown label 1"),
    (
        "confidence-above-one",
        "s.json",
        _dump(_with("facts.0.auto.confidence", 7)),
        "facts[0].auto.confidence: must be a number in [0, 1], got 7",
    ),
    (
        "confidence-as-string",
        "s.json",
        _dump(_with("facts.0.auto.confidence", "0.9")),
        "facts[0].auto.confidence: must be a number in [0, 1], got '0.9'",
    ),
    (
        "confidence-as-boolean",
        "s.json",
        _dump(_with("facts.0.auto.confidence", True)),
        "facts[0].auto.confidence: must be a number in [0, 1], got true",
    ),
    ("score-as-string", "s.json", _dump(_with("evidence.0.score", "high")), "evidence[0].score: must be a number"),
    (
        "auto-evidence-as-string",
        "s.json",
        _dump(_with("facts.0.auto.evidence", "e1")),
        "facts[0].auto.evidence: must be a list of evidence ids",
    ),
    (
        "auto-evidence-unknown",
        "s.json",
        _dump(_with("facts.0.auto.evidence", ["nope"])),
        "facts[0].auto.evidence: unknown evidence id 'nope'",
    ),
    (
        "evidence-title-as-object",
        "s.json",
        _dump(_with("evidence.0.title", {"en": "Marie Curie"})),
        "evidence[0].title: must be a string",
    ),
    ("evidence-lang-as-number", "s.json", _dump(_with("evidence.0.lang", 1)), "evidence[0].lang: must be a string"),
    ("language-unknown", "s.json", _dump(_with("language", "zz")), "language: unknown language 'zz'"),
    ("language-as-number", "s.json", _dump(_with("language", 5)), "language: must be a non-empty string"),
    ("language-empty", "s.json", _dump(_with("language", "")), "language: must be a non-empty string"),
    (
        "created-at-malformed",
        "s.json",
        _dump(_with("created_at", "yesterday")),
        "created_at: 'yesterday' is not an ISO 8601 time",
    ),
    (
        "human-time-malformed",
        "s.json",
        _dump(_with("facts.0.human.time", "2026-13-45T99:00")),
        "facts[0].human.time: '2026-13-45T99:00' is not an ISO 8601 time",
    ),
    ("status-unknown", "s.json", _dump(_with("status", "exploded")), "status: unknown status 'exploded'"),
    ("stop-reason-unknown", "s.json", _dump(_with("stop_reason", "bored")), "stop_reason: unknown stop reason 'bored'"),
    ("tokens-negative", "s.json", _dump(_with("tokens", -1)), "tokens: must be a non-negative integer"),
    ("tokens-float", "s.json", _dump(_with("tokens", 1.5)), "tokens: must be a non-negative integer"),
    (
        "seed-as-string",
        "s.json",
        _dump(_with("generator", {"seed": "42"})),
        "generator.seed: must be an integer or null",
    ),
    # over the limits
    (
        "text-over-limit",
        "s.json",
        _dump(_with("text", "x" * 2_000_001)),
        "text: 2,000,001 characters is over the limit of 2,000,000",
    ),
    (
        "raw-text-over-limit",
        "s.json",
        _dump(_with("raw_text", "x" * 2_000_001)),
        "raw_text: 2,000,001 characters is over the limit of 2,000,000",
    ),
    (
        "fact-text-over-limit",
        "s.json",
        _dump(_with("facts.0.text", "x" * 100_001)),
        "facts[0].text: 100,001 characters is over the limit of 100,000",
    ),
    (
        "entity-name-over-limit",
        "s.json",
        _dump(_with("entity.name", "M" * 501)),
        "entity.name: 501 characters is over the limit of 500",
    ),
    (
        "evidence-text-over-limit",
        "s.json",
        _dump(_with("evidence.0.text", "x" * 1_000_001)),
        "evidence[0].text: 1,000,001 characters is over the limit of 1,000,000",
    ),
    (
        "facts-over-limit",
        "s.json",
        _dump(_with("facts", [{}] * 50_001)),
        "facts: 50,001 facts is over the limit of 50,000",
    ),
    (
        "evidence-over-limit",
        "s.json",
        _dump(_with("evidence", [{}] * 100_001)),
        "evidence: 100,001 passages is over the limit of 100,000",
    ),
    # FActScore JSONL (the other import format)
    (
        "factscore-malformed-line",
        "fs.jsonl",
        '{"topic": "Marie Curie", "output": "x", "annotations": null}\n{oops\n',
        "fs.jsonl:2: not valid JSON",
    ),
    (
        "factscore-nan",
        "fs.jsonl",
        '{"topic": "Marie Curie", "output": "x", "annotations": null, "score": NaN}\n',
        "fs.jsonl:1: score: NaN is not a number",
    ),
    (
        "factscore-annotations-as-string",
        "fs.jsonl",
        '{"topic": "Marie Curie", "output": "x", "annotations": "none"}\n',
        "fs.jsonl:1: annotations: must be a list or null",
    ),
    (
        "factscore-label-unknown",
        "fs.jsonl",
        json.dumps(
            {
                "topic": "Marie Curie",
                "output": "She was born in Warsaw.",
                "annotations": [
                    {
                        "text": "She was born in Warsaw.",
                        "is-relevant": True,
                        "human-atomic-facts": [{"text": "She was born in Warsaw.", "label": "Yes"}],
                    }
                ],
            }
        )
        + "\n",
        "fs.jsonl:1: annotations[0].human-atomic-facts[0].label: unknown label 'Yes'",
    ),
    (
        "factscore-output-over-limit",
        "fs.jsonl",
        json.dumps({"topic": "Marie Curie", "output": "x" * 2_000_001, "annotations": None}) + "\n",
        "fs.jsonl:1: output: 2,000,001 characters is over the limit of 2,000,000",
    ),
]


# ------------------------------------------------------------------ any file: all six commands
@dataclass
class FileKind:
    kind: str
    needle: str


def _make_file(kind: str, tmp: Path, name: str, monkeypatch) -> str:
    """Create the hostile file of `kind` named `name` in `tmp`; its path as the user would type it."""
    p = tmp / name
    good = _dump(GOOD).encode()
    if kind == "directory":
        p.mkdir()
    elif kind == "fifo":
        os.mkfifo(p)
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        cwd = os.getcwd()
        os.chdir(tmp)                     # a relative name: AF_UNIX paths are limited to ~107 bytes
        try:
            s.bind(name)
        finally:
            os.chdir(cwd)
            s.close()
    elif kind == "device":
        return "/dev/zero"
    elif kind == "symlink-loop":
        os.symlink(p, p)
    elif kind == "symlink-dangling":
        os.symlink(tmp / "nowhere", p)
    elif kind == "symlink-to-directory":
        os.symlink(tmp, p)
    elif kind == "missing":
        pass
    elif kind == "unreadable":
        p.write_bytes(good)
        p.chmod(0)
        if os.geteuid() == 0:
            # root reads any file whatever its mode: make the kernel's answer for this path EACCES,
            # as it would be for any other user, so the same refusal path runs
            _deny(monkeypatch, str(p))
    elif kind == "over-size-limit":
        with open(p, "wb") as f:          # sparse: 65 MB on paper, nothing on disk
            f.truncate(65 * 1024 * 1024)
    elif kind == "empty":
        p.write_bytes(b"")
    elif kind == "whitespace-only":
        p.write_bytes(b" \n\t\r\n  \n")
    elif kind == "bom-only":
        p.write_bytes(b"\xef\xbb\xbf\n")
    elif kind == "utf16-le":
        p.write_bytes(good.decode().encode("utf-16"))          # with its byte-order mark
    elif kind == "utf16-be":
        p.write_bytes(b"\xfe\xff" + good.decode().encode("utf-16-be"))
    elif kind == "utf16-no-bom":
        p.write_bytes(good.decode().encode("utf-16-le"))
    elif kind == "utf32":
        p.write_bytes(good.decode().encode("utf-32"))
    elif kind == "latin1":
        p.write_bytes("Marie Curie, née Skłodowska".encode("utf-8").replace("é".encode(), b"\xe9"))
    elif kind == "cesu-surrogate-bytes":
        p.write_bytes(b'"\xed\xa0\x80"')
    elif kind == "gzip":
        p.write_bytes(gzip.compress(good))
    elif kind == "xz":
        import lzma
        p.write_bytes(lzma.compress(good))
    elif kind == "bzip2":
        import bz2
        p.write_bytes(bz2.compress(good))
    elif kind == "zstd":
        p.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 16)      # a zstd frame's magic number
    elif kind == "pdf":
        p.write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
    elif kind == "png":
        p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    elif kind == "zip":
        import zipfile
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("s.json", good)
    elif kind == "sqlite-database":
        con = sqlite3.connect(p)
        con.execute("CREATE TABLE t (x)")
        con.commit()
        con.close()
    elif kind == "executable":
        p.write_bytes(Path(os.path.realpath(sys.executable)).read_bytes()[:4096])
    elif kind == "nul-bytes":
        p.write_bytes(b"\x00" * 64)
    else:  # pragma: no cover
        raise AssertionError(kind)
    return str(p)


def _deny(monkeypatch, path: str) -> None:
    real_open, real_access = os.open, os.access

    def open_(p, flags, *a, **kw):
        if os.fspath(p) == path:
            raise PermissionError(13, "Permission denied", path)
        return real_open(p, flags, *a, **kw)

    def access(p, mode, *a, **kw):
        return False if os.fspath(p) == path else real_access(p, mode, *a, **kw)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "access", access)


FILE_KINDS = [
    FileKind("directory", "a directory, not a regular file"),
    FileKind("fifo", "a FIFO (named pipe), not a regular file"),
    FileKind("socket", "a socket, not a regular file"),
    FileKind("device", "a device, not a regular file"),
    FileKind("symlink-loop", "a loop of symbolic links"),
    FileKind("symlink-dangling", "a symbolic link to nothing"),
    FileKind("symlink-to-directory", "a directory, not a regular file"),
    FileKind("missing", "no such file"),
    FileKind("unreadable", "cannot read: permission denied"),
    FileKind("over-size-limit", "MB limit for"),
    FileKind("empty", "(the input is empty)"),
    FileKind("whitespace-only", "(the input is empty)"),
    FileKind("bom-only", "(the input is empty)"),
    FileKind("utf16-le", "UTF-16 text, not UTF-8"),
    FileKind("utf16-be", "UTF-16 text, not UTF-8"),
    FileKind("utf16-no-bom", "UTF-16 text, not UTF-8"),
    FileKind("utf32", "UTF-32 text, not UTF-8"),
    FileKind("latin1", "not UTF-8 text (byte 14)"),
    FileKind("cesu-surrogate-bytes", "not UTF-8 text (byte 1)"),
    FileKind("gzip", "a gzip file, not text"),
    FileKind("zip", "a zip file, not text"),
    FileKind("xz", "an xz file, not text"),
    FileKind("bzip2", "a bzip2 file, not text"),
    FileKind("zstd", "a zstd file, not text"),
    FileKind("pdf", "a PDF file, not text"),
    FileKind("png", "a PNG image, not text"),
    FileKind("sqlite-database", "an SQLite database, not text"),
    FileKind("executable", "an executable (ELF), not text"),
    FileKind("nul-bytes", ":1: holds a NUL byte (byte 0); binary data, not text"),
]

# the commands every file kind goes through: (name, argv with {f} for the file, file name)
FILE_COMMANDS = [
    ("import", ["import", "{f}"], "s.json"),
    ("score", ["score", "{f}"], "s.json"),
    ("mfact-tui --open", ["--open", "{f}"], "s.json"),
    ("verify-pairs", ["verify-pairs", "{f}"], "pairs.jsonl"),
    ("run --entities", ["run", "--lang", "en", "--entities", "{f}", "--offline", "--no-progress",
                        "--base-url", "http://127.0.0.1:9/v1"], "e.txt"),
    ("run --texts", ["run", "--texts", "{f}", "--offline", "--no-progress"], "t.jsonl"),
    ("check --text-file", ["check", "--lang", "en", "--entity", "Marie Curie", "--text-file", "{f}", "--no-save",
                           "--offline"], "bio.txt"),
    ("check --evidence", ["check", "--lang", "en", "--entity", "Marie Curie", "--text-file", "{t}", "--evidence",
                          "{f}", "--no-save", "--offline"], "ev.jsonl"),
]

# ------------------------------------------------------------------ verify-pairs
_P = '{"id": "a", "lang": "en", "claim": "Paris is in France.", "evidence": "Paris is in France."}'
PAIR_KINDS = [
    ("malformed-line", _P + "\n{oops\n", "pairs.jsonl:2: not valid JSON"),
    ("row-is-a-list", "[1, 2]\n", "pairs.jsonl:1: expected a JSON object"),
    ("row-is-null", "null\n", "pairs.jsonl:1: expected a JSON object"),
    ("json-array-file", "[" + _P + "]\n", "pairs.jsonl:1: expected a JSON object"),
    ("pretty-printed-json", json.dumps(json.loads(_P), indent=2), "pairs.jsonl:1: not valid JSON"),
    ("claim-missing", '{"id": 1, "lang": "en", "evidence": "y"}\n', "pairs.jsonl:1: claim: must be a non-empty string"),
    ("claim-empty", '{"id": 1, "lang": "en", "claim": " ", "evidence": "y"}\n', "pairs.jsonl:1: claim:"),
    ("claim-as-number", '{"id": 1, "lang": "en", "claim": 42, "evidence": "y"}\n', "pairs.jsonl:1: claim:"),
    ("claim-as-list", '{"id": 1, "lang": "en", "claim": ["x"], "evidence": "y"}\n', "pairs.jsonl:1: claim:"),
    ("evidence-missing", '{"id": 1, "lang": "en", "claim": "x"}\n',
     "pairs.jsonl:1: evidence: must be a string or a list of strings"),
    ("evidence-as-number", '{"id": 1, "lang": "en", "claim": "x", "evidence": 5}\n', "pairs.jsonl:1: evidence:"),
    ("evidence-list-with-number", '{"id": 1, "lang": "en", "claim": "x", "evidence": ["y", 5]}\n',
     "pairs.jsonl:1: evidence:"),
    ("id-as-object", '{"id": {}, "lang": "en", "claim": "x", "evidence": "y"}\n',
     "pairs.jsonl:1: id: must be a string or an integer"),
    ("id-beyond-sqlite", '{"id": 99999999999999999999, "lang": "en", "claim": "x", "evidence": "y"}\n',
     "pairs.jsonl:1: id: 99999999999999999999 is beyond the 64-bit"),
    ("id-duplicate", _P + "\n" + _P + "\n", "pairs.jsonl:2: id: duplicate id 'a'"),
    ("lang-as-number", '{"id": 1, "lang": 7, "claim": "x", "evidence": "y"}\n', "pairs.jsonl:1: lang: must be"),
    ("gold-label-unknown", '{"id": 1, "claim": "x", "evidence": "y", "label": "maybe"}\n',
     "pairs.jsonl:1: label: unknown gold label 'maybe'"),
    ("nan", '{"id": 1, "claim": "x", "evidence": "y", "score": NaN}\n', "pairs.jsonl:1: score: NaN is not a number"),
    ("lone-surrogate", '{"id": 1, "claim": "x", "evidence": "\\udc00"}\n', "pairs.jsonl:1: evidence: a lone surrogate"),
    ("deep-200000", '{"id": 1, "claim": "x", "evidence": "y", "x": ' + _deep(200_000) + "}\n",
     "pairs.jsonl:1: x[0][0][0]...: nested deeper than 64 levels"),
    ("5000-digits", '{"id": 1, "claim": "x", "evidence": "y", "n": ' + "1" * 5000 + "}\n",
     "pairs.jsonl:1: n: a number with 5000 digits is out of range"),
    ("claim-over-limit", json.dumps({"id": 1, "claim": "x" * 100_001, "evidence": "y"}) + "\n",
     "pairs.jsonl:1: claim: 100,001 characters is over the limit of 100,000"),
    ("huge-passage", json.dumps({"id": 1, "claim": "x", "evidence": ["y", "z" * 1_000_001]}) + "\n",
     "pairs.jsonl:1: evidence[1]: 1,000,001 characters is over the limit of 1,000,000"),
    ("control-in-id", json.dumps({"id": "a\x1b[2J", "claim": "x", "evidence": "y"}) + "\n",
     "pairs.jsonl:1: id: holds a control character (U+001B)"),
]

# ------------------------------------------------------------------ run --entities / --entity / --texts
ENTITY_KINDS = [
    ("nul", b"Marie Curie\nAda\x00Lovelace\n", "e.txt:2: holds a NUL byte (byte 15); binary data, not text"),
    ("esc", b"Marie Curie\n\x1b]0;pwned\x07Ada\n", "e.txt:2: the name holds a control character (U+001B)"),
    ("csi-c1", "Ada\u009b2J\n".encode(), "e.txt:1: the name holds a control character (U+009B)"),
    ("del", b"Ada\x7f\n", "e.txt:1: the name holds a control character (U+007F)"),
    ("bidi-override", b"Ada \xe2\x80\xaeecalevol\n", "e.txt:1: the name holds a control character (U+202E)"),
    ("bidi-isolate", "Ada \u2066x\u2069\n".encode(), "e.txt:1: the name holds a control character (U+2066)"),
    ("line-separator", "Marie\u2028Curie\n".encode(), "e.txt:1: the name holds a control character (U+2028)"),
    ("cr-line-ends", b"Marie Curie\rAda Lovelace\r", "e.txt:1: the name holds a control character (U+000D)"),
    ("over-long-line", b"x" * 1_000_000 + b"\n", "e.txt:1: a line of 1,000,000 characters is too long"),
    ("just-over-limit", b"M" * 501 + b"\n", "e.txt:1: a line of 501 characters is too long"),
    ("json-object", json.dumps({"entities": ["Marie Curie"] * 88}).encode(), "is JSON, not a list of names"),
    ("json-list", b'["Marie Curie", "Ada Lovelace"]', "is JSON, not a list of names"),
    ("comments-only", b"# people\n\n# none yet\n", "e.txt: no names (only blank lines and comments)"),
    ("duplicate-names", b"Marie Curie\nAda Lovelace\nMarie Curie\n", "e.txt:3: 'Marie Curie' is already on line 1"),
    ("bad-qid", b"Marie Curie\tQ12x\n", "e.txt:1: cannot read 'Q12x'"),
    ("lone-surrogate-bytes", b"Ada \xed\xb0\x80\n", "not UTF-8 text (byte 4)"),
]
ENTITY_ARG_KINDS = [
    ("escape", "\x1b[2JMarie Curie", "--entity:1: the name holds a control character (U+001B)"),
    ("bidi", "Ada \u202eecalevol", "--entity:1: the name holds a control character (U+202E)"),
    ("newline", "Marie Curie\nAda", "--entity:1: the name holds a control character (U+000A)"),
    ("over-long", "M" * 10_000, "--entity:1: a line of 10,000 characters is too long"),
    ("blank", "   ", "--entity is empty"),
]
_T = {"id": "t1", "lang": "en", "entity": "Marie Curie", "text": "Marie Curie was born in Warsaw."}
TEXT_KINDS = [
    ("malformed-line", "{oops\n", "t.jsonl:1: not valid JSON"),
    ("nan", json.dumps(_T)[:-1] + ', "evidence": [{"text": "x", "score": NaN}]}\n',
     "t.jsonl:1: evidence[0].score: NaN is not a number"),
    ("deep-200000", json.dumps(_T)[:-1] + ', "evidence": ' + _deep(200_000) + "}\n",
     "t.jsonl:1: evidence[0][0][0]...: nested deeper than 64 levels"),
    ("lone-surrogate", json.dumps(_T).replace("Warsaw", "Warsaw\\ud800") + "\n",
     "t.jsonl:1: text: a lone surrogate (\\ud800) is not text"),
    ("5000-digits", json.dumps(_T)[:-1] + ', "evidence": ' + "9" * 5000 + "}\n",
     "t.jsonl:1: evidence: a number with 5000 digits is out of range"),
    ("row-is-a-list", "[1]\n", "t.jsonl:1: must be a JSON object, got a list"),
    ("lang-unknown", json.dumps({**_T, "lang": "zz"}) + "\n", "t.jsonl:1: unknown language 'zz'"),
    ("text-as-number", json.dumps({**_T, "text": 5}) + "\n", 't.jsonl:1: "text" must be a non-empty string'),
    ("unknown-field", json.dumps({**_T, "txet": "x"}) + "\n", "t.jsonl:1: unknown field 'txet'"),
    ("text-over-limit", json.dumps({**_T, "text": "x" * 2_000_001}) + "\n", 't.jsonl:1: "text" is 2000001 characters'),
    ("control-in-entity", json.dumps({**_T, "entity": "Ada\x1b[2J"}) + "\n",
     't.jsonl:1: "entity" holds a control character (U+001B)'),
    ("evidence-over-total-limit", json.dumps({**_T, "evidence": ["x" * 1_000_000] * 11}) + "\n",
     't.jsonl:1: "evidence": 11,000,000 characters of passages in all; at most 10,000,000'),
]

_E = '{"text": "Marie Curie was born in Warsaw.", "title": "Marie Curie"}'
EVIDENCE_KINDS = [
    ("malformed-line", _E + "\n{oops\n", "ev.jsonl:2: not valid JSON"),
    ("nan", _E[:-1] + ', "score": NaN}\n', "ev.jsonl:1: score: NaN is not a number"),
    ("deep-200000", "[" + _deep(200_000) + "]", "ev.jsonl: [0][0][0][0]...: nested deeper than 64 levels"),
    ("lone-surrogate", '{"text": "Warsaw \\udc00"}\n', "ev.jsonl:1: text: a lone surrogate"),
    ("5000-digits", _E[:-1] + ', "n": ' + "7" * 5000 + "}\n", "ev.jsonl:1: n: a number with 5000 digits"),
    ("passage-as-number", "42\n", 'ev.jsonl:1: a passage must be a string or an object with "text", got a number'),
    ("text-missing", '{"title": "Marie Curie"}\n', 'ev.jsonl:1: "text" must be a non-empty string'),
    ("title-as-list", '{"text": "x", "title": ["a"]}\n', 'ev.jsonl:1: "title" must be a string'),
    ("passage-over-limit", json.dumps({"text": "x" * 1_000_001}) + "\n",
     'ev.jsonl:1: "text" is 1,000,001 characters; at most 1,000,000'),
    ("empty-json-list", "[]", "ev.jsonl: the list of passages is empty"),
    ("passages-over-total-limit", "".join(json.dumps({"text": "x" * 1_000_000}) + "\n" for _ in range(11)),
     "ev.jsonl: 11,000,000 characters of passages in all; at most 10,000,000"),
]

COMMAND_RUNS = {
    "import, score, mfact-tui --open": len(SESSION_KINDS) * 3,
    "every file-reading command": len(FILE_KINDS) * len(FILE_COMMANDS),
    "verify-pairs": len(PAIR_KINDS),
    "run --entities": len(ENTITY_KINDS),
    "run --entity, check --entity, mfact-tui --entity": len(ENTITY_ARG_KINDS) * 3,
    "run --texts": len(TEXT_KINDS),
    "check --evidence": len(EVIDENCE_KINDS),
}


def all_kinds() -> list[str]:
    return ([f"session:{k[0]}" for k in SESSION_KINDS] + [f"file:{k.kind}" for k in FILE_KINDS]
            + [f"pairs:{k[0]}" for k in PAIR_KINDS] + [f"entities:{k[0]}" for k in ENTITY_KINDS]
            + [f"entity-option:{k[0]}" for k in ENTITY_ARG_KINDS] + [f"texts:{k[0]}" for k in TEXT_KINDS]
            + [f"evidence:{k[0]}" for k in EVIDENCE_KINDS])


def kinds_block() -> str:
    """The part of docs/reliability.md that lists the kinds (generated; checked by a test)."""
    groups = [
        (f"Session files ({len(SESSION_KINDS)} kinds, each through `import`, `score` and `mfact-tui --open`)",
         [k[0] for k in SESSION_KINDS]),
        (f"Any file ({len(FILE_KINDS)} kinds, each through all {len(FILE_COMMANDS)} file-reading commands: "
         + ", ".join(f"`{c[0]}`" for c in FILE_COMMANDS) + ")", [k.kind for k in FILE_KINDS]),
        (f"Pair files for `verify-pairs` ({len(PAIR_KINDS)} kinds)", [k[0] for k in PAIR_KINDS]),
        (f"Entity lists for `run --entities` ({len(ENTITY_KINDS)} kinds)", [k[0] for k in ENTITY_KINDS]),
        (f"Names given to `run --entity`, `check --entity` and `mfact-tui --entity` ({len(ENTITY_ARG_KINDS)} kinds)",
         [k[0] for k in ENTITY_ARG_KINDS]),
        (f"Text files for `run --texts` ({len(TEXT_KINDS)} kinds)", [k[0] for k in TEXT_KINDS]),
        (f"Evidence files for `check --evidence` ({len(EVIDENCE_KINDS)} kinds)", [k[0] for k in EVIDENCE_KINDS]),
    ]
    lines = ["<!-- kinds: generated by `python tests/test_reliability_inputs.py`; a test checks it -->",
             f"**{len(all_kinds())} kinds of hostile input, {sum(COMMAND_RUNS.values())} command runs** "
             "(`tests/test_reliability_inputs.py`), each one line naming the file and the field, no "
             "traceback, a non-zero exit, the store unchanged:", ""]
    for title, names in groups:
        lines.append(f"- {title}: " + ", ".join(f"`{n}`" for n in names) + ".")
    lines.append("<!-- /kinds -->")
    return "\n".join(lines)


# ------------------------------------------------------------------ running the commands in-process
@dataclass
class Result:
    rc: int
    out: str
    err: str


class _NoApp:
    def __init__(self, *a, **kw):
        raise AssertionError("mfact-tui opened a session it should have refused")


@pytest.fixture
def run_cmd(capsys, monkeypatch):
    """run_cmd(argv) runs `mfact argv` (`mfact-tui argv` when argv[0] == '--open' or tui) in-process."""
    from mfact.core.cli import main as cli_main
    from mfact.tui import app as tui_app

    monkeypatch.setattr(tui_app, "MfactApp", _NoApp)

    def run(argv: list[str], tui: bool = False) -> Result:
        capsys.readouterr()
        rc = (tui_app.main if tui or argv[0] == "--open" else cli_main)(list(argv))
        got = capsys.readouterr()
        return Result(rc, got.out, got.err)

    return run


@pytest.fixture
def store_state(mfact_home, tmp_path, run_cmd):
    """A store holding one session (imported by the real command); a function returning its content."""
    good = tmp_path / "good.json"
    good.write_text(_dump(_with("id", "keep")), encoding="utf-8")
    assert run_cmd(["import", str(good)]).rc == 0
    db = next(mfact_home.rglob("*.sqlite3"))

    def snapshot():
        con = sqlite3.connect(db)
        try:
            tables = [t for t, in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
            return {t: con.execute(f"SELECT * FROM {t}").fetchall() for t in tables}
        finally:
            con.close()

    first = snapshot()
    assert first and any(rows for rows in first.values())
    return snapshot


_RAW_ERROR = re.compile(r"\b[A-Z]\w*(Error|Exception|Warning)\b|Traceback|\bline \d+, in\b")


def one_line(res: Result, *needles: str) -> str:
    """The refusal is exactly one line on stderr, `mfact: error: ...` naming what it must, exit != 0."""
    assert res.rc != 0, (res.out[:500], res.err[:500])
    lines = res.err.splitlines()
    assert len(lines) == 1, res.err[:3000]
    line = lines[0]
    assert re.match(r"mfact(-tui)?: error: \S", line), line[:300]
    assert not _RAW_ERROR.search(line), line[:300]
    assert len(line) < 600, line[:600]
    for n in needles:
        assert n in line, (n, line[:600])
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", res.out + res.err)
    return line


def _write(path: Path, content) -> None:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8", "surrogatepass"))


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize("case", SESSION_KINDS, ids=[k[0] for k in SESSION_KINDS])
def test_bad_session_file_is_one_line_in_import_score_and_tui(tmp_path, store_state, run_cmd, case):
    kind, name, content, needle = case
    f = tmp_path / name
    _write(f, content)
    before = store_state()
    t0 = time.monotonic()
    line = one_line(run_cmd(["import", str(f)]), f"{f}", needle)
    assert line.endswith("nothing was imported)"), line[-200:]
    line = one_line(run_cmd(["score", str(f)]), f"{f}", needle)
    assert "nothing was imported" not in line
    one_line(run_cmd(["--open", str(f)]), f"{f}", needle)
    assert time.monotonic() - t0 < 20
    assert store_state() == before


@pytest.mark.parametrize("fk", FILE_KINDS, ids=[k.kind for k in FILE_KINDS])
def test_any_bad_file_is_one_line_in_every_command(tmp_path, store_state, run_cmd, monkeypatch, fk):
    good_text = tmp_path / "good.txt"
    good_text.write_text(GOOD["text"], encoding="utf-8")
    before = store_state()
    for label, argv, name in FILE_COMMANDS:
        d = tmp_path / label.replace(" ", "_")
        d.mkdir()
        path = _make_file(fk.kind, d, name, monkeypatch)
        t0 = time.monotonic()
        res = run_cmd([a.replace("{f}", path).replace("{t}", str(good_text)) for a in argv])
        assert time.monotonic() - t0 < 10, label          # a FIFO or /dev/zero is never read
        try:
            one_line(res, path, fk.needle)
        except AssertionError as exc:
            raise AssertionError(f"{label}: {exc}") from None
    assert store_state() == before


@pytest.mark.parametrize("kind,content,needle", PAIR_KINDS, ids=[k[0] for k in PAIR_KINDS])
def test_bad_pairs_are_one_line_in_verify_pairs(tmp_path, store_state, run_cmd, kind, content, needle):
    f = tmp_path / "pairs.jsonl"
    _write(f, content)
    before = store_state()
    res = run_cmd(["verify-pairs", str(f)])
    one_line(res, needle)
    assert res.out == ""
    assert store_state() == before


def test_verify_pairs_unknown_language_is_one_line_per_row_and_the_others_run(tmp_path, run_cmd):
    f = tmp_path / "pairs.jsonl"
    f.write_text('{"id": "z", "lang": "zz", "claim": "x", "evidence": "y"}\n' + _P + "\n"
                 '{"id": "c", "lang": "xx-YY", "claim": "x", "evidence": "y"}\n', encoding="utf-8")
    res = run_cmd(["verify-pairs", str(f), "--json"])
    assert res.rc == 1
    assert [json.loads(x)["id"] for x in res.out.splitlines()] == ["a"]
    err = res.err.splitlines()
    assert err[0].startswith(f"mfact: error: {f}:1: lang: unknown language 'zz'")
    assert err[1].startswith(f"mfact: error: {f}:3: lang: unknown language 'xx-YY'")
    assert len(err) == 2


@pytest.mark.parametrize("kind,content,needle", ENTITY_KINDS, ids=[k[0] for k in ENTITY_KINDS])
def test_bad_entity_lists_are_refused_in_one_line_naming_the_line(tmp_path, store_state, run_cmd,
                                                                  kind, content, needle):
    f = tmp_path / "e.txt"
    f.write_bytes(content)
    before = store_state()
    one_line(run_cmd(["run", "--lang", "en", "--entities", str(f), "--offline", "--no-progress",
                      "--base-url", "http://127.0.0.1:9/v1"]), str(f), needle)
    assert store_state() == before


@pytest.mark.parametrize("kind,value,needle", ENTITY_ARG_KINDS, ids=[k[0] for k in ENTITY_ARG_KINDS])
def test_bad_entity_options_are_refused_in_one_line(store_state, run_cmd, kind, value, needle):
    before = store_state()
    one_line(run_cmd(["run", "--lang", "en", "--entity", value, "--offline", "--no-progress",
                      "--base-url", "http://127.0.0.1:9/v1"]), needle)
    assert store_state() == before


@pytest.mark.parametrize("kind,value,needle", ENTITY_ARG_KINDS, ids=[k[0] for k in ENTITY_ARG_KINDS])
def test_the_same_names_are_refused_by_check_and_the_tui(tmp_path, store_state, run_cmd, kind, value, needle):
    """A session made from a name must import again: `check --entity` and `mfact-tui --entity`
    refuse what `run --entity` refuses."""
    text = tmp_path / "bio.txt"
    text.write_text(GOOD["text"], encoding="utf-8")
    before = store_state()
    one_line(run_cmd(["check", "--lang", "en", "--entity", value, "--text-file", str(text), "--offline"]), needle)
    one_line(run_cmd(["--entity", value, "--lang", "en"], tui=True), needle)
    assert store_state() == before


@pytest.mark.parametrize("kind,content,needle", TEXT_KINDS, ids=[k[0] for k in TEXT_KINDS])
def test_bad_text_files_are_one_line_in_run_texts(tmp_path, store_state, run_cmd, kind, content, needle):
    f = tmp_path / "t.jsonl"
    _write(f, content)
    before = store_state()
    line = one_line(run_cmd(["run", "--texts", str(f), "--offline", "--no-progress"]), needle)
    assert "no line" in line
    assert store_state() == before


@pytest.mark.parametrize("kind,content,needle", EVIDENCE_KINDS, ids=[k[0] for k in EVIDENCE_KINDS])
def test_bad_evidence_files_are_one_line_in_check(tmp_path, store_state, run_cmd, kind, content, needle):
    text = tmp_path / "bio.txt"
    text.write_text(GOOD["text"], encoding="utf-8")
    f = tmp_path / "ev.jsonl"
    _write(f, content)
    before = store_state()
    one_line(run_cmd(["check", "--lang", "en", "--entity", "Marie Curie", "--text-file", str(text), "--evidence",
                      str(f), "--no-save", "--offline"]), str(f), needle)
    assert store_state() == before


def test_a_bom_is_accepted_the_same_everywhere(tmp_path, run_cmd):
    f = tmp_path / "bom.json"
    f.write_bytes(b"\xef\xbb\xbf" + _dump(GOOD).encode())
    assert run_cmd(["score", str(f), "--json"]).rc == 0
    assert run_cmd(["import", str(f)]).rc == 0
    from mfact.tui.app import load_session_arg
    assert load_session_arg(str(f)).id == "s1"
    pairs = tmp_path / "p.jsonl"
    pairs.write_bytes(b"\xef\xbb\xbf" + b'{"id": 1, "lang": "zz", "claim": "x", "evidence": "y"}\n')
    res = run_cmd(["verify-pairs", str(pairs)])
    assert "p.jsonl:1: lang: unknown language 'zz'" in res.err      # the BOM did not break line 1
    ents = tmp_path / "e.txt"
    ents.write_bytes(b"\xef\xbb\xbfMarie Curie\r\nAda Lovelace\r\n")
    from mfact.core.batch import read_entity_file
    assert [e.name for e in read_entity_file(ents)] == ["Marie Curie", "Ada Lovelace"]


def test_what_the_validator_must_still_accept(tmp_path, run_cmd):
    """Strict, not fussy: overlapping spans, an empty span, a surrogate pair written as escapes, a
    NUL in the text, numbers at the edge of the ranges, times with a Z or a date only, CRLF lines."""
    d = copy.deepcopy(GOOD)
    d["facts"].append({"id": "f3", "text": "born in Warsaw", "sentence": 0, "span": [17, 30],
                       "auto": None, "human": None})                  # overlaps f1
    d["facts"].append({"id": "f4", "text": "", "sentence": 1, "span": [57, 57], "auto": None, "human": None})
    d["tokens"] = 2 ** 63 - 1
    d["generator"] = {"seed": -(2 ** 63)}
    d["created_at"] = "2026-01-01T00:00:00Z"
    d["facts"][0]["human"]["time"] = "2026-01-01"
    d["metrics"] = {"tiny": 1e-300, "digits": int("9" * 18)}
    d["entity"]["name"] = "M" * 500
    text = _dump(d).replace("Warsaw. She", "Warsaw\\ud83d\\ude00 She", 1).replace("\n", "\r\n")
    f = tmp_path / "ok.json"
    f.write_text(text, encoding="utf-8")
    res = run_cmd(["import", str(f)])
    assert res.rc == 0, res.err
    assert run_cmd(["score", str(f), "--json"]).rc == 0
    from mfact.tui.app import load_session_arg
    s = load_session_arg(str(f))
    assert "\U0001F600" in s.text and len(s.facts) == 4 and s.tokens == 2 ** 63 - 1


def test_import_from_stdin_works(tmp_path):
    p = subprocess.run([MFACT, "import", "-"], input=_dump(GOOD), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "imported 1 sessions" in p.stdout, p.stderr


def test_the_installed_scripts_agree(tmp_path, store_state):
    """A few kinds through the real executables (a fresh interpreter each: its own recursion limit,
    stdin, signals): the same one line as in-process."""
    nan = tmp_path / "nan.json"
    nan.write_text(SESSION_KINDS[0][2], encoding="utf-8")
    deep = tmp_path / "deep.json"
    deep.write_text(next(k for k in SESSION_KINDS if k[0] == "deep-200000-document")[2], encoding="utf-8")
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)
    before = store_state()
    for exe, args, needle in [
        (MFACT, ["import", str(nan)], "facts[1].auto.confidence: NaN is not a number (nothing was imported)"),
        (MFACT_TUI, ["--open", str(deep)], "deep.json: [0][0][0][0]...: nested deeper than 64 levels"),
        (MFACT, ["import", str(fifo)], "a FIFO (named pipe), not a regular file"),
        (MFACT, ["run", "--lang", "en", "--entity", "\x1b[2JAda", "--offline", "--no-progress"], "U+001B"),
    ]:
        t0 = time.monotonic()
        p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=60)
        assert time.monotonic() - t0 < 30
        one_line(Result(p.returncode, p.stdout, p.stderr), needle)
    p = subprocess.run([MFACT, "import", "-"], input=SESSION_KINDS[0][2], capture_output=True, text=True,
                       timeout=60)                      # stdin goes through the same validator
    one_line(Result(p.returncode, p.stdout, p.stderr), "<stdin>: facts[1].auto.confidence: NaN is not a number")
    assert store_state() == before


def test_the_kinds_are_counted_in_the_docs():
    kinds = all_kinds()
    assert len(kinds) == len(set(kinds))
    assert len(kinds) >= 71
    doc = DOC.read_text(encoding="utf-8")
    assert kinds_block() in doc, "docs/reliability.md is out of date: run python tests/test_reliability_inputs.py"


def _rewrite_doc() -> None:
    doc = DOC.read_text(encoding="utf-8")
    start = doc.index("<!-- kinds:")
    end = doc.index("<!-- /kinds -->") + len("<!-- /kinds -->")
    DOC.write_text(doc[:start] + kinds_block() + doc[end:], encoding="utf-8")
    print(f"{DOC}: {len(all_kinds())} kinds, {sum(COMMAND_RUNS.values())} command runs")


if __name__ == "__main__":
    _rewrite_doc()
