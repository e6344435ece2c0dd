"""Logging to a file in the user state dir (the TUI owns the terminal); `--verbose` adds stderr."""
from __future__ import annotations

import logging
import logging.handlers

_CONFIGURED = False
_CONSOLE = False          # the CLI: stderr is the user's; the TUI owns the terminal
_SAID: set[str] = set()


def setup_logging(verbose: bool = False, console: bool = False) -> None:
    global _CONFIGURED, _CONSOLE
    from .errors import MfactError
    from .paths import log_file

    _CONSOLE = _CONSOLE or console

    root = logging.getLogger("mfact")
    if not _CONFIGURED:
        try:
            fh = logging.handlers.RotatingFileHandler(log_file(), maxBytes=2_000_000, backupCount=2,
                                                      encoding="utf-8")
            fh.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
            root.addHandler(fh)
        except (OSError, MfactError):
            pass                        # no log file (a read-only or broken home): the commands say why
        root.setLevel(logging.DEBUG)
        _CONFIGURED = True
    if verbose and console:
        sh = logging.StreamHandler()
        sh.setLevel(logging.DEBUG)
        sh.setFormatter(logging.Formatter("mfact: %(levelname)s %(name)s: %(message)s"))
        root.addHandler(sh)


def notice(message: str) -> None:
    """Tell the user something mfact ignores or works around (an adaptation file it cannot use, ...):
    once per process and message, in the log, and on stderr in the CLI (the TUI shows its own)."""
    logging.getLogger("mfact").warning("%s", message)
    if message in _SAID:
        return
    _SAID.add(message)
    if _CONSOLE:
        import sys

        from .textsafe import clean_terminal
        try:
            sys.stderr.write(clean_terminal(f"mfact: warning: {message}", one_line=True) + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
