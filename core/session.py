"""The typed model of one checking session and its JSON form (`"schema": "mfact.session/1"`).

Everything mfact produces or reads about a checked text goes through these classes: the store keeps
them as rows, the CLI exports and imports them, the TUI renders them. `Session.from_dict` validates
untrusted JSON and raises `SessionFormatError` naming the field that is wrong.
"""
from __future__ import annotations

import json
import math
import uuid
from dataclasses import dataclass, field
from typing import Any

from .figures import Checks, Metrics
from .schema import LABELS as LABELS   # re-exported: the labels are part of the session's model
from .schema import (
    SessionFormatError, json_type, id_field, label_field, limited, now_iso, json_object, opt_list, opt_obj,
    opt_str, shown, str_field, text_field, time_field,
)

SCHEMA = "mfact.session/1"
# size limits of one session (docs/reliability.md): refused above them, in one line
MAX_TEXT_CHARS = 2_000_000
MAX_FACTS = 50_000
MAX_EVIDENCE = 100_000
MAX_FACT_CHARS = 100_000          # one fact (and one claim of `verify-pairs`)
MAX_PASSAGE_CHARS = 1_000_000     # one evidence passage
MAX_NAME_CHARS = 500              # an entity name (as in entity lists)
MAX_QUESTION_CHARS = 20_000       # the question a checked text answers
# "interrupted": the model server's connection was lost mid-text (stop reason "connection_lost")
STATUSES = ("done", "running", "stopped", "error", "interrupted")
STOP_REASONS = ("eos", "max_tokens", "drift", "repetition", "user", "error", "imported", "connection_lost")


def status_for(reason: str) -> str:
    """The status a session ends with after a run that stopped for `reason`."""
    return {"user": "stopped", "error": "error", "connection_lost": "interrupted"}.get(reason, "done")


def stop_words(reason: str | None) -> str:
    """A stop reason as the CLI prints it (`connection lost`); the others as they are stored."""
    return "connection lost" if reason == "connection_lost" else str(reason or "")


def new_id() -> str:
    return uuid.uuid4().hex[:12]


# --------------------------------------------------------------------------- parts


@dataclass
class Entity:
    name: str
    qid: str | None = None
    titles: dict[str, str] = field(default_factory=dict)   # lang -> page title
    attributes: dict[str, Any] = field(default_factory=dict)  # e.g. rarity, region

    def to_dict(self) -> dict:
        return {"name": self.name, "qid": self.qid, "titles": dict(self.titles),
                "attributes": dict(self.attributes)}

    @classmethod
    def from_dict(cls, d: Any, where: str = "entity") -> "Entity":
        d = json_object(d, where)
        titles = opt_obj(d, "titles", where)
        for k, v in titles.items():
            if not isinstance(v, str):
                raise SessionFormatError(f"{where}.titles.{k}", f"must be a string, got {json_type(v)}")
        return cls(
            name=limited(str_field(d, "name", where), MAX_NAME_CHARS, f"{where}.name"),
            qid=opt_str(d, "qid", where),
            titles=dict(titles),
            attributes=dict(opt_obj(d, "attributes", where)),
        )


@dataclass
class GeneratorInfo:
    backend: str = "none"
    model: str = ""
    prompt: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None

    def to_dict(self) -> dict:
        return {"backend": self.backend, "model": self.model, "prompt": self.prompt,
                "params": dict(self.params), "seed": self.seed}

    @classmethod
    def from_dict(cls, d: Any, where: str = "generator") -> "GeneratorInfo":
        d = json_object({} if d is None else d, where)
        seed = d.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise SessionFormatError(f"{where}.seed", "must be an integer or null")
        return cls(backend=text_field(d, "backend", where, "none"), model=text_field(d, "model", where),
                   prompt=text_field(d, "prompt", where),
                   params=dict(opt_obj(d, "params", where)), seed=seed)


