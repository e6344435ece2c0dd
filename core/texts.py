"""Texts the user already has: `mfact run --texts FILE.jsonl`.

Each line is `{"id", "lang", "entity"?, "question"?, "text", "evidence"?}`: a text about the entity
(any topic: a person, a place, a film), in language `lang`, optionally the answer to `question`
(core/pipeline/question.py), optionally with the passages that are its only evidence (a list of
strings or `{"text", "title"?, "url"?, "lang"?}` objects; `[]`: no evidence at all, so every fact
comes out not supported, as `verify-pairs` scores such a row). The entity may be left out when a
question or passages are given: the topic is read from them (`topic_of`). `read_text_lines`
returns the good lines as `TextSpec`s and the bad ones as `(line number, reason)`, so that a run
checks what it can and reports the rest.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .languages import UnknownLanguage, get_language
from .errors import MfactError

MAX_TEXT_CHARS = 200_000
MAX_ID_CHARS = 200              # an id names a session: it is echoed and stored
FIELDS = ("id", "lang", "entity", "question", "text", "evidence")


@dataclass(frozen=True)
class TextSpec:
    line: int
    id: str
    lang: str
    entity: str
    text: str
    evidence: tuple[dict, ...] | None = None
    question: str = ""

    def digest(self) -> str:
        """What the session checks, as a hash: the text, the evidence and the question (when given)."""
        parts: list = [self.text, list(self.evidence) if self.evidence is not None else None]
        if self.question:
            parts.append(self.question)
        body = json.dumps(parts, ensure_ascii=False, sort_keys=True)
        return hashlib.sha1(body.encode("utf-8", "surrogatepass")).hexdigest()


def plan_text_jobs(specs: list[TextSpec], cfg) -> list:
    """One job per text. The session id derives from the line's id, what it checks (language,
    entity, text and evidence) and the run's configuration, so a re-run skips finished lines."""
    from .batch import EntitySpec, Job, run_fingerprint

    fp = json.dumps(run_fingerprint(cfg), sort_keys=True)
    jobs = []
    for spec in specs:
        key = json.dumps([fp, spec.id, spec.lang, spec.entity, spec.digest()], ensure_ascii=False)
        sid = "txt-" + hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        jobs.append(Job(EntitySpec(spec.entity), spec.lang, 0, sid, text=spec))
    return jobs


def _field(d: dict, key: str) -> str:
    v = d.get(key)
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f'"{key}" must be a non-empty string')
    return v


def _question(d: dict) -> str:
    """The line's question ("" when it has none); a present one must be a non-empty string."""
    from .session import MAX_QUESTION_CHARS

    if d.get("question") is None:
        return ""
    q = _field(d, "question").strip()
    if len(q) > MAX_QUESTION_CHARS:
        raise ValueError(f'"question" is {len(q):,} characters; at most {MAX_QUESTION_CHARS:,}')
    return q


def _entity(d: dict, question: str, evidence: tuple[dict, ...] | None) -> str:
    """The line's entity, or the topic its question or passages name when it has none."""
    from .pipeline.question import topic_of

    if d.get("entity") is not None or (not question and not evidence):
        return _field(d, "entity").strip()
    from .inputs import CONTROL

    topic = CONTROL.sub("", topic_of(question, list(evidence or ())))
    if not topic:
        raise ValueError('no "entity", and none can be read from the question or the evidence')
    return topic


def parse_text_line(line: str, lineno: int) -> TextSpec:
    """One JSONL line; raises ValueError with the reason. The JSON goes through core/inputs.py
    (no NaN, no numbers out of range, no lone surrogates, no deep nesting, no key given twice)."""
    from .inputs import CONTROL, loads
    from .schema import json_type
    from .session import MAX_NAME_CHARS

    try:
        d: Any = loads(line, "@", one_line=True)
    except MfactError as exc:
        raise ValueError(exc.message[3:] if exc.message.startswith("@: ") else exc.message) from None
    if not isinstance(d, dict):
        raise ValueError(f"must be a JSON object, got {json_type(d)}")
    unknown = sorted(set(d) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}; the fields are " + ", ".join(FIELDS))
    # every field is checked for its type before any use: a missing or non-string field is this
    # line's error, never the run's
    ident = _field(d, "id").strip()
    if d.get("entity") is not None:
        _field(d, "entity")
    _field(d, "lang")
    _field(d, "text")
    question = _question(d)
    if len(ident) > MAX_ID_CHARS:
        raise ValueError(f'"id" is {len(ident):,} characters; at most {MAX_ID_CHARS}')
    for key in ("id", "entity"):
        bad = CONTROL.search(d.get(key) or "")
        if bad:
            raise ValueError(f'"{key}" holds a control character (U+{ord(bad.group()):04X})')
    if len(d.get("entity") or "") > MAX_NAME_CHARS:
        raise ValueError(f'"entity" is {len(d["entity"])} characters; at most {MAX_NAME_CHARS}')
    try:
        lang = get_language(_field(d, "lang")).code
    except UnknownLanguage as exc:
        raise ValueError(str(exc)) from None
    text = _field(d, "text")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f'"text" is {len(text)} characters; at most {MAX_TEXT_CHARS}')
    evidence = None
    if d.get("evidence") is not None:
        from .knowledge.given import parse_evidence
        try:
            evidence = tuple(parse_evidence(d["evidence"], '"evidence"', lang, empty=True))
        except MfactError as exc:
            raise ValueError(exc.message) from None
    entity = _entity(d, question, evidence)
    return TextSpec(lineno, ident, lang, entity, text, evidence, question)


def read_text_lines(path: str | Path) -> tuple[list[TextSpec], list[tuple[int, str]]]:
    """(good lines, bad lines as (line number, reason)). A missing or unreadable file raises
    MfactError. Blank lines are skipped; a repeated id is a bad line (ids name the sessions)."""
    from .inputs import read_bytes, sniff

    p = Path(path).expanduser()
    if not os.path.lexists(p):
        raise MfactError(f"{p}: no such file", "give a JSONL file: one {\"id\", \"lang\", "
                                                           "\"entity\", \"text\"} object per line")
    raw, name = read_bytes(str(p), "texts file (JSONL)")     # a regular file only: no FIFO, no directory
    sniff(raw, name)                      # compressed, UTF-16, binary: the whole file, in one line
    if not raw.removeprefix(b"\xef\xbb\xbf").strip():
        raise MfactError(f"{name}: no texts (the input is empty)")
    good: list[TextSpec] = []
    bad: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for lineno, line_bytes in enumerate(raw.split(b"\n"), 1):
        if lineno == 1 and line_bytes.startswith(b"\xef\xbb\xbf"):
            line_bytes = line_bytes[3:]
        try:
            line = line_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad.append((lineno, f"not UTF-8 text (byte {exc.start})"))
            continue
        if not line.strip():
            continue
        try:
            spec = parse_text_line(line, lineno)
        except ValueError as exc:
            bad.append((lineno, str(exc)))
            continue
        if spec.id in seen:
            bad.append((lineno, f"id {spec.id!r} already used on line {seen[spec.id]}"))
            continue
        seen[spec.id] = lineno
        good.append(spec)
    return good, bad
