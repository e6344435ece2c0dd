"""The typed figures of one session: `Metrics` (Session.metrics) and `Checks` (Session.checks).

They serialise to the JSON of `mfact.session/1` exactly as the plain dicts did: `to_dict()` gives
back the keys an object was read with, in their order, and keys this version does not know are
kept in `extra` (an older or newer file loses nothing). A key is present once it is set: an object
built in code has every field but the optional ones (`_OPTIONAL`, present once set), `empty()` has
none, `from_dict` has the keys it was read with.

Readers use attributes (`session.metrics.factscore`); a key absent from the JSON reads as None.
Each object is also a read-only Mapping over its JSON keys, for code that wants the JSON view.
`from_dict` validates the known keys and raises `SessionFormatError` naming the field
(`metrics.calm.language_ok`); unknown keys are kept as they are.
"""
from __future__ import annotations

import copy
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, cast

from .schema import SessionFormatError, json_object, json_type

Check = Callable[[Any, str], Any]
_SPECS: dict[type, dict[str, Check]] = {}     # each JsonObject class's field checks, from its annotations
_LAYOUTS: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}   # its (always present, optional) fields
_ATOMS = (bool, int, float, str)


class JsonObject(Mapping):
    """Base of a typed JSON object that round-trips exactly (see the module docstring)."""

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset()
    extra: dict[str, Any]
    _keys: list[str]          # the keys in the order they were read (or set), for to_dict

    if TYPE_CHECKING:  # the dataclasses deriving from it take their fields and `extra`
        def __init__(self, **fields: Any) -> None: ...

    def __post_init__(self) -> None:
        required, optional = self._layout()
        if any(getattr(self, n) is not None for n in optional):
            keys = [n for n in self._names() if n not in optional or getattr(self, n) is not None]
        else:
            keys = list(required)
        if self.extra:
            keys += [k for k in self.extra if k not in keys]
        object.__setattr__(self, "_keys", keys)

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        d[name] = value
        keys = d.get("_keys")
        if keys is not None and name != "extra" and name not in keys and name in self._spec():
            keys.append(name)

    @classmethod
    def empty(cls):
        """An object with no key at all (`{}`)."""
        obj = cls()
        object.__setattr__(obj, "_keys", [])
        return obj

    # ------------------------------------------------------------------ JSON

    @classmethod
    def from_dict(cls, d: Any, where: str):
        """Validate and build from JSON data (`where` names it in errors); keeps key order and
        unknown keys. An object of this class is taken as it is."""
        if isinstance(d, cls):
            return d.copy()
        d = json_object(d, where)
        spec = cls._spec()
        known, extra = {}, {}
        for k, v in d.items():
            if k in spec:
                known[k] = spec[k](v, f"{where}.{k}")
            else:
                extra[k] = v
        obj = cls(**known, extra=extra)
        object.__setattr__(obj, "_keys", list(d))
        return obj

    def to_dict(self) -> dict[str, Any]:
        return {k: _json(self[k]) for k in self}

    def copy(self):
        """A shallow copy, with its own key list and `extra`."""
        return copy.copy(self)

    def __copy__(self):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        object.__setattr__(new, "_keys", list(self._keys))
        object.__setattr__(new, "extra", dict(self.extra))
        return new

    def __deepcopy__(self, memo: dict):
        new = object.__new__(type(self))
        new.__dict__.update({k: v if v is None or type(v) in _ATOMS else copy.deepcopy(v, memo)
                             for k, v in self.__dict__.items()})
        return new

    def update(self, other: "JsonObject | Mapping[str, Any]") -> None:
        """`dict.update` over the JSON keys: known keys keep their place, new ones come last."""
        spec = self._spec()
        for k in other:
            if k in spec:
                setattr(self, k, spec[k](other[k], k) if not isinstance(other, JsonObject) else other[k])
            else:
                self.extra[k] = other[k]
                if k not in self._keys:
                    self._keys.append(k)

    def has(self, *keys: str) -> bool:
        """Whether every one of these JSON keys is present."""
        present = set(self._keys) | set(self.extra)
        return all(k in present for k in keys)

    # ------------------------------------------------------------------ the Mapping view

    def __iter__(self) -> Iterator[str]:
        spec, seen = self._spec(), set()
        for k in self._keys:
            if k in spec or k in self.extra:
                seen.add(k)
                yield k
        for k in self.extra:
            if k not in seen:
                yield k

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __getitem__(self, key: str) -> Any:
        if key in self.extra:
            return self.extra[key]
        if key in self._spec() and key in self._keys:
            return getattr(self, key)
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return key in self.extra or (key in self._keys and key in self._spec())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self)!r})"

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value (Mapping's __eq__)

    # ------------------------------------------------------------------ the field checks

    @classmethod
    def _names(cls) -> list[str]:
        return list(cls._spec())

    @classmethod
    def _layout(cls) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(the fields an object built in code always has, the optional ones), in field order."""
        layout = _LAYOUTS.get(cls)
        if layout is None:
            names = cls._names()
            layout = (tuple(n for n in names if n not in cls._OPTIONAL),
                      tuple(n for n in names if n in cls._OPTIONAL))
            _LAYOUTS[cls] = layout
        return layout

    @classmethod
    def _spec(cls) -> dict[str, Check]:
        """Each field's check, from its type annotation (computed once per class)."""
        spec = _SPECS.get(cls)
        if spec is None:
            hints = typing.get_type_hints(cls)
            spec = {f.name: _check_for(hints[f.name]) for f in fields(cast(Any, cls)) if f.name != "extra"}
            _SPECS[cls] = spec
        return spec


def _json(v: Any) -> Any:
    if isinstance(v, JsonObject):
        return v.to_dict()
    if isinstance(v, list):
        return [_json(x) for x in v]
    if isinstance(v, dict):
        return {k: _json(x) for k, x in v.items()}
    return v


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _scalar(test: Callable[[Any], bool], what: str) -> Check:
    def check(v: Any, where: str) -> Any:
        if v is not None and not test(v):
            raise SessionFormatError(where, f"must be {what} or null, got {json_type(v)}")
        return v
    return check


_SCALARS: dict[Any, Check] = {
    float: _scalar(_is_num, "a number"),
    int: _scalar(lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    bool: _scalar(lambda v: isinstance(v, bool), "true or false"),
    str: _scalar(lambda v: isinstance(v, str), "a string"),
}


def _check_for(tp: Any) -> Check:
    """The check of a field typed `X | None`: X a scalar, a JsonObject, list[JsonObject] or dict[str, X]."""
    args = [a for a in typing.get_args(tp) if a is not type(None)] \
        if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union else [tp]
    (tp,) = args
    if tp in _SCALARS:
        return _SCALARS[tp]
    if isinstance(tp, type) and issubclass(tp, JsonObject):
        return lambda v, where: None if v is None else tp.from_dict(v, where)
    origin, inner = typing.get_origin(tp), typing.get_args(tp)
    if origin is list:
        item = _check_for(inner[0])

        def check_list(v: Any, where: str) -> Any:
            if v is None:
                return None
            if not isinstance(v, list):
                raise SessionFormatError(where, f"must be a list or null, got {json_type(v)}")
            return [item(x, f"{where}[{i}]") for i, x in enumerate(v)]
        return check_list
    if origin is dict:
        value = _check_for(inner[1])

        def check_dict(v: Any, where: str) -> Any:
            if v is None:
                return None
            return {k: value(x, f"{where}.{k}") for k, x in json_object(v, where).items()}
        return check_dict
    raise TypeError(f"no check for the field type {tp!r}")


def _extra() -> Any:
    return field(default_factory=dict, repr=False)


# --------------------------------------------------------------------------- metrics


@dataclass(eq=False, repr=False)
class Calm(JsonObject):
    """The CaLMScore checks as the metrics carry them."""
    language_ok: bool | None = None
    detected_language: str | None = None
    repetitive: bool | None = None
    non_empty: bool | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class Counts(JsonObject):
    """Facts per effective label; `pending`: still without a verdict."""
    S: int | None = None
    NS: int | None = None
    IR: int | None = None
    pending: int | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class Agreement(JsonObject):
    """Accuracy and Cohen's kappa between human and automatic labels (`reason`: why one is None)."""
    n: int | None = None
    accuracy: float | None = None
    kappa: float | None = None
    reason: str | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class Metrics(JsonObject):
    """Every figure of one session (core/metrics.py `session_metrics`); `selfcheck`: the mean
    SelfCheck inconsistency, present once a SelfCheck ran; `text_incomplete`, present (True) when
    the text was cut off by a lost connection: its figures are of the text so far."""
    _OPTIONAL: ClassVar[frozenset[str]] = frozenset({"selfcheck", "text_incomplete"})

    factscore: float | None = None
    factscore_relevant_only: float | None = None
    factscore_gamma: float | None = None
    semantic_drift: float | None = None
    drift_point: int | None = None
    drift_position: float | None = None
    supported_before: float | None = None
    unsupported_after: float | None = None
    drifting: bool | None = None
    drift_p_value: float | None = None
    calm: Calm | None = None
    n_facts: int | None = None
    n_labelled: int | None = None
    counts: Counts | None = None
    abstained: bool | None = None
    agreement: Agreement | None = None
    hallucination_rate: float | None = None
    hallucination_rate_raw: float | None = None
    hallucination_rate_reason: str | None = None
    hallucination_precision: float | None = None
    hallucination_recall: float | None = None
    selfcheck: float | None = None
    text_incomplete: bool | None = None     # True: the text was cut off (the connection was lost)
    extra: dict[str, Any] = _extra()


# --------------------------------------------------------------------------- checks


@dataclass(eq=False, repr=False)
class RepeatedSentence(JsonObject):
    """Where the repetition stop found a sentence repeated (offsets into the raw text)."""
    start: int | None = None
    end: int | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class DriftStop(JsonObject):
    """The drift stop: after how many labelled facts, at which score and drift point."""
    facts: int | None = None
    score: float | None = None
    point: int | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class SelfCheckSentence(JsonObject):
    index: int | None = None
    start: int | None = None
    end: int | None = None
    score: float | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class SelfCheck(JsonObject):
    """SelfCheck: the inconsistency of each sentence with the samples, their mean, and per fact."""
    samples: int | None = None
    embedder: str | None = None
    sentences: list[SelfCheckSentence] | None = None
    mean: float | None = None
    facts: dict[str, float | None] | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class CheckError(JsonObject):
    """The stage a run failed in and its message."""
    stage: str | None = None
    message: str | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class Checks(JsonObject):
    """The CaLMScore checks of the text (core/checks.py `calm_checks`), then what the run
    recorded as it happened: a repeated sentence, the drift stop, SelfCheck, an error, and the
    warnings the run gave (a knowledge source skipped because its reply was bad, ...)."""
    _OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        {"repeated_sentence", "drift_stop", "selfcheck", "error", "warnings"})

    non_empty: bool | None = None
    detected_language: str | None = None
    language_prob: float | None = None
    language_ok: bool | None = None
    repetitive: bool | None = None
    passed: bool | None = None
    repeated_sentence: RepeatedSentence | None = None
    drift_stop: DriftStop | None = None
    selfcheck: SelfCheck | None = None
    error: CheckError | None = None
    warnings: list[str] | None = None
    extra: dict[str, Any] = _extra()

    @property
    def has_calm(self) -> bool:
        """Whether the CaLMScore checks were computed (else they must be)."""
        return self.has("language_ok", "repetitive", "non_empty")