@dataclass
class Verdict:
    label: str
    confidence: float = 1.0
    verifier: str = ""
    evidence: list[str] = field(default_factory=list)
    reason: str | None = None
    # the wrong words: (start, end) in the fact's own text (what the slot checks or the detector
    # flagged); empty when nothing narrower than the whole fact is known
    marks: list[tuple[int, int]] = field(default_factory=list)
    # the evidence words that conflict with them: (evidence id, start, end) in that passage's text
    evidence_marks: list[tuple[str, int, int]] = field(default_factory=list)
    # set when the user's adaptation (core/adapt) made this verdict: its version and the verifier's
    # own verdict before it; None: the verifier's verdict as it is
    adaptation: "Adapted | None" = None
    # the numbers the default verifier read of its detector pass over the fact (core/checking/
    # fact_features.py: FEATURE_NAMES), for the user's adaptation; None when the fact was not read
    # by the detector in its sentence (another verifier, a claim alone, a verdict from before)
    features: list[float] | None = None

    def to_dict(self) -> dict:
        d = {"label": self.label, "confidence": self.confidence, "verifier": self.verifier,
             "evidence": list(self.evidence), "reason": self.reason}
        if self.marks:
            d["marks"] = [[a, b] for a, b in self.marks]
        if self.evidence_marks:
            d["evidence_marks"] = [[e, a, b] for e, a, b in self.evidence_marks]
        if self.adaptation is not None:
            d["adaptation"] = self.adaptation.to_dict()
        if self.features is not None:
            d["features"] = list(self.features)
        return d

    @property
    def unadapted(self) -> "Verdict":
        """The verifier's own verdict (label and confidence before any adaptation)."""
        a = self.adaptation
        if a is None:
            return self
        return Verdict(a.label, a.confidence, self.verifier, list(self.evidence), self.reason,
                       list(self.marks), list(self.evidence_marks), features=self.features)

    def marks_json(self) -> str | None:
        """The marks as the store keeps them (None: none)."""
        if not self.marks and not self.evidence_marks:
            return None
        return json.dumps({"marks": [[a, b] for a, b in self.marks],
                           "evidence": [[e, a, b] for e, a, b in self.evidence_marks]})

    def with_marks_json(self, raw: str | None) -> "Verdict":
        if raw:
            try:
                d = json.loads(raw)
                if not isinstance(d, dict):
                    raise ValueError(raw)
                self.marks = [(int(a), int(b)) for a, b in d.get("marks", [])]
                self.evidence_marks = [(str(e), int(a), int(b)) for e, a, b in d.get("evidence", [])]
            except (ValueError, TypeError):
                pass            # marks are a view; a damaged one is dropped, never fatal
        return self

    @classmethod
    def from_dict(cls, d: Any, where: str) -> "Verdict":
        d = json_object(d, where)
        conf = d.get("confidence", 1.0)
        if not isinstance(conf, (int, float)) or isinstance(conf, bool) or not 0.0 <= conf <= 1.0:
            raise SessionFormatError(f"{where}.confidence", f"must be a number in [0, 1], got "
                                     f"{shown(conf)}")
        ev = d.get("evidence")
        ev = [] if ev is None else ev
        if not isinstance(ev, list):
            raise SessionFormatError(f"{where}.evidence", "must be a list of evidence ids")
        ad = d.get("adaptation")
        return cls(label=label_field(d.get("label"), f"{where}.label"), confidence=float(conf),
                   verifier=text_field(d, "verifier", where), evidence=[str(e) for e in ev],
                   reason=opt_str(d, "reason", where), marks=_marks(d.get("marks"), f"{where}.marks"),
                   evidence_marks=_evidence_marks(d.get("evidence_marks"), f"{where}.evidence_marks"),
                   adaptation=None if ad is None else Adapted.from_dict(ad, f"{where}.adaptation"),
                   features=features_field(d.get("features"), f"{where}.features"))


@dataclass
class Adapted:
    """What the user's adaptation changed in a verdict: its version (`mfact learn`) and the
    verifier's own label and confidence before it."""
    version: str
    label: str
    confidence: float

    def to_dict(self) -> dict:
        return {"version": self.version, "label": self.label, "confidence": self.confidence}

    @classmethod
    def from_dict(cls, d: Any, where: str) -> "Adapted":
        d = json_object(d, where)
        conf = d.get("confidence")
        if not isinstance(conf, (int, float)) or isinstance(conf, bool) or not 0.0 <= conf <= 1.0:
            raise SessionFormatError(f"{where}.confidence", f"must be a number in [0, 1], got {shown(conf)}")
        return cls(version=limited(str_field(d, "version", where), 100, f"{where}.version"),
                   label=label_field(d.get("label"), f"{where}.label"), confidence=float(conf))


MAX_FEATURES = 256


