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
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

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
        cal, fm = d.get("calibration"), d.get("features_model")
        return cls(lang, int(d["labels"]), bool(d["adopted"]), str(d.get("model", "")), str(d.get("why", "")),
                   Scores.from_dict(d["before"]), Scores.from_dict(d["after"]) if d.get("after") else None,
                   Calibration.from_dict(cal) if cal else None, FeatureModel.from_dict(fm) if fm else None)


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
        if d.get("schema") not in READS:
            raise ValueError(f"schema {d.get('schema')!r} is not {SCHEMA}")
        if list(d.get("features") or []) != list(FEATURES):
            raise ValueError("written for other features (another mfact version)")
        langs = {str(k): LangEntry.from_dict(str(k), v) for k, v in (d.get("languages") or {}).items()}
        pooled = Calibration.from_dict(d["pooled"]) if d.get("pooled") else None
        return cls(int(d["number"]), str(d["verifier"]), int(d.get("labels", 0)), str(d.get("created_at", "")),
                   bool(d.get("reset", False)), pooled, langs, str(d["version"]))


def load_adaptation(path: Path | None = None) -> Adaptation | None:
    """The adaptation in the file (None when there is none). MfactError for an unreadable one."""
    path = path or adaptation_path()
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MfactError(f"cannot read the adaptation file {path}: {exc.strerror or exc}",
                         "check its permissions, or `mfact learn --reset`") from None
    try:
        return Adaptation.from_dict(json.loads(raw))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise MfactError(f"the adaptation file {path} is unreadable ({exc})",
                         "`mfact learn` writes a new one, `mfact learn --reset` an empty one") from None


def save_adaptation(a: Adaptation, path: Path | None = None) -> Path:
    """Write atomically (a temporary file, then a rename): a reader sees the old or the new one."""
    from ..formats import atomic_write

    path = path or adaptation_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, json.dumps(a.to_dict(), ensure_ascii=False, indent=1) + "\n")


def next_number(path: Path | None = None) -> int:
    """The number of the next write (an unreadable file counts as the first)."""
    try:
        prev = load_adaptation(path)
    except MfactError:
        prev = None
    return (prev.number + 1) if prev is not None else 1


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


def reset_adaptation(number: int, verifier: str) -> Adaptation:
    return Adaptation(number, verifier, reset=True).stamp()


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
                    log.warning("%s: verdicts are not adapted", exc)
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
