"""Hostile inputs through the real commands (`mfact import`, `mfact score`, `mfact-tui --open`,
`mfact verify-pairs`, `mfact run --entities`): each is refused in one line naming the file and the
field, with no traceback, and nothing changes in the store."""
from __future__ import annotations

import copy
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
MFACT, MFACT_TUI = str(BIN / "mfact"), str(BIN / "mfact-tui")

GOOD = {
    "schema": "mfact.session/1", "id": "s1", "language": "en", "entity": {"name": "Marie Curie"},
    "text": "Marie Curie was born in Warsaw. She won two Nobel Prizes.",
    "facts": [
        {"id": "f1", "text": "Marie Curie was born in Warsaw.", "sentence": 0, "span": [0, 31],
         "auto": {"label": "S", "confidence": 0.9, "evidence": ["e1"]}, "human": None},
        {"id": "f2", "text": "She won two Nobel Prizes.", "sentence": 1, "span": [32, 57],
         "auto": {"label": "S", "confidence": 0.8, "evidence": ["e1"]}, "human": None},
    ],
    "evidence": [{"id": "e1", "source": "wikipedia", "lang": "en", "title": "Marie Curie",
                  "text": "Marie Curie, born in Warsaw, won two Nobel Prizes.", "score": 0.5}],
}


def _with(path: str, value):
    d = copy.deepcopy(GOOD)
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


def _dump(d) -> str:
    return json.dumps(d, ensure_ascii=False)


# (name, file content as text or bytes, what the one line must say)
BAD_JSON = [
    ("nan", _dump(GOOD).replace('"confidence": 0.8', '"confidence": NaN'),
     "facts[1].auto.confidence: NaN is not a number"),
    ("infinity", _dump(GOOD).replace('"score": 0.5', '"score": Infinity'), "evidence[0].score: Infinity is not a number"),
    ("minus-infinity", _dump(GOOD).replace('"score": 0.5', '"score": -Infinity'), "evidence[0].score: -Infinity"),
    ("float-overflow", _dump(GOOD).replace('"score": 0.5', '"score": 1e999'), "evidence[0].score: 1e999 is out of range"),
    ("int-overflow", _dump(_with("tokens", 2 ** 64)), "tokens: 18446744073709551616 is beyond the 64-bit"),
    ("int-overflow-span", _dump(_with("facts.0.span", [0, 2 ** 70])), "facts[0].span[1]:"),
    ("int-overflow-meta", _dump(_with("metrics", {"x": -(2 ** 63) - 1})), "metrics.x:"),
    ("5000-digits", _dump(GOOD).replace('"score": 0.5', '"score": ' + "9" * 5000),
     "evidence[0].score: a number with 5000 digits is out of range"),
    ("5000-digit-float", _dump(GOOD).replace('"score": 0.5', '"score": 0.' + "1" * 5000), "evidence[0].score:"),
    ("dup-evidence", _dump(_with("evidence", GOOD["evidence"] * 2)), "evidence[1].id: duplicate evidence id 'e1'"),
    ("dup-fact", _dump(_with("facts", [GOOD["facts"][0], GOOD["facts"][0]])), "facts[1].id: duplicate fact id"),
    ("lone-surrogate", _dump(GOOD).replace("Warsaw.", "Warsaw\\ud800."), "a lone surrogate (\\ud800) is not text"),
    ("lone-surrogate-key", _dump(GOOD)[:-1] + ', "metrics": {"\\udc00": 1}}', "metrics: a key with a lone surrogate"),
    ("deep-200000", _dump(GOOD)[:-1] + ', "checks": {"a": ' + "[" * 200_000 + "]" * 200_000 + "}}",
     "checks.a[0]"),
    ("deep-100", _dump(_with("config", json.loads("[" * 100 + "]" * 100))), "nested deeper than 64 levels"),
    ("not-json", "{nope", "not valid JSON"),
    ("not-utf8", b"\xff\xfe{}", "not UTF-8 text"),
    ("bad-label", _dump(_with("facts.0.auto.label", "MAYBE")), "facts[0].auto.label: unknown label"),
    ("confidence-range", _dump(_with("facts.0.auto.confidence", 7)), "facts[0].auto.confidence:"),
    ("span-outside", _dump(_with("facts.0.span", [0, 9999])), "facts[0].span:"),
    ("unknown-evidence", _dump(_with("facts.0.auto.evidence", ["nope"])), "facts[0].auto.evidence"),
    ("text-too-long", _dump(_with("text", "x" * 2_000_001)), "text: 2,000,001 characters is over the limit"),
    ("schema", _dump(_with("schema", "other")), "schema: expected"),
    ("bad-language", _dump(_with("language", "zz")), "language:"),
    ("null-doc", "null", "expected a session object"),
]


