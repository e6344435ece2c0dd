"""The one validator for files mfact reads: sessions (`import`, `score`, `mfact-tui --open`), pairs
(`verify-pairs`) and entity lists (`run --entities`, `--texts`).

Every refusal is one MfactError line naming the file and, for JSON, the field
(`s.json: facts[3].auto.confidence: NaN is not a number`). What is refused:

- anything that is not a regular file or `-` (stdin): directories, FIFOs, devices, sockets, symlink
  loops; unreadable files; files over the size limit;
- bytes that are not UTF-8 (a UTF-8 byte-order mark is skipped, the same everywhere);
- JSON that Python would read but mfact could not keep: NaN and Infinity, numbers out of range
  (integers beyond SQLite's 64 bits, numbers with more than MAX_DIGITS digits, floats that overflow),
  strings with lone surrogates, nesting deeper than MAX_DEPTH.

Size limits (docs/reliability.md): a session file of at most MAX_FILE_BYTES; within a session at most
session.MAX_TEXT_CHARS of text, session.MAX_FACTS facts and session.MAX_EVIDENCE evidence passages.
"""
from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
import sys
from typing import Any, Iterator

from .errors import MfactError

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_LIST_BYTES = 8 * 1024 * 1024       # entity lists and text lists
MAX_DEPTH = 64
MAX_DIGITS = 40
SQLITE_MAX = 2 ** 63 - 1
SQLITE_MIN = -(2 ** 63)

_SURROGATE = re.compile(r"[\ud800-\udfff]")
# control characters (C0 but tab, DEL, C1), bidi controls and line separators: never part of a name
_CONTROLS = "\\x00-\\x08\\x0a-\\x1f\\x7f-\\x9f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029"
CONTROL = re.compile(f"[{_CONTROLS}]")
CONTROL_OR_TAB = re.compile(f"[\\t{_CONTROLS}]")      # ids: not even a tab


class _Bad:
    """A JSON value refused while parsing; the walk reports it with its field."""
    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message


# --------------------------------------------------------------------------- files


