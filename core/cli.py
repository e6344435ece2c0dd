"""The headless CLI `mfact`. Each subcommand lives in `mfact.core.commands.<name>` and exposes
`register(subparsers)`; this module finds them, parses arguments and turns errors into one line."""
from __future__ import annotations

import argparse
import importlib
import errno
import logging
import os
import pkgutil
import sys

from . import __version__


def build_parser() -> argparse.ArgumentParser:
    from . import commands
    from .options import add_global_options

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
    from .options import apply_global_options
    from .logs import setup_logging
    from .errors import error_line
    from .errors import MfactError
    from .session import SessionFormatError

    parser = build_parser()
    args = parser.parse_args(argv)
    apply_global_options(args)
    setup_logging(verbose=getattr(args, "verbose", False), console=True)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        rc = int(args.func(args) or 0)
        # what went to stdout must have arrived: a full disk or a closed pipe is a failure, not
        # success (`mfact sessions list > /dev/full`)
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            print(clean_line(f"mfact: error: cannot write the output: {exc.strerror or exc}"), file=sys.stderr)
            _quiet_stdout()
            return 1
        return rc
    except (MfactError, SessionFormatError) as exc:
        from .textsafe import clean_terminal

        print(clean_terminal(f"mfact: error: {error_line(exc)}", one_line=True), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mfact: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 1
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG) and _is_stdout_error(exc):
            print(clean_line(f"mfact: error: cannot write the output: {exc.strerror or exc}"), file=sys.stderr)
            _quiet_stdout()
            return 1
        raise
    except Exception as exc:  # noqa: BLE001 - last line of defence: one clear line, details in the log
        logging.getLogger("mfact").exception("unexpected error")
        from .textsafe import clean_terminal

        print(clean_terminal(f"mfact: error: {type(exc).__name__}: {exc} (details in the log; rerun with"
                             " --verbose)", one_line=True), file=sys.stderr)
        return 1


def clean_line(text: str) -> str:
    from .textsafe import clean_terminal
    return clean_terminal(text, one_line=True)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's own flush at exit fails no more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def _is_stdout_error(exc: OSError) -> bool:
    """An OSError raised while writing stdout (not a file mfact opened itself, which says its path)."""
    return not getattr(exc, "filename", None)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
