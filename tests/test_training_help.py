"""Every training script answers `--help` (argparse formats each option's help with %: a bare "%"
in one of them made `python -m mfact.core.training.train_pair --help` crash)."""
from __future__ import annotations

import importlib

import pytest

pytest.importorskip("torch")

SCRIPTS = ("device_pack", "feature_basis", "soup", "train_combiner", "train_cross", "train_detector",
           "train_pair", "train_verifier", "trim_e5")


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_training_script_prints_its_help(name, capsys):
    mod = importlib.import_module(f"mfact.core.training.{name}")
    with pytest.raises(SystemExit) as done:
        mod.main(["--help"])
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out
