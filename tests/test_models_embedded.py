"""The embedded default (Gemma 3 270M from PyPI) through transformers (`--backend transformers`, its
de-quantized cache) and through llama.cpp's server, for real. The default, in-process llama.cpp
backend is tested in test_models_llamacpp.py."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import time

import pytest

from _loopback import free_port
from mfact.core.config import Config
from mfact.core.langid import detect
from mfact.core.models import embedded, load_generator
from mfact.core.errors import MfactError
from mfact.core.protocols import DecodingParams


def test_embedded_cache_location(monkeypatch, tmp_path):
    monkeypatch.delenv("MFACT_MODEL_CACHE", raising=False)
    assert str(embedded.cache_path()).startswith(str(tmp_path))        # under this test's MFACT_HOME
    monkeypatch.setenv("MFACT_MODEL_CACHE", str(tmp_path / "shared"))
    assert embedded.cache_path().parent == tmp_path / "shared"
    assert not embedded.is_prepared()


def test_damaged_cache_is_removed_with_a_clear_message(monkeypatch, tmp_path):
    monkeypatch.setenv("MFACT_MODEL_CACHE", str(tmp_path / "models"))
    folder = embedded.cache_path()
    folder.mkdir(parents=True)
    (folder / "mfact-embedded.json").write_text("{}")             # marker, but no model inside
    with pytest.raises(MfactError) as err:
        embedded.load(device="cpu", backend="transformers")
    assert "damaged" in err.value.message and not folder.exists()


@pytest.mark.slow
def test_embedded_default_streams_spanish_through_transformers(model_cache):
    first_run = not embedded.is_prepared()
    events = []
    gen = load_generator(Config(backend="transformers"), on_progress=events.append)
    if first_run:
        assert events and events[-1].done == events[-1].total == embedded.STAGES
    assert gen.backend == "transformers" and gen.prompt_style == "completion"
    prompt = gen.default_prompt("Marie Curie", "es")
    assert prompt == "Este es un artículo de Wikipedia sobre Marie Curie. Marie Curie"
    chunks = list(gen.stream(prompt, DecodingParams(max_tokens=20)))
    text = "".join(c.text for c in chunks)
    assert chunks[-1].done and chunks[-1].stop_reason in ("max_tokens", "eos")
    assert 0 < sum(c.tokens for c in chunks) <= 20
    assert "<eos>" not in text and "<start_of_image>" not in text and "\ufffd" not in text
    assert detect(text)[0] == "es", text
    assert all(c.logprob is not None for c in chunks if c.tokens and not c.done)
    gen.close()


@pytest.mark.slow
def test_a_gguf_file_through_transformers(model_cache):
    gguf = embedded.gguf_path(model_cache / "gguf")
    gen = load_generator(Config(model=str(gguf), device="cpu", backend="transformers"))
    assert gen.backend == "transformers" and gen.prompt_style == "completion"
    chunks = list(gen.stream(gen.default_prompt("Marie Curie", "fr"), DecodingParams(max_tokens=8)))
    assert "".join(c.text for c in chunks).strip() and sum(c.tokens for c in chunks) <= 8
    gen.close()


# --------------------------------------------------------------------------- llama.cpp server


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                    reason="llama-cpp-python[server] is not installed (pip install 'mfact[server]';"
                           " it builds from source, about 8 minutes)")
def test_embedded_gguf_through_llama_cpp_server(model_cache, tmp_path):
    gguf = embedded.gguf_path(model_cache / "gguf")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "1024"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import httpx

        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, "llama_cpp.server exited"
            assert time.monotonic() < deadline, "llama_cpp.server did not start in 120 s"
            time.sleep(0.5)
        gen = load_generator(Config(base_url=f"http://127.0.0.1:{port}/v1", prompt_style="completion"))
        chunks = list(gen.stream(gen.default_prompt("Marie Curie", "es"), DecodingParams(max_tokens=20)))
        text = "".join(c.text for c in chunks)
        assert text.strip() and chunks[-1].stop_reason in ("max_tokens", "eos")
        assert sum(c.tokens for c in chunks) <= 20
        gen.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_truncated_weights_are_a_damaged_cache(monkeypatch, tmp_path, model_cache):
    src = model_cache / embedded.cache_path().name
    if not (src / "mfact-embedded.json").is_file():
        pytest.skip("the embedded model cache is not built yet (the slow test builds it)")
    monkeypatch.setenv("MFACT_MODEL_CACHE", str(tmp_path / "models"))
    folder = embedded.cache_path()
    folder.mkdir(parents=True)
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "mfact-embedded.json"):
        (folder / name).write_bytes((src / name).read_bytes())
    with (src / "model.safetensors").open("rb") as f:
        (folder / "model.safetensors").write_bytes(f.read(4096))
    with pytest.raises(MfactError) as err:
        embedded.load(device="cpu", backend="transformers")
    assert "damaged" in err.value.message and not folder.exists()
