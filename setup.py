"""Package discovery for mfact's three folders (core/, tui/, themes/ are installed as mfact.core,
mfact.tui, mfact.themes; pyproject.toml maps them): every folder with an __init__.py below them is a
subpackage, so a wheel never leaves one out. Everything else is in pyproject.toml."""
from pathlib import Path

from setuptools import setup

ROOTS = {"mfact.core": "core", "mfact.tui": "tui", "mfact.themes": "themes"}


def packages() -> list[str]:
    here = Path(__file__).resolve().parent
    out = []
    for name, folder in ROOTS.items():
        out.append(name)
        for init in sorted((here / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(here / folder)
            if rel.parts:
                out.append(".".join((name, *rel.parts)))
    return out


setup(packages=packages())
