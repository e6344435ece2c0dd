"""The versions of mfact's rules and of its rule extractor: digests of their code and tables.

They key the verdict cache and name the extractor in a session, so any change to a rule or a table
re-judges cached verdicts, with no number to bump by hand (the detector's and the feature model's
weights are named by their own digests). What each rule version changed is in CHANGELOG.md."""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Iterable
# the packages of core/checking/ whose code and tables decide a verdict's rules, and an extraction's
RULE_PACKAGES = ("text", "lexicon", "slots", "extract", "verify")
EXTRACTOR_PACKAGES = ("text", "lexicon", "extract")


def code_digest(packages: Iterable[str], root: Path | None = None) -> str:
    """SHA-256 (12 hex digits) of the Python files of `packages` under `root` (core/checking/)
    and of the JSON tables in its data/ folder, each with its path."""
    base = root or Path(__file__).resolve().parent / "checking"
    files = [p for pkg in packages for p in sorted((base / pkg).rglob("*.py"))]
    files += sorted((base / "data").glob("*.json"))
    h = hashlib.sha256()
    for path in files:
        h.update(path.relative_to(base).as_posix().encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:12]


@functools.lru_cache(maxsize=1)
def rules_version() -> str:
    """The version of the rules (slot checks, lexical normalisation, extraction, verification)."""
    return "r" + code_digest(RULE_PACKAGES)


@functools.lru_cache(maxsize=1)
def extractor_version() -> str:
    """The version of the rule extractor."""
    return "x" + code_digest(EXTRACTOR_PACKAGES)