@pytest.fixture
def store_db(mfact_home):
    """A store holding one session, and a function telling whether it is unchanged."""
    good = mfact_home.parent / "good.json"
    good.write_text(_dump(_with("id", "keep")), encoding="utf-8")
    p = subprocess.run([MFACT, "import", str(good)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    db = next(mfact_home.rglob("*.sqlite3"))

    def snapshot():
        con = sqlite3.connect(db)
        try:
            return [con.execute(f"SELECT * FROM {t}").fetchall() for t, in
                    con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        finally:
            con.close()

    return snapshot


def _one_line(p, *needles):
    err = p.stderr.strip()
    assert p.returncode != 0, (p.stdout, p.stderr)
    assert len(err.splitlines()) == 1, err[:3000]
    assert "Traceback" not in err and "Error:" not in err.split(": error: ", 1)[-1][:40], err[:500]
    for n in needles:
        assert n in err, (n, err[:500])
    assert "\x1b" not in p.stdout + p.stderr
    return err


def _run(*args, timeout=60, **kw):
    return subprocess.run(list(args), capture_output=True, timeout=timeout, text=True, **kw)


@pytest.mark.parametrize("name,content,needle", BAD_JSON, ids=[b[0] for b in BAD_JSON])
def test_bad_session_file_is_one_line_in_import_score_and_tui(tmp_path, store_db, name, content, needle):
    f = tmp_path / f"{name}.json"
    if isinstance(content, bytes):
        f.write_bytes(content)
    else:
        f.write_text(content, encoding="utf-8", errors="surrogatepass")
    before = store_db()
    err = _one_line(_run(MFACT, "import", str(f)), str(f), needle)
    assert "nothing was imported" in err
    err = _one_line(_run(MFACT, "score", str(f)), str(f), needle)
    assert "nothing was imported" not in err
    _one_line(_run(MFACT_TUI, "--open", str(f)), str(f), needle)
    assert store_db() == before


def test_special_files_are_refused_at_once(tmp_path, store_db):
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.json"
    os.symlink(loop, loop)
    dangling = tmp_path / "dangling.json"
    os.symlink(tmp_path / "nowhere", dangling)
    unreadable = tmp_path / "secret.json"
    unreadable.write_text(_dump(GOOD))
    unreadable.chmod(0)
    cases = [(fifo, "a FIFO (named pipe), not a regular file"), (tmp_path, "a directory, not a regular file"),
             (loop, "a loop of symbolic links"), (dangling, "a symbolic link to nothing")]
    if os.geteuid() != 0:          # root reads anything
        cases.append((unreadable, "permission denied"))
    before = store_db()
    for path, needle in cases:
        for cmd in ([MFACT, "import", str(path)], [MFACT, "score", str(path)], [MFACT_TUI, "--open", str(path)],
                    [MFACT, "verify-pairs", str(path)], [MFACT, "run", "--lang", "en", "--entities", str(path),
                                                         "--offline", "--no-progress"]):
            t = time.monotonic()
            _one_line(_run(*cmd, timeout=30), needle)
            assert time.monotonic() - t < 15
    assert store_db() == before


def test_a_bom_is_accepted_the_same_everywhere(tmp_path):
    f = tmp_path / "bom.json"
    f.write_bytes(b"\xef\xbb\xbf" + _dump(GOOD).encode())
    assert _run(MFACT, "score", str(f), "--json").returncode == 0
    assert _run(MFACT, "import", str(f)).returncode == 0
    from mfact.tui.app import load_session_arg
    assert load_session_arg(str(f)).id == "s1"
    pairs = tmp_path / "p.jsonl"
    pairs.write_bytes(b"\xef\xbb\xbf" + b'{"id": 1, "lang": "zz", "claim": "x", "evidence": "y"}\n')
    p = _run(MFACT, "verify-pairs", str(pairs))
    assert "p.jsonl:1: lang: unknown language 'zz'" in p.stderr      # the BOM did not break line 1
    ents = tmp_path / "e.txt"
    ents.write_bytes(b"\xef\xbb\xbfMarie Curie\n")
    from mfact.core.batch import read_entity_file
    assert [e.name for e in read_entity_file(ents)] == ["Marie Curie"]


def test_import_from_stdin_works_and_a_fifo_is_still_refused(tmp_path):
    p = subprocess.run([MFACT, "import", "-"], input=_dump(GOOD), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "imported 1 sessions" in p.stdout, p.stderr


@pytest.mark.parametrize("content,needle", [
    (b"Marie Curie\nAda\x00Lovelace\n", "e.txt:2: the name holds a NUL byte; line refused"),
    (b"Marie Curie\n\x1b]0;pwned\x07Ada\n", "e.txt:2: the name holds a control character (U+001B)"),
    (b"Ada \xe2\x80\xaeecalevol\n", "e.txt:1: the name holds a control character (U+202E)"),
    (b"x" * 1_000_000 + b"\n", "e.txt:1: a line of 1,000,000 characters is too long"),
    (json.dumps({"entities": ["Marie Curie"] * 88}).encode(), "is JSON, not a list of names"),
    (b'["Marie Curie", "Ada Lovelace"]', "is JSON, not a list of names"),
    (b"\xff\xfe", "not UTF-8 text"),
], ids=["nul", "esc", "bidi", "1mb-line", "json-object", "json-list", "not-utf8"])
def test_bad_entity_lists_are_refused_in_one_line_naming_the_line(tmp_path, content, needle):
    f = tmp_path / "e.txt"
    f.write_bytes(content)
    _one_line(_run(MFACT, "run", "--lang", "en", "--entities", str(f), "--offline", "--no-progress",
                   "--base-url", "http://127.0.0.1:9/v1"), needle)


def test_entity_flag_with_escape_codes_is_refused():
    p = _run(MFACT, "run", "--lang", "en", "--entity", "\x1b[2JMarie Curie", "--offline", "--no-progress",
             "--base-url", "http://127.0.0.1:9/v1")
    _one_line(p, "--entity:1: the name holds a control character (U+001B)")