def features_field(v: Any, where: str) -> list[float] | None:
    """A verdict's detector features: null, or a list of at most MAX_FEATURES finite numbers."""
    if v is None:
        return None
    if (not isinstance(v, list) or len(v) > MAX_FEATURES
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v)):
        raise SessionFormatError(where, f"must be a list of at most {MAX_FEATURES} finite numbers or null")
    return [float(x) for x in v]


def _marks(v: Any, where: str) -> list[tuple[int, int]]:
    if v is None:
        return []
    if not isinstance(v, list) or len(v) > 10_000:
        raise SessionFormatError(where, "must be a list of [start, end] pairs")
    out = []
    for i, m in enumerate(v):
        if (not isinstance(m, list) or len(m) != 2 or not all(isinstance(x, int) and not isinstance(x, bool)
                                                             for x in m) or not 0 <= m[0] <= m[1]):
            raise SessionFormatError(f"{where}[{i}]", "must be [start, end] with 0 <= start <= end")
        out.append((m[0], m[1]))
    return out


def _evidence_marks(v: Any, where: str) -> list[tuple[str, int, int]]:
    if v is None:
        return []
    if not isinstance(v, list) or len(v) > 10_000:
        raise SessionFormatError(where, "must be a list of [evidence id, start, end]")
    out = []
    for i, m in enumerate(v):
        if (not isinstance(m, list) or len(m) != 3 or not isinstance(m[0], str)
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in m[1:]) or not 0 <= m[1] <= m[2]):
            raise SessionFormatError(f"{where}[{i}]", "must be [evidence id, start, end] with 0 <= start <= end")
        out.append((m[0], m[1], m[2]))
    return out


@dataclass
class HumanLabel:
    label: str
    time: str = field(default_factory=now_iso)

    def to_dict(self) -> dict:
        return {"label": self.label, "time": self.time}

    @classmethod
    def from_dict(cls, d: Any, where: str) -> "HumanLabel":
        d = json_object(d, where)
        return cls(label=label_field(d.get("label"), f"{where}.label"), time=time_field(d, "time", where))


@dataclass
class Fact:
    id: str
    text: str
    sentence: int
    span: tuple[int, int]
    auto: Verdict | None = None
    human: HumanLabel | None = None

    @property
    def label(self) -> str | None:
        """The effective label: the human one when set, else the automatic one (None: pending)."""
        if self.human is not None:
            return self.human.label
        if self.auto is not None:
            return self.auto.label
        return None

    @property
    def text_order(self) -> tuple[int, int, int]:
        """Where the fact stands in the text (its start, sentence, end): the order a session keeps."""
        return self.span[0], self.sentence, self.span[1]

    @property
    def disagrees(self) -> bool:
        return self.human is not None and self.auto is not None and self.human.label != self.auto.label

    def to_dict(self) -> dict:
        return {"id": self.id, "text": self.text, "sentence": self.sentence,
                "span": [self.span[0], self.span[1]],
                "auto": self.auto.to_dict() if self.auto else None,
                "human": self.human.to_dict() if self.human else None}

    @classmethod
    def from_dict(cls, d: Any, where: str, text_len: int) -> "Fact":
        d = json_object(d, where)
        span = d.get("span")
        if not (type(span) is list and len(span) == 2 and type(span[0]) is int and type(span[1]) is int) and (
                not isinstance(span, (list, tuple)) or len(span) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in span)):
            raise SessionFormatError(f"{where}.span", "must be [start, end) as two integers")
        start, end = span
        if start < 0:
            raise SessionFormatError(f"{where}.span", f"start {start} is negative")
        if start > end:
            raise SessionFormatError(f"{where}.span", f"start {start} is after end {end}")
        if end > text_len:
            raise SessionFormatError(f"{where}.span", f"[{start}, {end}) lies outside the text (length {text_len})")
        sent = d.get("sentence", 0)
        if not (type(sent) is int and sent >= 0) and (
                not isinstance(sent, int) or isinstance(sent, bool) or sent < 0):
            raise SessionFormatError(f"{where}.sentence", "must be a non-negative integer")
        auto = d.get("auto")
        human = d.get("human")
        return cls(id=id_field(d, where), text=limited(str_field(d, "text", where), MAX_FACT_CHARS, f"{where}.text"),
                   sentence=sent,
                   span=(start, end),
                   auto=Verdict.from_dict(auto, f"{where}.auto") if auto is not None else None,
                   human=HumanLabel.from_dict(human, f"{where}.human") if human is not None else None)


