"""Import and export of sessions.

Formats:
- **mfact** session JSON (`"schema": "mfact.session/1"`): one session object, a list of them, or
  `{"sessions": [...]}` (what `mfact export --all` writes).
- **factscore**: FActScore's labelled-data JSONL (one biography a line: `input`, `output`, `topic`,
  `cat`, `annotations[]` with `text`, `is-relevant`, `model-atomic-facts`, `human-atomic-facts[]`
  labelled S/NS/IR). Each line becomes an English session whose facts carry human labels (`auto`:
  null); the span of a fact is the smallest part of its annotation sentence in `output` that holds
  the fact's content words (the whole sentence when fewer than half are found); `annotations: null` is an
  abstention (a session with no facts). `topic` -> entity name, `cat` -> entity.attributes rarity and
  region, `input` -> the prompt. Exporting writes the same format back (effective labels).

Reading validates everything before returning: any invalid record raises MfactError naming the
file, the line and the field, and nothing is imported. Writing is atomic (temp file + os.replace).
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from .checking.text.clean import given_offsets, given_span
from .checking.text.textutil import locate_span
from .errors import MfactError
from .metrics import session_ns_spans_p
from .session import (LABELS, MAX_FACT_CHARS, MAX_NAME_CHARS, MAX_TEXT_CHARS, Entity, Fact, GeneratorInfo,
                      HumanLabel, Session, SessionFormatError, json_type, now_iso)

FORMATS = ("mfact", "factscore")                 # read and written
EXPORT_FORMATS = FORMATS + ("spans", "pairs", "mushroom")   # written only
FACTSCORE_KEY = "factscore"      # session.config key holding what FActScore's format needs back


# --------------------------------------------------------------------------- reading


def read_sessions(path: str | Path, fmt: str | None = None, hint: str = "nothing was imported",
                  empty: bool = False) -> list[Session]:
    """All sessions in a file (mfact JSON or FActScore JSONL; `fmt` None: detected), or `-` for stdin.
    Everything goes through core/inputs.py (regular files only, size limit, UTF-8 with or without a
    BOM, strict JSON); a refusal is one MfactError naming the file and the field, with `hint`.
    `empty`: `{"sessions": []}` (what `export --all` writes for an empty store) gives no sessions
    instead of an error."""
    from .inputs import decode, not_empty, read_bytes

    try:
        raw, name = read_bytes(str(path), "session file (.json or .jsonl)")
        text = not_empty(decode(raw, name), name, "sessions")
        data = None
        if fmt is None:
            fmt, data = _detect(Path(path), text, name)
        if fmt == "mfact":
            return parse_mfact(text, name, data=data, empty=empty)
        if fmt == "factscore":
            return parse_factscore(text, name)
        if fmt == "mfact-jsonl":
            return parse_mfact_lines(text, name)
        if fmt == "mushroom":
            from .benchmarks import parse_mushroom
            return parse_mushroom(text, name)
        if fmt == "mfava":
            from .benchmarks import parse_mfava
            from .inputs import loads
            got = data if data is not None else loads(text, name)
            if not isinstance(got, list):
                raise MfactError(f"{name}: an mFAVA file is a JSON list of answers", "nothing was imported")
            return parse_mfava(got, name)
    except MfactError as exc:
        parts = [p for p in (exc.hint or "").split("; ") if p and p != "nothing was imported"]
        if hint:
            parts.append(hint)
        new = "; ".join(parts)
        if new == exc.hint:
            raise
        raise MfactError(exc.message, new) from None
    raise MfactError(f"unknown format {fmt!r}", "one of: " + ", ".join(FORMATS))


def _detect(path: Path, text: str, name: str) -> tuple[str, Any]:
    """`detect_format`, and for a document on one line (what `json.dumps` writes) also its strictly
    parsed data, so that a big session is parsed once, not once to detect and again to read."""
    from .inputs import loads

    stripped = text.strip()
    if path.suffix.lower() != ".jsonl" and stripped.startswith("{") and "\n" not in stripped:
        try:
            data = loads(text, name)
        except MfactError:           # detect_format and parsing say what is wrong
            return detect_format(path, text), None
        if isinstance(data, dict) and "schema" not in data and ("topic" in data or "annotations" in data):
            return "factscore", None
        return "mfact", data
    return detect_format(path, text), None


def _is_mfact_session(obj: Any) -> bool:
    return isinstance(obj, dict) and ("schema" in obj or ("facts" in obj and "text" in obj and "id" in obj))


def _first_line_object(text: str) -> Any:
    first = text.lstrip().split("\n", 1)[0].strip()
    try:
        return json.loads(first)
    except (ValueError, RecursionError):
        return None


def detect_format(path: Path, text: str) -> str:
    """mfact JSON, mfact sessions one per line (`mfact-jsonl`), FActScore JSONL, or a benchmark's
    file (Mu-SHROOM JSONL, mFAVA JSON: core/benchmarks.py)."""
    from .benchmarks import is_mushroom
    stripped = text.lstrip()
    if stripped.startswith("{") and is_mushroom(_first_line_object(text)):
        return "mushroom"
    if stripped.startswith("[") and re.search(r'^\[\s*\{\s*"(references|generated_text|silver_annotations)"',
                                               stripped[:2000]):
        return "mfava"
    # a .json file is one JSON document (two objects in it are an error); any other name may hold
    # mfact sessions one per line
    several = path.suffix.lower() != ".json" and ("\n" in stripped.strip() or path.suffix.lower() == ".jsonl")
    if stripped.startswith("{") and several and _is_mfact_session(_first_line_object(text)):
        return "mfact-jsonl"
    if path.suffix.lower() == ".jsonl":
        return "factscore"
    if stripped.startswith("{"):
        first = stripped.split("\n", 1)[0].strip()
        # a JSONL file: the first line is a complete object with FActScore's fields
        try:
            obj = json.loads(first)
        except (ValueError, RecursionError):     # core/inputs.py says what is wrong
            return "mfact"
        if isinstance(obj, dict) and "schema" not in obj and ("topic" in obj or "annotations" in obj):
            return "factscore"
    return "mfact"


def parse_mfact_lines(text: str, name: str = "<input>") -> list[Session]:
    """mfact sessions one per line (JSONL) -> sessions; an error names the line."""
    out: list[Session] = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out.extend(parse_mfact(line, f"{name}:{n}"))
            except MfactError as exc:
                raise MfactError(exc.message, (exc.hint + "; " if exc.hint else "")
                                 + "read as mfact sessions, one per line (the first line is one)") from None
    return out


def parse_mfact(text: str, name: str = "<input>", data: Any = None, empty: bool = False) -> list[Session]:
    """mfact session JSON -> sessions; `data`: the text already parsed by `inputs.loads`; `empty`:
    `{"sessions": []}` is no sessions rather than an error."""
    from .inputs import loads

    if data is None:
        data = loads(text, name)
    if isinstance(data, dict) and "sessions" in data and "schema" not in data:
        items, where = data["sessions"], "sessions"
        if not isinstance(items, list):
            raise MfactError(f"{name}: sessions: must be a list, got {json_type(items)}")
    elif isinstance(data, list):
        items, where = data, ""
    elif isinstance(data, dict):
        items, where = [data], None
    else:
        raise MfactError(f"{name}: expected a session object, a list of sessions or "
                         f"{{\"sessions\": [...]}}, got {json_type(data)}")
    if not items and empty and where == "sessions":
        return []
    if not items:
        raise MfactError(f"{name}: {where + ': ' if where else ''}no sessions (an empty list)")
    sessions: list[Session] = []
    for i, item in enumerate(items):
        w = "" if where is None else (f"{where}[{i}]" if where else f"[{i}]")
        try:
            sessions.append(Session.from_dict(item, w))
        except SessionFormatError as exc:
            line = _guess_line(text, i, len(items))
            raise MfactError(f"{name}{':' + str(line) if line else ''}: {exc.where}: {exc.message}",
                             "nothing was imported") from None
    ids = [s.id for s in sessions]
    if len(set(ids)) != len(ids):
        dup = next(x for x in ids if ids.count(x) > 1)
        raise MfactError(f"{name}: session id {dup!r} appears twice", "nothing was imported")
    return sessions


def _guess_line(text: str, index: int, count: int) -> int | None:
    """Line where the index-th session object starts (best effort; None when unclear)."""
    if count == 1:
        return 1 if text.lstrip().startswith("{") else None
    starts = [m.start() for m in re.finditer(r'"schema"\s*:', text)]
    if len(starts) == count:
        return text.count("\n", 0, starts[index]) + 1
    return None


# --------------------------------------------------------------------------- FActScore JSONL

_CITATION = re.compile(r"\s*\[\d+\]")


def _normalise(s: str) -> tuple[str, list[int]]:
    """Text without citation markers ("[1]") and with whitespace runs collapsed to one space, and for
    each kept character its offset in `s`."""
    out: list[str] = []
    where: list[int] = []
    i = 0
    n = len(s)
    while i < n:
        m = _CITATION.match(s, i)
        if m:
            i = m.end()
            continue
        ch = s[i]
        if ch.isspace():
            j = i
            while j < n and s[j].isspace():
                j += 1
            if out and out[-1] != " ":
                out.append(" ")
                where.append(i)
            i = j
            continue
        out.append(ch)
        where.append(i)
        i += 1
    return "".join(out), where


class _Locator:
    """Finds annotation sentences in the output, in order, tolerating dropped citation markers and
    changed whitespace. Returns spans in the original output."""

    def __init__(self, output: str):
        self.output = output
        self.cursor = 0
        self.norm, self.where = _normalise(output)
        self.ncursor = 0

    def find(self, sentence: str) -> tuple[int, int]:
        out = self.output
        s = sentence.strip()
        if not s:
            return (self.cursor, self.cursor)
        i = out.find(s, self.cursor)
        if i < 0:
            i = out.find(s)
        if i >= 0:
            span = (i, i + len(s))
            self._advance(span[1])
            return span
        ns, _ = _normalise(s)
        ns = ns.strip()
        j = self.norm.find(ns, self.ncursor)
        if j < 0:
            j = self.norm.find(ns)
        if j >= 0 and ns:
            start = self.where[j]
            end = self.where[j + len(ns) - 1] + 1
            self._advance(end)
            return (start, end)
        return (self.cursor, self.cursor)         # not in the output: an empty span where we are

    def _advance(self, end: int) -> None:
        self.cursor = max(self.cursor, end)
        # first normalised index at or after the new cursor
        lo, hi = 0, len(self.where)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.where[mid] < self.cursor:
                lo = mid + 1
            else:
                hi = mid
        self.ncursor = max(self.ncursor, lo)


def parse_factscore(text: str, name: str = "<input>", model: str | None = None) -> list[Session]:
    """FActScore labelled-data JSONL -> sessions (validated; MfactError names file:line: field)."""
    from .inputs import loads

    model = model or Path(name).stem
    sessions: list[Session] = []
    imported_at = now_iso()
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        d = loads(line, f"{name}:{lineno}", one_line=True)
        try:
            sessions.append(_factscore_record(d, model, imported_at))
        except SessionFormatError as exc:
            raise MfactError(f"{name}:{lineno}: {exc.where}: {exc.message}",
                             "nothing was imported") from None
    if not sessions:
        raise MfactError(f"{name}: no records", "the file is empty")
    return sessions


def _fs_str(d: dict, key: str, where: str = "", required: bool = True, limit: int = MAX_TEXT_CHARS) -> str:
    v = d.get(key)
    if v is None and not required:
        return ""
    if not isinstance(v, str):
        raise SessionFormatError(f"{where}{key}", f"must be a string, got {json_type(v)}")
    if len(v) > limit:
        raise SessionFormatError(f"{where}{key}", f"{len(v):,} characters is over the limit of {limit:,}")
    return v


def _fs_annotation(a: Any, ai: int, loc: _Locator, imported_at: str, facts: list[Fact],
                   meta_anns: list[dict]) -> None:
    """One sentence's annotation of a FActScore record (located in `loc`'s output): its metadata into
    `meta_anns`, its human atomic facts (with their labels and spans) into `facts`."""
    output = loc.output
    w = f"annotations[{ai}]"
    if not isinstance(a, dict):
        raise SessionFormatError(w, "must be an object")
    sent = _fs_str(a, "text", f"{w}.")
    rel = a.get("is-relevant")
    if rel is not None and not isinstance(rel, bool):
        raise SessionFormatError(f"{w}.is-relevant", "must be true, false or null")
    maf = a.get("model-atomic-facts")
    if maf is not None:
        if not isinstance(maf, list):
            raise SessionFormatError(f"{w}.model-atomic-facts", "must be a list or null")
        for j, f in enumerate(maf):
            if not isinstance(f, dict) or not isinstance(f.get("text"), str):
                raise SessionFormatError(f"{w}.model-atomic-facts[{j}].text", "must be a string")
    haf = a.get("human-atomic-facts")
    if haf is not None and not isinstance(haf, list):
        raise SessionFormatError(f"{w}.human-atomic-facts", "must be a list or null")
    span = loc.find(sent)
    meta = {k: v for k, v in a.items() if k != "human-atomic-facts"}
    meta["human-atomic-facts-null"] = haf is None
    meta_anns.append(meta)
    for j, f in enumerate(haf or []):
        fw = f"{w}.human-atomic-facts[{j}]"
        if not isinstance(f, dict):
            raise SessionFormatError(fw, "must be an object")
        ftext = _fs_str(f, "text", f"{fw}.", limit=MAX_FACT_CHARS)
        label = f.get("label")
        if label not in LABELS:
            raise SessionFormatError(f"{fw}.label", f"unknown label {label!r}; one of S, NS, IR")
        # the smallest part of the sentence holding the fact's words (its hallucination span)
        fspan = locate_span(ftext, span[0], output[span[0]:span[1]]) if span[1] > span[0] else span
        facts.append(Fact(id=f"s{ai}f{j}", text=ftext, sentence=ai, span=fspan, auto=None,
                          human=HumanLabel(label=label, time=imported_at)))


def _factscore_record(d: Any, model: str, imported_at: str) -> Session:
    if not isinstance(d, dict):
        raise SessionFormatError("record", f"must be a JSON object, got {json_type(d)}")
    topic = _fs_str(d, "topic", limit=MAX_NAME_CHARS)
    if not topic.strip():
        raise SessionFormatError("topic", "must be a non-empty string")
    output = _fs_str(d, "output")
    prompt = _fs_str(d, "input", required=False)
    cat = d.get("cat")
    if cat is not None and (not isinstance(cat, list) or not all(isinstance(c, str) for c in cat)):
        raise SessionFormatError("cat", "must be a list of strings")
    attributes: dict[str, Any] = {}
    if cat:
        attributes["rarity"] = cat[0]
        if len(cat) > 1:
            attributes["region"] = cat[1]
        attributes["cat"] = list(cat)
    anns = d.get("annotations")
    if anns is not None and not isinstance(anns, list):
        raise SessionFormatError("annotations", "must be a list or null")
    facts: list[Fact] = []
    meta_anns: list[dict] | None = None
    if anns is not None:
        meta_anns = []
        loc = _Locator(output)
        for ai, a in enumerate(anns):
            _fs_annotation(a, ai, loc, imported_at, facts, meta_anns)
    sid = hashlib.sha1(json.dumps([model, topic, prompt, output], ensure_ascii=False)
                       .encode("utf-8")).hexdigest()[:12]
    extra = {k: v for k, v in d.items() if k not in ("input", "output", "topic", "cat", "annotations")}
    s = Session(
        id=sid, language="en", entity=Entity(name=topic, attributes=attributes),
        generator=GeneratorInfo(backend="imported", model=model, prompt=prompt),
        text=output, stop_reason="imported", facts=facts,
        config={FACTSCORE_KEY: {"model": model, "annotations": meta_anns, "extra": extra,
                                "has_cat": "cat" in d, "has_input": "input" in d}},
    )
    from .checks import calm_checks  # noqa: PLC0415 - keep the import of formats light
    s.checks = calm_checks(output, "en")
    s.tokens = 0
    return s


# --------------------------------------------------------------------------- writing


def session_to_factscore(s: Session) -> dict:
    """One FActScore labelled-data record from a session (labels: the effective ones)."""
    meta = (s.config or {}).get(FACTSCORE_KEY) or {}
    rec: dict[str, Any] = {}
    if meta.get("has_input", True):
        rec["input"] = s.generator.prompt or f"Question: Tell me a bio of {s.entity.name}."
    rec["output"] = s.text
    rec["topic"] = s.entity.name
    if meta.get("has_cat", True):
        cat = s.entity.attributes.get("cat")
        if not isinstance(cat, list):
            cat = [c for c in (s.entity.attributes.get("rarity"), s.entity.attributes.get("region")) if c]
        rec["cat"] = cat
    by_sentence: dict[int, list[Fact]] = {}
    for f in s.facts:
        by_sentence.setdefault(f.sentence, []).append(f)
    anns_meta = meta.get("annotations", "missing")
    if anns_meta is None and not s.facts:
        rec["annotations"] = None
    elif isinstance(anns_meta, list):
        anns = []
        for ai, a in enumerate(anns_meta):
            a = dict(a)
            null = a.pop("human-atomic-facts-null", False)
            facts = by_sentence.pop(ai, [])
            hf = [{"text": f.text, "label": f.label} for f in facts if f.label is not None]
            a["human-atomic-facts"] = None if (null and not hf) else hf
            anns.append(a)
        for si in sorted(by_sentence):                     # facts on sentences the file lacked
            anns.append(_annotation(s, si, by_sentence[si]))
        rec["annotations"] = anns
    else:
        rec["annotations"] = [_annotation(s, si, fs) for si, fs in sorted(by_sentence.items())] or None
    for k, v in (meta.get("extra") or {}).items():
        rec.setdefault(k, v)
    return rec


def _annotation(s: Session, sentence: int, facts: list[Fact]) -> dict:
    start = min(f.span[0] for f in facts)
    end = max(f.span[1] for f in facts)
    labelled = [f for f in facts if f.label is not None]
    return {
        "text": s.text[start:end],
        "is-relevant": any(f.label != "IR" for f in labelled) if labelled else True,
        "model-atomic-facts": [{"text": f.text} for f in facts if f.auto is not None],
        "human-atomic-facts": [{"text": f.text, "label": f.label} for f in labelled],
    }


def dumps_sessions(sessions: list[Session], fmt: str = "mfact", single: bool | None = None) -> str:
    """Serialise: mfact -> one object (single session) or {"sessions": [...]}; factscore -> JSONL."""
    if fmt == "mfact":
        if single is None:
            single = len(sessions) == 1
        if single:
            if len(sessions) != 1:
                raise MfactError("a single-session export needs exactly one session")
            return json.dumps(sessions[0].to_dict(), ensure_ascii=False, indent=2) + "\n"
        return json.dumps({"sessions": [s.to_dict() for s in sessions]}, ensure_ascii=False,
                          indent=2) + "\n"
    if fmt == "factscore":
        return "".join(json.dumps(session_to_factscore(s), ensure_ascii=False) + "\n" for s in sessions)
    if fmt == "spans":
        return "".join(json.dumps(session_to_spans(s), ensure_ascii=False) + "\n" for s in sessions)
    if fmt == "mushroom":
        return "".join(json.dumps(session_to_mushroom(s), ensure_ascii=False) + "\n" for s in sessions)
    if fmt == "pairs":
        return "".join(json.dumps(p, ensure_ascii=False) + "\n" for s in sessions for p in session_to_pairs(s))
    raise MfactError(f"unknown format {fmt!r}", "one of: " + ", ".join(EXPORT_FORMATS))


def given_ns_spans(s: Session) -> tuple[str, list[tuple[int, int, str, float]]]:
    """The text as it was given (the model's or the user's, markup and all: `raw_text` where
    cleaning changed it) and the session's hallucination spans (`metrics.session_ns_spans_p`) in
    its characters."""
    spans = session_ns_spans_p(s)
    if s.raw_text is None:
        return s.text, spans
    offsets = given_offsets(s.raw_text, s.text)
    return s.raw_text, [(*given_span(offsets, a, b), lab, p) for a, b, lab, p in spans]


def session_to_spans(s: Session) -> dict:
    """The hallucination spans of a session (one JSONL line of `--format spans`): the text as it was
    given and the union of its not-supported facts' spans, `[start, end, label, p]` in characters of
    that text, p the span's p(hallucinated) (`metrics.session_ns_spans_p`)."""
    text, spans = given_ns_spans(s)
    return {"id": s.id, "text": text, "spans": [[a, b, lab, p] for a, b, lab, p in spans]}


