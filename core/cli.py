"""The headless CLI `mfact`. Each subcommand lives in `mfact.core.commands.<name>` and exposes
`register(subparsers)`; this module finds them, parses arguments and turns errors into one line."""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import sys

from . import __version__


def build_parser() -> argparse.ArgumentParser:
    from . import commands
    from .config import add_global_options

    parser = argparse.ArgumentParser(
        prog="mfact", description="Check the facts in what language models write, in many languages.")
    parser.add_argument("--version", action="version", version=f"mfact {__version__}")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if mod.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{mod.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .config import apply_global_options
    from .logs import setup_logging
    from .errors import error_line
    from .protocols import MfactError
    from .session import SessionFormatError

    parser = build_parser()
    args = parser.parse_args(argv)
    apply_global_options(args)
    setup_logging(verbose=getattr(args, "verbose", False), console=True)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        rc = args.func(args)
        return int(rc or 0)
    except (MfactError, SessionFormatError) as exc:
        from .textsafe import clean_terminal

        print(clean_terminal(f"mfact: error: {error_line(exc)}", one_line=True), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mfact: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as exc:  # noqa: BLE001 - last line of defence: one clear line, details in the log
        logging.getLogger("mfact").exception("unexpected error")
        from .textsafe import clean_terminal

        print(clean_terminal(f"mfact: error: {type(exc).__name__}: {exc} (details in the log; rerun with"
                             " --verbose)", one_line=True), file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
