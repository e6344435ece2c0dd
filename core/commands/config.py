"""`mfact config path|show`: where the config file is, and the effective configuration."""
from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("config", help="show the configuration file's path or the effective configuration",
                       description="path: print where the TOML config file is (it may not exist yet). "
                                   "show: print the effective configuration as TOML (flags > MFACT_* "
                                   "environment > config file > defaults), one table per section.")
    p.add_argument("action", choices=["path", "show"])
    p.add_argument("--doc", action="store_true", help="show: each option with what it does above it")
    p.set_defaults(func=cmd_config)


def cmd_config(args) -> int:
    import sys
    from pathlib import Path

    from .. import paths
    from ..config import load_config, to_toml

    if args.action == "path":
        path = Path(args.config_path) if getattr(args, "config_path", None) else paths.config_file()
        sys.stdout.write(f"{path}\n")
        return 0
    given = Path(args.config_path) if getattr(args, "config_path", None) else None
    sys.stdout.write(to_toml(load_config(None, given), doc=args.doc))
    return 0