def session_to_mushroom(s: Session) -> dict:
    """A session as a Mu-SHROOM prediction (`--format mushroom`, one JSONL line), which the shared
    task's scorer reads: the answer's id (its `run --texts` id, else the session's), language,
    question, the text as it was given, and in its characters the hard labels `[[start, end], ...]`
    and soft labels `{"start", "end", "prob"}`."""
    text, spans = given_ns_spans(s)
    return {"id": s.name or s.id, "lang": s.language, "model_input": s.question,
            "model_output_text": text,
            "hard_labels": [[a, b] for a, b, _lab, _p in spans],
            "soft_labels": [{"start": a, "end": b, "prob": p} for a, b, _lab, p in spans]}


def session_to_pairs(s: Session) -> list[dict]:
    """The human labels of a session as training pairs (`--format pairs`, one JSONL line each):
    `{"claim", "evidence", "lang", "label", "id", "entity"}`, the evidence being the passages the
    automatic verdict cited (best first; empty when it cited none). `mfact verify-pairs` reads them."""
    by_id = s.evidence_by_id()
    out = []
    for f in s.facts:
        if f.human is None:
            continue
        cited = [by_id[e].text for e in (f.auto.evidence if f.auto else []) if e in by_id]
        out.append({"claim": f.text, "evidence": cited, "lang": s.language, "label": f.human.label,
                    "id": f"{s.id}:{f.id}", "entity": s.entity.name})
    return out


