"""The typed, nested configuration (core/config.py): sections, flat names, both file layouts,
choices checked with one line, and `mfact config show --doc`."""
from __future__ import annotations

import copy
import os
import subprocess
import sys
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from mfact.core.config import OPTIONS, SECTIONS, Config, load_config, option_doc, to_toml
from mfact.core.errors import MfactError
from mfact.core.protocols import DecodingParams

MFACT = Path(sys.executable).parent / "mfact"


def test_a_flat_name_is_the_option_of_its_section():
    cfg = Config(max_tokens=40, verifier="lite", theme="mfact-cb")
    assert cfg.decoding.max_tokens == 40 and cfg.checking.verifier == "lite" and cfg.ui.theme == "mfact-cb"
    cfg.knowledge.k = 3
    assert cfg.k == 3
    with pytest.raises(TypeError, match="unexpected option 'max_token'"):
        Config(max_token=1)


def test_a_copy_has_its_own_sections():
    cfg = Config(k=5)
    other = copy.copy(cfg)
    other.k = 9
    assert cfg.k == 5 and other.k == 9 and other != cfg


def test_every_option_has_a_section_and_a_doc():
    assert list(Config().to_dict()) == list(Config.ORDER)
    assert set(Config.ORDER) == set(OPTIONS)
    for sec, cls in SECTIONS.items():
        for f in fields(cls):
            assert OPTIONS[f.name] == sec and option_doc(f.name).strip()


def test_the_decoding_defaults_are_written_once():
    assert DecodingParams().max_tokens == Config().max_tokens
    assert (DecodingParams().temperature, DecodingParams().top_p) == (Config().temperature, Config().top_p)


def test_sectioned_and_flat_files_read_alike(tmp_path, monkeypatch):
    monkeypatch.delenv("MFACT_K", raising=False)
    new = tmp_path / "new.toml"
    new.write_text('[knowledge]\nk = 20\n[decoding]\nmodel = "m.gguf"\n[keys]\nnext_fact = "n"\n')
    old = tmp_path / "old.toml"
    old.write_text('k = 20\nmodel = "m.gguf"\n[keys]\nnext_fact = "n"\n')
    assert load_config(path=new) == load_config(path=old)
    assert load_config(path=new).keys == {"next_fact": "n"}
    shown = tomllib.loads(to_toml(load_config(path=old)))
    assert shown["knowledge"]["k"] == 20 and shown["keys"] == {"next_fact": "n"}


def test_a_wrong_section_or_choice_is_one_line(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[checking]\nk = 3\n')
    with pytest.raises(MfactError, match=r"unknown option 'k' in \[checking\]"):
        load_config(path=f)
    f.write_text('[decoding]\nbackend = "vllm"\n')
    with pytest.raises(MfactError, match=r"invalid value 'vllm' for option 'backend'.*one of 'auto'"):
        load_config(path=f)


def test_config_show_doc_prints_each_option_with_its_doc(tmp_path):
    env = dict(os.environ, MFACT_HOME=str(tmp_path / "home"))
    out = subprocess.run([str(MFACT), "config", "show", "--doc"], capture_output=True, text=True, env=env,
                         check=True).stdout
    assert "# the longest text a model writes, in tokens\nmax_tokens = 500" in out
    assert "[checking]" in out and "# checking threads\nworkers = 2" in out
    tomllib.loads(out)   # still valid TOML


def test_the_choices_and_the_registries_agree():
    """The Literal types of the configuration, the CLI's choices and the registries that build the
    stages name the same things."""
    from mfact.core.checking import EXTRACTORS, VERIFIER_NAMES, VERIFIERS
    from mfact.core.config import choices
    from mfact.core.models import BACKENDS, LOCAL_BACKENDS

    assert choices("extractor") == tuple(EXTRACTORS)
    assert choices("backend") == BACKENDS == ("auto", *LOCAL_BACKENDS)
    assert VERIFIER_NAMES[0] == "offline" and set(VERIFIERS) == {n.split(":")[0] for n in VERIFIER_NAMES}
    out = subprocess.run([str(MFACT), "check", "--help"], capture_output=True, text=True, check=True).stdout
    assert "{auto,rules,llm}" in out and "{auto,llamacpp,transformers}" in out
    for kind in VERIFIERS.values():
        assert kind.help.split(",")[0] in " ".join(out.split())
