"""Logging to a file in the user state dir (the TUI owns the terminal); `--verbose` adds stderr."""
from __future__ import annotations

import logging
import logging.handlers

_CONFIGURED = False


def setup_logging(verbose: bool = False, console: bool = False) -> None:
    global _CONFIGURED
    from .paths import log_file

    root = logging.getLogger("mfact")
    if not _CONFIGURED:
        try:
            fh = logging.handlers.RotatingFileHandler(log_file(), maxBytes=2_000_000, backupCount=2,
                                                      encoding="utf-8")
            fh.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
            root.addHandler(fh)
        except OSError:
            pass
        root.setLevel(logging.DEBUG)
        _CONFIGURED = True
    if verbose and console:
        sh = logging.StreamHandler()
        sh.setLevel(logging.DEBUG)
        sh.setFormatter(logging.Formatter("mfact: %(levelname)s %(name)s: %(message)s"))
        root.addHandler(sh)