def write_sessions(sessions: list[Session], path: str | Path, fmt: str = "mfact",
                   single: bool | None = None) -> Path:
    """Write sessions atomically: a temp file beside the target, fsync, then os.replace."""
    return atomic_write(path, dumps_sessions(sessions, fmt, single))


def _umask() -> int:
    """The process's umask, read without changing it where Linux says it (/proc), else by setting
    and restoring it."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _file_mode(path: Path) -> int:
    """The permission bits a replaced file keeps, or those `open()` would give a new one."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def atomic_write(path: str | Path, content: str, replace: bool = False) -> Path:
    """Write `content` to a regular file atomically (temp file, fsync, rename). A target that exists
    and is not a regular file is, with `replace` (mfact's own files), replaced like any; without it
    a device (/dev/stdout, /dev/full) is written in place, never replaced, and a FIFO only when a
    reader has it open (else refused, never waited on). A failed write, flush or close is an
    MfactError either way."""
    path = Path(path)
    try:
        special = path.exists() and not path.is_file()
    except OSError:
        special = False
    if special and not replace:
        return _write_in_place(path, content)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise MfactError(f"{path}: the folder {parent} does not exist")
    mode = (0o666 & ~_umask()) if special else _file_mode(path)     # not a device's bits
    try:
        # the temporary name stays under the 255-byte limit of a name, whatever the target's length
        fd, tmp = tempfile.mkstemp(prefix=f".{_short(path.name)}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise MfactError(f"{path}: cannot write: {exc.strerror or exc}",
                         "give a file in a folder you can write") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(content)
            fh.flush()
            os.fchmod(fh.fileno(), mode)     # mkstemp's 0600 would make a page put on a web server unreadable
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise MfactError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise
    return path


def _short(name: str, limit: int = 200) -> str:
    """`name` cut to at most `limit` bytes of UTF-8 (whole characters)."""
    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) <= limit:
        return name
    return raw[:limit].decode("utf-8", "ignore") or "mfact"


def _write_in_place(path: Path, content: str) -> Path:
    """A device or a FIFO that is there already: written, never replaced; a FIFO that no process
    reads is refused at once (opened without waiting)."""
    if path.is_dir():
        raise MfactError(f"{path}: is a folder", "give a file name")
    try:
        st = os.stat(path)
        if stat.S_ISSOCK(st.st_mode):
            raise MfactError(f"{path}: a socket, not a file", "give a file name")
        fifo = stat.S_ISFIFO(st.st_mode)
        fd = os.open(path, os.O_WRONLY | (os.O_NONBLOCK if fifo else 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise MfactError(f"{path}: a FIFO (named pipe) that no process reads",
                             "start its reader first, or give a file name") from None
        raise MfactError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        if fifo:
            os.set_blocking(fd, True)        # a reader is there: written as any pipe
        with open(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(content)
            fh.flush()
    except OSError as exc:
        raise MfactError(f"{path}: cannot write: {exc.strerror or exc}") from None
    return path