@dataclass
class Evidence:
    id: str
    source: str          # wikipedia, zim, web, factscore-db, offline-vital, cache, ...
    lang: str
    title: str
    text: str
    url: str = ""
    section: str = ""
    score: float = 0.0

    def to_dict(self) -> dict:
        return {"id": self.id, "source": self.source, "lang": self.lang, "title": self.title,
                "url": self.url, "section": self.section, "text": self.text, "score": self.score}

    @classmethod
    def from_dict(cls, d: Any, where: str) -> "Evidence":
        d = json_object(d, where)
        score = d.get("score", 0.0)
        if not isinstance(score, (int, float)) or isinstance(score, bool):
            raise SessionFormatError(f"{where}.score", f"must be a number, got {shown(score)}")
        return cls(id=id_field(d, where), source=str_field(d, "source", where),
                   lang=text_field(d, "lang", where), title=text_field(d, "title", where),
                   text=limited(str_field(d, "text", where), MAX_PASSAGE_CHARS, f"{where}.text"),
                   url=text_field(d, "url", where), section=text_field(d, "section", where), score=float(score))


# --------------------------------------------------------------------------- session


@dataclass
class Session:
    language: str
    entity: Entity
    id: str = field(default_factory=new_id)
    created_at: str = field(default_factory=now_iso)
    name: str = ""                     # user-visible title (rename); defaults to entity/lang
    generator: GeneratorInfo = field(default_factory=GeneratorInfo)
    text: str = ""                     # the text that was checked (cleaned of model markup)
    raw_text: str | None = None        # the model's raw output when it differs from `text`
    tokens: int = 0
    stop_reason: str | None = None
    facts: list[Fact] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    checks: Checks = field(default_factory=Checks.empty)    # language check, repetition, ...
    metrics: Metrics = field(default_factory=Metrics.empty)
    config: dict[str, Any] = field(default_factory=dict)    # knowledge sources, verifier, versions
    status: str = "done"               # "running" while a pipeline still writes it
    question: str = ""                 # the question the text answers ("": none); untrusted text

    def __setattr__(self, name: str, value: Any) -> None:
        # a plain dict given for the figures (older callers, tests) becomes the typed object
        if name == "metrics" and not isinstance(value, Metrics):
            value = Metrics.from_dict(value or {}, "metrics")
        elif name == "checks" and not isinstance(value, Checks):
            value = Checks.from_dict(value or {}, "checks")
        object.__setattr__(self, name, value)

    @property
    def title(self) -> str:
        return self.name or f"{self.entity.name} ({self.language})"

    @property
    def abstained(self) -> bool:
        """A text with no facts ("I don't know") is an abstention: counted apart, not scored."""
        return not self.facts

    def fact(self, fact_id: str) -> Fact:
        for f in self.facts:
            if f.id == fact_id:
                return f
        raise KeyError(fact_id)

    def evidence_by_id(self) -> dict[str, Evidence]:
        return {e.id: e for e in self.evidence}

    def sort_facts(self) -> None:
        self.facts.sort(key=lambda f: f.text_order)

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "id": self.id,
            "created_at": self.created_at,
            "name": self.name,
            "language": self.language,
            "entity": self.entity.to_dict(),
            "generator": self.generator.to_dict(),
            "question": self.question,
            "text": self.text,
            "raw_text": self.raw_text,
            "tokens": self.tokens,
            "stop_reason": self.stop_reason,
            "status": self.status,
            "facts": [f.to_dict() for f in self.facts],
            "evidence": [e.to_dict() for e in self.evidence],
            "checks": self.checks.to_dict(),
            "metrics": self.metrics.to_dict(),
            "config": self.config,
        }

    @classmethod
    def from_dict(cls, d: Any, where: str = "") -> "Session":
        """Validate and build a session from untrusted JSON data."""
        pre = f"{where}." if where else ""
        d = json_object(d, where or "session")
        _check_schema(d.get("schema"), pre)
        text = _checked_text(d.get("text", ""), f"{pre}text", "must be a string")
        lang = str_field(d, "language", where)
        from .languages import UnknownLanguage, get_language
        try:
            get_language(lang)
        except UnknownLanguage as exc:
            raise SessionFormatError(f"{pre}language", str(exc)) from None
        facts_raw = opt_list(d, "facts", pre)
        ev_raw = opt_list(d, "evidence", pre)
        raw_text = d.get("raw_text")
        if raw_text is not None:
            raw_text = _checked_text(raw_text, f"{pre}raw_text",
                                     f"must be a string or null, got {json_type(raw_text)}")
        status = text_field(d, "status", where, "done") or "done"
        if status not in STATUSES:
            raise SessionFormatError(f"{pre}status", f"unknown status {status!r}; one of {', '.join(STATUSES)}")
        _check_sizes(len(facts_raw), len(ev_raw), pre)
        tokens = d.get("tokens", 0)
        if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0:
            raise SessionFormatError(f"{pre}tokens", "must be a non-negative integer")
        stop = d.get("stop_reason")
        if stop is not None and stop not in STOP_REASONS:
            raise SessionFormatError(f"{pre}stop_reason",
                                     f"unknown stop reason {stop!r}; one of {', '.join(STOP_REASONS)}")
        s = cls(
            id=id_field(d, where),
            created_at=time_field(d, "created_at", where),
            name=text_field(d, "name", where),
            language=get_language(lang).code,
            entity=Entity.from_dict(d.get("entity"), f"{pre}entity"),
            generator=GeneratorInfo.from_dict(d.get("generator"), f"{pre}generator"),
            text=text,
            raw_text=raw_text,
            tokens=tokens,
            stop_reason=stop,
            facts=[Fact.from_dict(f, f"{pre}facts[{i}]", len(text)) for i, f in enumerate(facts_raw)],
            evidence=[Evidence.from_dict(e, f"{pre}evidence[{i}]") for i, e in enumerate(ev_raw)],
            checks=Checks.from_dict(opt_obj(d, "checks", where), f"{pre}checks"),
            metrics=Metrics.from_dict(opt_obj(d, "metrics", where), f"{pre}metrics"),
            config=dict(opt_obj(d, "config", where)),
            status=status,
            question=limited(text_field(d, "question", where), MAX_QUESTION_CHARS, f"{pre}question"),
        )
        _check_ids(s, pre)
        s.sort_facts()
        return s


