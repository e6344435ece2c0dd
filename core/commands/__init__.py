"""CLI subcommands: each module exposes `register(subparsers)` and sets `func` on its parser."""