def read_bytes(path: str, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> tuple[bytes, str]:
    """(content, display name) of a regular file or of stdin (`-`); one-line MfactError otherwise."""
    if path == "-":
        data = sys.stdin.buffer.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise MfactError(f"<stdin>: more than {_size(max_bytes)}, the limit for a {what}")
        return data, "<stdin>"
    name = str(path)
    st = _stat_regular(name, what, f"give a {what} (or - for stdin)")
    if st.st_size > max_bytes:
        raise MfactError(f"{name}: {_size(st.st_size)} is over the {_size(max_bytes)} limit for a {what}",
                         "split it into smaller files")
    try:
        # O_NONBLOCK: should the file be swapped for a FIFO after the check, open does not wait
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise MfactError(f"{name}: cannot read: {_why(exc)}") from None
    try:
        if _kind(os.fstat(fd).st_mode):
            raise MfactError(f"{name}: not a regular file", f"give a {what}")
        chunks = []
        total = 0
        while True:
            try:
                b = os.read(fd, 1 << 20)
            except OSError as exc:
                raise MfactError(f"{name}: cannot read: {_why(exc)}") from None
            if not b:
                break
            chunks.append(b)
            total += len(b)
            if total > max_bytes:
                raise MfactError(f"{name}: over the {_size(max_bytes)} limit for a {what}",
                                 "split it into smaller files")
    finally:
        os.close(fd)
    return b"".join(chunks), name


OWN_MAX_BYTES = 4 * 1024 * 1024       # mfact's own files: adaptation.json, config.toml, cache files


def read_own(path: str | os.PathLike, what: str, hint: str, max_bytes: int = OWN_MAX_BYTES) -> str | None:
    """The UTF-8 text of one of mfact's own files (the adaptation file, config.toml, a cache file), or
    None when there is none. Read bounded: a regular file only (opened without waiting, so a FIFO or
    a device swapped in is refused, never read: fstat before the first byte), at most `max_bytes`,
    UTF-8 checked. Anything else is one MfactError naming `what` and the file, with `hint` (what to do)."""
    name = f"{what} {os.fspath(path)}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:
            raise MfactError(f"{name}: a folder on its path is a file", hint) from None
        if exc.errno == errno.ELOOP:
            raise MfactError(f"{name}: a loop of symbolic links", hint) from None
        raise MfactError(f"{name}: cannot read: {_why(exc)}", hint) from None
    try:
        kind = _kind(os.fstat(fd).st_mode)
        if kind:
            raise MfactError(f"{name}: {kind}, not a regular file", hint)
        chunks, total = [], 0
        while total <= max_bytes:
            try:
                b = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            except OSError as exc:
                raise MfactError(f"{name}: cannot read: {_why(exc)}", hint) from None
            if not b:
                break
            chunks.append(b)
            total += len(b)
        if total > max_bytes:
            raise MfactError(f"{name}: over the {_size(max_bytes)} limit", hint)
    finally:
        os.close(fd)
    try:
        return decode(b"".join(chunks), name)
    except MfactError as exc:
        raise MfactError(exc.message, hint) from None


def _stat_regular(name: str, what: str, hint: str) -> os.stat_result:
    """os.stat of a path that must be a regular file; one-line MfactError for anything else."""
    try:
        st = os.stat(name)
    except FileNotFoundError:
        if os.path.islink(name):
            raise MfactError(f"{name}: a symbolic link to nothing", f"give a {what}") from None
        raise MfactError(f"{name}: no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise MfactError(f"{name}: a loop of symbolic links", f"give a {what}") from None
        raise MfactError(f"{name}: cannot read: {_why(exc)}") from None
    kind = _kind(st.st_mode)
    if kind:
        raise MfactError(f"{name}: {kind}, not a regular file", hint)
    return st


def _why(exc: OSError) -> str:
    why = exc.strerror or str(exc)
    return why[:1].lower() + why[1:]


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB" if n >= 1024 * 1024 else f"{n} bytes"


# files people give by mistake, by their first bytes
_MAGIC = ((b"\x1f\x8b", "a gzip file"), (b"PK\x03\x04", "a zip file"), (b"PK\x05\x06", "a zip file"),
          (b"\xfd7zXZ\x00", "an xz file"), (b"\x28\xb5\x2f\xfd", "a zstd file"), (b"BZh91AY&SY", "a bzip2 file"),
          (b"SQLite format 3\x00", "an SQLite database"), (b"\x7fELF", "an executable (ELF)"),
          (b"%PDF-", "a PDF file"), (b"\x89PNG\r\n", "a PNG image"))


def sniff(raw: bytes, name: str) -> None:
    """Refuse, in one line, bytes that are plainly not UTF-8 text: a compressed file, a database, an
    executable, UTF-16 or UTF-32 text (with or without a byte-order mark), or any NUL byte."""
    for magic, what in _MAGIC:
        if raw.startswith(magic):
            raise MfactError(f"{name}: {what}, not text", "give the file itself, as UTF-8 text")
    wide = ""
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        wide = "UTF-32"
    elif raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        wide = "UTF-16"
    elif len(raw) >= 4:
        head = raw[:256]
        odd, even = head[1::2].count(0), head[0::2].count(0)
        if max(odd, even) >= len(head) // 4 and min(odd, even) == 0:
            wide = "UTF-16"
    if wide:
        raise MfactError(f"{name}: {wide} text, not UTF-8", "save the file as UTF-8")
    nul = raw.find(b"\x00")
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + 1
        raise MfactError(f"{name}:{line}: holds a NUL byte (byte {nul}); binary data, not text",
                         "give a UTF-8 text file")


def decode(raw: bytes, name: str) -> str:
    """UTF-8 text, a leading byte-order mark skipped (everywhere the same)."""
    sniff(raw, name)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MfactError(f"{name}: not UTF-8 text (byte {exc.start})", "save the file as UTF-8") from None


def not_empty(text: str, name: str, noun: str) -> str:
    """`text`, or a one-line refusal when it holds nothing but white space."""
    if not text.strip():
        raise MfactError(f"{name}: no {noun} (the input is empty)")
    return text


def read_text(path: str, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> tuple[str, str]:
    raw, name = read_bytes(path, what, max_bytes)
    return decode(raw, name), name


# --------------------------------------------------------------------------- JSON


def _parse_int(s: str) -> Any:
    digits = len(s) - (s[0] == "-")
    if digits > MAX_DIGITS:
        return _Bad(f"a number with {digits} digits is out of range")
    return int(s)


def _parse_float(s: str) -> Any:
    if len(s) > MAX_DIGITS * 4:
        return _Bad(f"a number with {len(s)} characters is out of range")
    v = float(s)
    if not math.isfinite(v):
        return _Bad(f"{s[:20]} is out of range")
    return v


def _parse_constant(s: str) -> Any:
    return _Bad(f"{s} is not a number")


def _object(pairs: list[tuple[str, Any]]) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):            # a key given twice: which one would count is a guess
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                d[k] = _Bad("the key appears twice in one object")
                break
            seen.add(k)
    return d


def loads(text: str, name: str, where: str = "", one_line: bool = False) -> Any:
    """Strict JSON: parsed and walked; any refused value raises MfactError `name: field: why`."""
    try:
        data = json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                          parse_constant=_parse_constant, object_pairs_hook=_object)
    except RecursionError:
        raise MfactError(f"{name}: {_deep_path(text, where) or where or 'document'}: nested deeper than"
                         f" {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        at = "" if one_line else f":{exc.lineno}"
        raise MfactError(f"{name}{at}: not valid JSON: {exc.msg} (column {exc.colno})") from None
    # one quick walk without field paths (a 20,000-fact session holds a quarter of a million
    # values); only when it finds something does the walk that names the field run
    if _clean(data, strings=_may_hold_surrogates(text)):
        return data
    problem = _first_problem(data, where)
    if problem:
        raise MfactError(f"{name}: {problem}")
    return data


def _may_hold_surrogates(text: str) -> bool:
    """False when no string parsed from this JSON text can hold a lone surrogate: the text has
    none itself and no \\u escape that could make one."""
    if "\\u" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _clean(data: Any, strings: bool = True) -> bool:
    """True when nothing in the tree would be refused: the common case, checked without building a
    field path per value (a 20,000-fact session has a quarter of a million values). Any doubt
    returns False and `_first_problem` walks again, naming the field. `strings=False`: the strings
    are known to hold no surrogate (see `_may_hold_surrogates`)."""
    search = _SURROGATE.search
    lo, hi = SQLITE_MIN, SQLITE_MAX
    stack: list[tuple[Any, int]] = [(data, 0)]
    pop, push = stack.pop, stack.append
    values: Any
    while stack:
        v, depth = pop()
        if depth >= MAX_DEPTH and (depth > MAX_DEPTH or v):   # its values lie deeper than allowed
            return False
        if type(v) is dict:
            if strings:
                for k in v:
                    if search(k):
                        return False
            values = v.values()
        elif type(v) is list:
            values = v
        else:
            values = (v,)
            depth -= 1
        for x in values:
            t = type(x)
            if t is str:
                if strings and search(x):
                    return False
            elif t is dict or t is list:
                push((x, depth + 1))
            elif t is int:
                if not lo <= x <= hi:
                    return False
            elif t is not float and t is not bool and x is not None:
                return False          # a refused value (_Bad), or a subclass: the slow walk decides
    return True


def _first_problem(data: Any, where: str = "") -> str | None:
    stack: list[tuple[Any, str, int]] = [(data, where, 0)]
    while stack:
        v, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"{path or 'document'}: nested deeper than {MAX_DEPTH} levels"
        if isinstance(v, str):
            if _SURROGATE.search(v):
                return f"{path or 'document'}: a lone surrogate ({_first_surrogate(v)}) is not text"
        elif isinstance(v, bool) or v is None:
            continue
        elif isinstance(v, int):
            if not SQLITE_MIN <= v <= SQLITE_MAX:
                return f"{path or 'document'}: {str(v)[:24]}{'...' if len(str(v)) > 24 else ''} is beyond" \
                       f" the 64-bit integer range"
        elif isinstance(v, float):
            continue
        elif isinstance(v, _Bad):
            return f"{path or 'document'}: {v.message}"
        elif isinstance(v, dict):
            items = list(v.items())
            for k, x in reversed(items):
                if _SURROGATE.search(k):
                    return f"{path or 'document'}: a key with a lone surrogate ({_first_surrogate(k)}) is not text"
                stack.append((x, f"{path}.{k}" if path else k, depth + 1))
        elif isinstance(v, list):
            for i in range(len(v) - 1, -1, -1):
                stack.append((v[i], f"{path}[{i}]", depth + 1))
    return None


def _first_surrogate(s: str) -> str:
    m = _SURROGATE.search(s)
    return f"\\u{ord(m.group()):04x}" if m else ""


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"\s*:|"(?:[^"\\]|\\.)*"|[\[\]{},]')


def _deep_path(text: str, where: str) -> str:
    """The field where `text` first nests deeper than MAX_DEPTH (scanned without parsing it)."""
    stack: list[list] = []     # [kind, label, index]
    key: str | None = None
    for m in _TOKENS.finditer(text):
        tok = m.group()
        if tok[0] == '"':
            if tok.endswith(":"):
                try:
                    key = json.loads(tok[:-1].rstrip())
                except ValueError:
                    key = "?"
            continue
        if tok in "[{":
            label = key if key is not None else (stack[-1][2] if stack and stack[-1][0] == "[" else None)
            stack.append([tok, label, 0])
            key = None
            if len(stack) > MAX_DEPTH:
                return _path_of(stack, where)
        elif tok in "]}":
            if stack:
                stack.pop()
        elif tok == ",":
            if stack and stack[-1][0] == "[":
                stack[-1][2] += 1
            key = None
    return ""


def _path_of(stack: list[list], where: str) -> str:
    parts = []
    for _kind, label, _ in stack:
        if isinstance(label, int):
            parts.append(f"[{label}]")
        elif label is not None:
            parts.append(f".{label}" if parts or where else str(label))
    if len(parts) > 4:                  # where it starts is what helps; the rest is the same again
        parts = parts[:4] + ["..."]
    return (where + "".join(parts)) or "document"


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    for no, line in enumerate(text.splitlines(), 1):
        yield no, line