def _check_schema(schema: Any, pre: str) -> None:
    if schema != SCHEMA:
        raise SessionFormatError(
            f"{pre}schema", f"expected {SCHEMA!r}, got {schema!r}"
            + (" (a newer mfact wrote this file?)" if isinstance(schema, str)
               and schema.startswith("mfact.session/") else ""))


def _checked_text(text: Any, where: str, not_a_string: str) -> str:
    """A session's text (or raw text): a string within the size limit."""
    if not isinstance(text, str):
        raise SessionFormatError(where, not_a_string)
    if len(text) > MAX_TEXT_CHARS:
        raise SessionFormatError(where, f"{len(text):,} characters is over the limit of {MAX_TEXT_CHARS:,}")
    return text


def _check_sizes(n_facts: int, n_evidence: int, pre: str) -> None:
    if n_facts > MAX_FACTS:
        raise SessionFormatError(f"{pre}facts", f"{n_facts:,} facts is over the limit of {MAX_FACTS:,}")
    if n_evidence > MAX_EVIDENCE:
        raise SessionFormatError(f"{pre}evidence", f"{n_evidence:,} passages is over the limit of"
                                                   f" {MAX_EVIDENCE:,}")


def _check_ids(s: Session, pre: str) -> None:
    """Fact and evidence ids are unique, and every verdict cites known evidence."""
    seen_ids: set[str] = set()
    for i, f in enumerate(s.facts):
        if f.id in seen_ids:
            raise SessionFormatError(f"{pre}facts[{i}].id", f"duplicate fact id {f.id!r}")
        seen_ids.add(f.id)
    ev_ids: set[str] = set()
    for i, e in enumerate(s.evidence):
        if e.id in ev_ids:
            raise SessionFormatError(f"{pre}evidence[{i}].id", f"duplicate evidence id {e.id!r}")
        ev_ids.add(e.id)
    for i, f in enumerate(s.facts):
        if f.auto:
            missing = [e for e in f.auto.evidence if e not in ev_ids]
            if missing:
                raise SessionFormatError(f"{pre}facts[{i}].auto.evidence",
                                         f"unknown evidence id {missing[0]!r}")
