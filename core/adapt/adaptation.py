"""The adaptation file beside the store, and the `Adapter` that applies it to new verdicts.

`adaptation.json` lies in the store's folder (`paths.store_file().parent`). Each write has a new
version, "N-digest" (N counts the writes; the digest names the parameters), written atomically
(a temporary file, then a rename). A verdict the adaptation changes records that version and the
verifier's own label and confidence (`Verdict.adaptation`); `mfact learn --reset` writes a version
that adapts nothing. Only the languages adopted (cross-validation, learn.py) are adapted, and only
verdicts of the verifier it was fitted on; IR verdicts never.
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from ..errors import MfactError
from ..session import Adapted, Verdict, now_iso
from .detfit import FeatureModel, adapted_probs
from .features import FEATURES, THRESHOLD, feature_row, p_supported, phi_of, verifier_matches
from .learn import LangResult, LearnResult, Scores
from .model import Calibration

log = logging.getLogger("mfact.adapt")
SCHEMA = "mfact.adaptation/2"       # /2 adds a language's features model (detfit.py)
READS = ("mfact.adaptation/1", SCHEMA)
FILE_NAME = "adaptation.json"
MODES = ("auto", "off")


def adaptation_path() -> Path:
    from ..paths import store_file
    return store_file().parent / FILE_NAME


@dataclass
class LangEntry:
    """One language of the adaptation file: its figures, and its calibration when adopted."""
    lang: str
    labels: int
    adopted: bool
    model: str
    why: str
    before: Scores
    after: Scores | None
    calibration: Calibration | None = None
    features: FeatureModel | None = None     # model "features": for verdicts that carry features

    @property
    def gain_points(self) -> float | None:
        return LangResult(self.lang, self.labels, self.before, self.after).gain_points

    def to_dict(self) -> dict:
        d = {"labels": self.labels, "adopted": self.adopted, "model": self.model, "why": self.why,
             "before": self.before.to_dict(), "after": self.after.to_dict() if self.after else None}
        if self.calibration is not None:
            d["calibration"] = self.calibration.to_dict()
        if self.features is not None:
            d["features_model"] = self.features.to_dict()
        return d

    @classmethod
    def from_dict(cls, lang: str, d: dict) -> "LangEntry":
        if not isinstance(d, dict):
            raise ValueError(f"languages.{lang} is not an object")
        cal, fm = d.get("calibration"), d.get("features_model")
        if not isinstance(d["adopted"], bool):
            raise ValueError(f"languages.{lang}.adopted is not true or false")
        return cls(lang, _count(d["labels"], f"languages.{lang}.labels"), d["adopted"], str(d.get("model", "")),
                   str(d.get("why", "")), _scores(d["before"]), _scores(d["after"]) if d.get("after") else None,
                   Calibration.from_dict(cal) if cal else None, FeatureModel.from_dict(fm) if fm else None)


def _count(v: object, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"{where} is not a count")
    return v


def _scores(d: object) -> Scores:
    """Scores of the file: each figure a finite number or null."""
    if not isinstance(d, dict):
        raise ValueError("a languages' scores are not an object")
    for k in ("accuracy", "kappa", "ece"):
        v = d.get(k)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)):
            raise ValueError(f"the score {k} is not a number")
    return Scores.from_dict(d)


@dataclass
class Adaptation:
    number: int
    verifier: str
    labels: int = 0
    created_at: str = field(default_factory=now_iso)
    reset: bool = False
    pooled: Calibration | None = None
    languages: dict[str, LangEntry] = field(default_factory=dict)
    version: str = ""

    def adopted(self, lang: str) -> Calibration | None:
        """The adopted calibration of `lang` (None: none; a features model may be adopted alone)."""
        e = self.entry(lang)
        return e.calibration if e is not None else None

    def entry(self, lang: str) -> LangEntry | None:
        """`lang`'s entry when it was adopted."""
        e = self.languages.get(lang)
        return e if e is not None and e.adopted else None

    def body(self) -> dict:
        return {"number": self.number, "verifier": self.verifier, "labels": self.labels,
                "created_at": self.created_at, "reset": self.reset, "features": list(FEATURES),
                "pooled": self.pooled.to_dict() if self.pooled else None,
                "languages": {k: v.to_dict() for k, v in sorted(self.languages.items())}}

    def stamp(self) -> "Adaptation":
        """Give it its version: the write number and a digest of what it holds."""
        body = self.body()
        body.pop("created_at")
        digest = hashlib.sha1(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()[:8]
        self.version = f"{self.number}-{digest}"
        return self

    def to_dict(self) -> dict:
        return {"schema": SCHEMA, "version": self.version, **self.body()}

    @classmethod
    def from_dict(cls, d: dict) -> "Adaptation":
        if not isinstance(d, dict):
            raise ValueError("it holds no JSON object")
        schema = d.get("schema")
        if schema not in READS:
            newer = isinstance(schema, str) and schema.startswith("mfact.adaptation/")
            raise ValueError(f"written by a newer mfact (schema {schema!r}; this one reads {SCHEMA})" if newer
                             else f"schema {schema!r} is not {SCHEMA}")
        if list(d.get("features") or []) != list(FEATURES):
            raise ValueError("written for other features (another mfact version)")
        langs_d = d.get("languages") or {}
        if not isinstance(langs_d, dict):
            raise ValueError("'languages' is not an object of languages")
        langs = {str(k): LangEntry.from_dict(str(k), v) for k, v in langs_d.items()}
        pooled = Calibration.from_dict(d["pooled"]) if d.get("pooled") else None
        if not isinstance(d.get("reset", False), bool):
            raise ValueError("'reset' is not true or false")
        return cls(_count(d["number"], "number"), str(d["verifier"]), _count(d.get("labels", 0), "labels"),
                   str(d.get("created_at", "")), d.get("reset", False), pooled, langs, str(d["version"]))


HINT = "`mfact learn --reset` replaces it with an empty one, `mfact learn` with a new one"
MAX_BYTES = 16 * 1024 * 1024           # a features model per language is a few KB


def load_adaptation(path: Path | None = None) -> Adaptation | None:
    """The adaptation in the file (None when there is none). Read bounded (core/inputs.read_own: a
    regular file of at most MAX_BYTES, UTF-8, strict JSON: no NaN, no Infinity, no deep nesting);
    anything else is one MfactError naming the file, with what to do."""
    from ..inputs import loads, read_own

    path = path or adaptation_path()
    raw = read_own(path, "the adaptation file", HINT, MAX_BYTES)
    if raw is None:
        return None
    name = f"the adaptation file {path}"
    if not raw.strip():
        raise MfactError(f"{name} is empty", HINT)
    try:
        data = loads(raw, name, one_line=True)   # names the field of a NaN, an Infinity, deep nesting
    except MfactError as exc:
        raise MfactError(exc.message, HINT) from None
    try:
        return Adaptation.from_dict(data)
    except KeyError as exc:
        raise MfactError(f"{name} is unreadable (no {exc.args[0]!r} field)", HINT) from None
    except (ValueError, TypeError, AttributeError, OverflowError) as exc:
        why = str(exc)
        raise MfactError(f"{name} was {why}" if why.startswith("written by") else f"{name} is unreadable ({why})",
                         HINT) from None


def read_or_note(path: Path | None = None) -> tuple[Adaptation | None, str]:
    """The adaptation in the file and "" , or None and why it cannot be read."""
    try:
        return load_adaptation(path), ""
    except MfactError as exc:
        return None, exc.message


def save_adaptation(a: Adaptation, path: Path | None = None) -> Path:
    """Write atomically (a temporary file, then a rename): a reader sees the old or the new one.
    Callers that read the file first hold its lock (`update_adaptation`)."""
    from ..formats import atomic_write

    path = path or adaptation_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    # replace=True: whatever is in its place (a FIFO, a link to /dev/zero) is replaced, never opened
    return atomic_write(path, json.dumps(a.to_dict(), ensure_ascii=False, indent=1) + "\n", replace=True)


def next_number(path: Path | None = None) -> int:
    """The number of the next write (an unreadable file counts as the first; under the lock,
    `update_adaptation` also counts the writes the lock file recorded)."""
    prev, _why = read_or_note(path)
    return (prev.number + 1) if prev is not None else 1


def update_adaptation(make: Callable[[Adaptation | None, int], Adaptation],
                      path: Path | None = None) -> tuple[Adaptation, Path, str]:
    """Read-modify-write under the file's lock (filelock.py): `make(what the file holds, the next
    number)` gives the adaptation to write. (it, the path written, why the old file could not be
    read: "" when it could). Two `mfact learn` at once keep each other's languages and numbers."""
    from .filelock import locked

    path = path or adaptation_path()
    with locked(path) as held:
        keep, why = read_or_note(path)
        number = max(keep.number if keep is not None else 0, held.last_number()) + 1
        a = make(keep, number)
        save_adaptation(a, path)
        held.record(a.number)
    return a, path, why


def from_result(res: LearnResult, number: int, keep: Adaptation | None = None) -> Adaptation:
    """The adaptation of a learning result; `keep`'s languages that `res` did not learn stay as
    they were (`mfact learn --lang`), when it was fitted on the same verifier."""
    a = Adaptation(number, res.verifier, res.labels, pooled=res.pooled)
    if keep is not None and keep.verifier == res.verifier and not keep.reset:
        a.languages.update(keep.languages)
    for lang, r in res.languages.items():
        a.languages[lang] = LangEntry(lang, r.labels, r.adopted, r.model, r.why, r.before, r.after,
                                      r.calibration if r.adopted else None, r.features if r.adopted else None)
    return a.stamp()


def reset_adaptation(number: int, verifier: str, keep: Adaptation | None = None,
                     langs: set[str] | None = None) -> Adaptation:
    """An adaptation that adapts nothing; with `langs`, `keep` without those languages (the others
    keep their adaptation)."""
    if langs is None or keep is None or keep.reset:
        return Adaptation(number, verifier, reset=True).stamp()
    return Adaptation(number, keep.verifier, keep.labels, pooled=keep.pooled,
                      languages={k: v for k, v in keep.languages.items() if k not in langs}).stamp()


# --------------------------------------------------------------------------- applying it


class Adapter:
    """Applies the adaptation file's adopted calibrations to new verdicts; reads the file again
    when it changes (a refit in the TUI, `mfact learn` in another terminal), at most once a second.
    `mode` "off" (config `adapt = off`) adapts nothing."""

    CHECK_EVERY_S = 1.0

    def __init__(self, path: Path | None = None, mode: str = "auto"):
        if mode not in MODES:
            raise MfactError(f"unknown adapt mode {mode!r}", "adapt = auto or off")
        self.path = path or adaptation_path()
        self.mode = mode
        self._lock = threading.Lock()
        self._seen: tuple | None = None
        self._checked = 0.0
        self._current: Adaptation | None = None

    def current(self) -> Adaptation | None:
        if self.mode == "off":
            return None
        with self._lock:
            now = time.monotonic()
            if self._seen is not None and now - self._checked < self.CHECK_EVERY_S:
                return self._current
            self._checked = now
            try:
                st = self.path.stat()
                seen: tuple[int, ...] = (st.st_mtime_ns, st.st_size, st.st_ino)
            except OSError:
                seen = ()
            if seen != self._seen:
                self._seen = seen
                try:
                    self._current = load_adaptation(self.path) if seen else None
                except MfactError as exc:
                    from ..logs import notice
                    notice(f"{exc.message}: verdicts are not adapted ({exc.hint})")
                    self._current = None
            return self._current

    def apply(self, verdict: Verdict, lang: str) -> Verdict:
        """The verdict as the adaptation makes it (the verdict itself when it does not apply)."""
        a = self.current()
        if a is None or verdict.adaptation is not None or not verifier_matches(verdict.verifier, a.verifier):
            return verdict
        e = a.entry(lang)
        p = p_supported(verdict.label, verdict.confidence)
        if e is None or p is None:
            return verdict
        phi = phi_of(verdict.features)
        if e.calibration is None and (e.features is None or phi is None or len(phi) != e.features.size):
            return verdict               # a features model, and a verdict without features of its size
        x = feature_row(p, verdict.reason, bool(verdict.marks))
        q = float(adapted_probs(x, None if phi is None else phi[None, :], e.calibration, e.features)[0])
        label = "S" if q >= THRESHOLD else "NS"
        conf = round(min(1.0, max(0.0, q if label == "S" else 1.0 - q)), 4)
        reason = f"{verdict.reason or ''}; adapted ({a.version}, {lang}): p(supported) {p:.2f} -> {q:.2f}".lstrip("; ")
        return replace(verdict, label=label, confidence=conf, reason=reason, evidence=list(verdict.evidence),
                       adaptation=Adapted(a.version, verdict.label, verdict.confidence))
