"""Shared test setup: every test gets its own MFACT_HOME, and nothing reaches the network."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
if not SHARED.exists():  # CI clones into a folder with shared/ beside it, as here
    SHARED = Path(__file__).resolve().parents[1].parent / "shared"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(autouse=True)
def mfact_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "mfact-home"
    home.mkdir()
    monkeypatch.setenv("MFACT_HOME", str(home))
    for var in list(os.environ):
        if var.startswith("MFACT_") and var != "MFACT_HOME":
            monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.exists():
        pytest.skip("../shared is not beside the checkout")
    return SHARED


_TEST_MODEL_CACHE = os.environ.get("MFACT_TEST_MODEL_CACHE")   # read before mfact_home clears MFACT_*


@pytest.fixture
def model_cache(monkeypatch) -> Path:
    """One model cache for all tests and runs (the embedded model is converted once, ~1 min):
    $MFACT_TEST_MODEL_CACHE, else mfact-test-models in the temp dir."""
    import tempfile

    path = Path(_TEST_MODEL_CACHE or Path(tempfile.gettempdir()) / "mfact-test-models")
    path.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("MFACT_MODEL_CACHE", str(path))
    return path


def pytest_terminal_summary(terminalreporter) -> None:
    """One line naming the browser tests that did not run for want of Chromium, and how to get it."""
    skipped = terminalreporter.stats.get("skipped", [])
    names = [r.nodeid.split("::")[-1] for r in skipped if "chromium not found" in str(r.longrepr)]
    if names:
        from _chromium import INSTALL_HINT

        terminalreporter.write_line(f"browser tests not run ({len(names)}, chromium not found; {INSTALL_HINT}): "
                                    + ", ".join(names))
