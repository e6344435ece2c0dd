"""The transformers backend on tiny randomly-initialised models built in the test (no downloads)."""
from __future__ import annotations

import json
import threading
import time

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from _loopback import free_port  # noqa: E402
from _tiny_lm import CORPUS, build_model, build_tokenizer, save_tiny  # noqa: E402

from mfact.core.config import Config  # noqa: E402
from mfact.core.models import decoding_params, generator_info, load_generator  # noqa: E402
from mfact.core.models.hf import HFGenerator, IncrementalDecoder, control_token_ids  # noqa: E402
from mfact.core.errors import MfactError
from mfact.core.protocols import DecodingParams, Generator

PROMPT = "This is a Wikipedia article about Marie Curie. Marie Curie"


@pytest.fixture(scope="module")
def tok():
    return build_tokenizer()


@pytest.fixture(scope="module")
def gpt2(tok):
    return build_model(tok, arch="gpt2")


def _gen_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mfact-generate" and t.is_alive()]


def _bare(model, tok, gen: HFGenerator, params: DecodingParams) -> list[int]:
    enc = tok(PROMPT, return_tensors="pt")
    torch.manual_seed(params.seed)
    out = model.generate(**enc, **gen.generate_kwargs(params))
    return out[0, enc["input_ids"].shape[1]:].tolist()


@pytest.mark.parametrize("arch", ["gpt2", "gemma3"])
def test_stream_equals_bare_generate(tok, arch):
    model = build_model(tok, arch=arch)
    gen = HFGenerator(model, tok, name=f"tiny-{arch}")
    assert isinstance(gen, Generator)
    params = DecodingParams(max_tokens=24, greedy=True)
    chunks = list(gen.stream(PROMPT, params))
    ids = _bare(model, tok, gen, params)
    assert [c.done for c in chunks] == [False] * (len(chunks) - 1) + [True]
    assert chunks[-1].stop_reason == "max_tokens"
    assert sum(c.tokens for c in chunks) == len(ids) == 24
    assert "".join(c.text for c in chunks) == tok.decode(ids, skip_special_tokens=True)
    body = [c for c in chunks if c.tokens]
    assert all(c.logprob is not None and c.logprob <= 0 for c in body)
    assert all(c.entropy is not None and c.entropy >= 0 for c in body)


def test_logprob_and_entropy_are_the_models(tok, gpt2):
    gen = HFGenerator(gpt2, tok, name="tiny")
    params = DecodingParams(max_tokens=12, greedy=True)
    chunks = [c for c in gen.stream(PROMPT, params) if c.tokens]
    enc = tok(PROMPT, return_tensors="pt")
    out = gpt2.generate(**enc, **gen.generate_kwargs(params), return_dict_in_generate=True, output_logits=True)
    ids = out.sequences[0, enc["input_ids"].shape[1]:].tolist()
    logp = [torch.log_softmax(step[0].float(), -1) for step in out.logits]
    token_lp = [float(lp[t]) for lp, t in zip(logp, ids)]
    ent = [float(-(lp.exp() * lp).sum()) for lp in logp]
    i = 0
    for c in chunks:                       # a chunk sums its tokens' logprobs, averages entropy
        assert c.logprob == pytest.approx(sum(token_lp[i:i + c.tokens]), abs=1e-4)
        assert c.entropy == pytest.approx(sum(ent[i:i + c.tokens]) / c.tokens, abs=1e-4)
        i += c.tokens
    assert i == len(ids)


def test_sampling_follows_the_seed(tok, gpt2):
    gen = HFGenerator(gpt2, tok, name="tiny")
    a = "".join(c.text for c in gen.stream(PROMPT, DecodingParams(max_tokens=20, seed=3, temperature=1.0)))
    b = "".join(c.text for c in gen.stream(PROMPT, DecodingParams(max_tokens=20, seed=3, temperature=1.0)))
    c = "".join(c.text for c in gen.stream(PROMPT, DecodingParams(max_tokens=20, seed=4, temperature=1.0)))
    assert a == b
    assert a != c
    ids = _bare(gpt2, tok, gen, DecodingParams(max_tokens=20, seed=3, temperature=1.0))
    assert a == tok.decode(ids, skip_special_tokens=True)


def test_eos_ends_the_stream_and_is_not_text(tok):
    model = build_model(tok)
    probe = HFGenerator(model, tok, name="tiny")
    ids = _bare(model, tok, probe, DecodingParams(max_tokens=40, greedy=True))
    k = next(i for i, t in enumerate(ids) if t not in ids[:i] and i > 0)
    model.generation_config.eos_token_id = ids[k]        # pretend this token is the model's end
    gen = HFGenerator(model, tok, name="tiny")
    chunks = list(gen.stream(PROMPT, DecodingParams(max_tokens=40, greedy=True)))
    assert chunks[-1].done and chunks[-1].stop_reason == "eos"
    assert sum(c.tokens for c in chunks) == k + 1
    assert "".join(c.text for c in chunks) == tok.decode(ids[:k])


@pytest.mark.parametrize("text", [CORPUS[3], CORPUS[4], "Marie Curie (1867–1934) — physicienne"])
def test_incremental_decoding_keeps_multibyte_characters_whole(tok, text):
    ids = tok(text)["input_ids"]
    assert len(ids) > len(text.split())                  # characters really are split over tokens
    dec = IncrementalDecoder(tok)
    deltas = [dec.add(i) for i in ids]
    deltas.append(dec.flush())
    assert "".join(deltas) == text
    assert not any("\ufffd" in d for d in deltas)


def test_control_tokens_are_never_text():
    tok = build_tokenizer()
    tok.add_tokens(["<start_of_image>", "<h2>"])
    image = tok.convert_tokens_to_ids("<start_of_image>")
    h2 = tok.convert_tokens_to_ids("<h2>")
    skip = control_token_ids(tok)
    assert image in skip and tok.eos_token_id in skip
    assert h2 not in skip                                  # markup is text; clean_text drops it later
    dec = IncrementalDecoder(tok, skip)
    ids = tok("Marie")["input_ids"] + [image, tok.eos_token_id, h2] + tok(" Curie")["input_ids"]
    out = "".join(dec.add(i) for i in ids) + dec.flush()
    assert out == "Marie<h2> Curie"


def test_stop_from_another_thread_within_one_token(tok, gpt2):
    gen = HFGenerator(gpt2, tok, name="tiny")
    stop = threading.Event()
    it = gen.stream(PROMPT, DecodingParams(max_tokens=400, temperature=1.0), stop=stop)
    first = next(c for c in it if c.text)
    assert not first.done
    setter = threading.Thread(target=stop.set)
    setter.start()
    setter.join()
    last = next(it)                                   # the very next chunk is the end
    assert last.done and last.stop_reason == "user"
    with pytest.raises(StopIteration):
        next(it)
    assert not _gen_threads()


def test_stop_while_generating_returns_quickly(tok, gpt2):
    gen = HFGenerator(gpt2, tok, name="tiny")
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    t0 = time.monotonic()
    chunks = list(gen.stream(PROMPT, DecodingParams(max_tokens=100000, temperature=1.0), stop=stop))
    assert time.monotonic() - t0 < 3
    assert chunks[-1].stop_reason == "user"
    assert not _gen_threads()


def test_abandoned_stream_ends_its_worker(tok, gpt2):
    gen = HFGenerator(gpt2, tok, name="tiny")
    it = gen.stream(PROMPT, DecodingParams(max_tokens=100000, temperature=1.0))
    next(it)
    next(it)
    it.close()
    assert not _gen_threads()


def test_cuda_out_of_memory_is_one_clear_error(tok, monkeypatch):
    model = build_model(tok)
    gen = HFGenerator(model, tok, name="tiny")

    def oom(*args, **kwargs):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")

    monkeypatch.setattr(model, "forward", oom)
    t0 = time.monotonic()
    with pytest.raises(MfactError) as err:
        list(gen.stream(PROMPT, DecodingParams(max_tokens=50)))
    assert time.monotonic() - t0 < 3
    assert "out of GPU memory" in err.value.message and "--quantize" in err.value.hint
    assert not _gen_threads()


def test_chat_template_picks_chat_style(tok, gpt2):
    chat_tok = build_tokenizer()
    chat_tok.chat_template = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
                              "{% if add_generation_prompt %}<|assistant|>{% endif %}")
    gen = HFGenerator(gpt2, chat_tok, name="tiny-chat")
    assert gen.prompt_style == "chat"
    prompt = gen.default_prompt("Marie Curie", "es")
    assert prompt == "Cuéntame la biografía de Marie Curie."
    assert gen.render_prompt(prompt) == f"<|user|>{prompt}\n<|assistant|>"
    info = generator_info(gen, prompt, DecodingParams())
    assert info.params["rendered_prompt"].endswith("<|assistant|>") and info.prompt == prompt
    forced = HFGenerator(gpt2, chat_tok, name="tiny-chat", prompt_style="completion")
    assert forced.default_prompt("Marie Curie", "es").endswith("sobre Marie Curie. Marie Curie")
    assert list(gen.stream(prompt, DecodingParams(max_tokens=3, greedy=True)))[-1].done


# --------------------------------------------------------------------------- loading and bad input


def test_load_generator_from_a_local_folder(tmp_path):
    folder = save_tiny(tmp_path / "tiny")
    gen = load_generator(Config(model=str(folder), device="cpu"))
    assert gen.backend == "transformers" and gen.model == str(folder)
    chunks = list(gen.stream(gen.default_prompt("Marie Curie", "fr"), DecodingParams(max_tokens=5)))
    assert sum(c.tokens for c in chunks) == 5 and chunks[-1].stop_reason == "max_tokens"
    gen.close()
    with pytest.raises(MfactError):
        list(gen.stream("x", DecodingParams(max_tokens=2)))


def _fails_fast(cfg: Config) -> MfactError:
    t0 = time.monotonic()
    with pytest.raises(MfactError) as err:
        load_generator(cfg)
    assert time.monotonic() - t0 < 3, "a bad model must fail within 3 s"
    return err.value


def test_missing_gguf_file(tmp_path):
    err = _fails_fast(Config(model=str(tmp_path / "missing.gguf")))
    assert "GGUF file not found" in err.message and "missing.gguf" in err.message


def test_missing_model_folder(tmp_path):
    err = _fails_fast(Config(model=str(tmp_path / "no" / "such" / "folder")))
    assert "not found" in err.message


def test_folder_that_is_not_a_model(tmp_path):
    (tmp_path / "empty").mkdir()
    err = _fails_fast(Config(model=str(tmp_path / "empty")))
    assert "no config.json" in err.message


def test_unknown_hub_id_offline():
    err = _fails_fast(Config(model="mfact-tests/no-such-model-xyz"))
    assert "no-such-model-xyz" in err.message and "offline" in err.message.lower() or "HF_HUB_OFFLINE" in err.message


def test_unknown_hub_id_with_no_network(monkeypatch):
    from huggingface_hub import constants

    port = free_port()                               # a loopback port nobody listens on
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "0")
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{port}")
    err = _fails_fast(Config(model="mfact-tests/no-such-model-xyz"))
    assert "cannot be reached" in err.message and "local folder" in err.hint


def test_quantize_needs_a_gpu(tmp_path):
    folder = save_tiny(tmp_path / "tiny")
    err = _fails_fast(Config(model=str(folder), device="cpu", quantize="4bit"))
    assert "needs a CUDA GPU" in err.message


def test_cpu_threads_setting(tok, gpt2, monkeypatch):
    from mfact.core.models.hf import cpu_threads_for

    monkeypatch.setenv("MFACT_GEN_THREADS", "3")
    assert cpu_threads_for(gpt2) == 3
    monkeypatch.setenv("MFACT_GEN_THREADS", "0")
    assert cpu_threads_for(gpt2) is None
    monkeypatch.setenv("MFACT_GEN_THREADS", "many")
    with pytest.raises(MfactError):
        cpu_threads_for(gpt2)
    monkeypatch.delenv("MFACT_GEN_THREADS")
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert cpu_threads_for(gpt2) == 1
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    assert cpu_threads_for(gpt2) is None


def test_bad_decoding_options():
    with pytest.raises(MfactError):
        decoding_params(Config(max_tokens=0))
    with pytest.raises(MfactError):
        decoding_params(Config(top_p=1.5))
    p = decoding_params(Config(max_tokens=7, temperature=0.2, greedy=True, seed=5))
    assert (p.max_tokens, p.temperature, p.greedy, p.seed) == (7, 0.2, True, 5)


def test_device_errors():
    from mfact.core.models.hf import pick_device

    assert pick_device("cpu")[0] == "cpu"
    with pytest.raises(MfactError):
        pick_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(MfactError) as err:
            pick_device("cuda")
        assert "--device cpu" in err.value.hint


# --------------------------------------------------------------------------- the generate command


def test_generate_command_streams_and_ends_with_the_session_json(tmp_path, capsys):
    from mfact.core.cli import main
    from mfact.core.session import Session

    folder = save_tiny(tmp_path / "tiny")
    rc = main(["generate", "--lang", "es", "--entity", "Marie  Curie", "--model", str(folder),
               "--max-tokens", "6", "--json"])
    out = capsys.readouterr().out
    assert rc == 0
    lines = out.rstrip("\n").split("\n")
    doc = json.loads(lines[-1])
    s = Session.from_dict(doc)
    assert doc["schema"] == "mfact.session/1"
    assert s.language == "es" and s.entity.name == "Marie Curie"
    assert s.generator.backend == "transformers" and s.generator.model == str(folder)
    assert s.generator.prompt == "Este es un artículo de Wikipedia sobre Marie Curie. Marie Curie"
    assert s.generator.params["max_tokens"] == 6 and s.generator.params["temperature"] == 0.6
    assert s.generator.seed == 0
    assert s.tokens == 6 and s.stop_reason == "max_tokens"
    from mfact.core.commands.generate import terminal_safe

    assert out.startswith(terminal_safe(s.raw_text or s.text))


def test_generate_command_bad_input(tmp_path, capsys):
    from mfact.core.cli import main

    assert main(["generate", "--lang", "xx", "--entity", "Marie Curie"]) == 1
    assert "unknown language" in capsys.readouterr().err
    assert main(["generate", "--lang", "es", "--entity", "A", "--model", str(tmp_path / "m.gguf")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "GGUF file not found" in err


def test_terminal_safe_drops_escapes():
    from mfact.core.commands.generate import terminal_safe

    assert terminal_safe("a\x1b[31mred\x1b[0m\x07 b\nc\td\x9b") == "ared b\nc\td"


def test_ctrl_c_stops_generate_and_keeps_the_text(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    folder = save_tiny(tmp_path / "tiny")
    proc = subprocess.Popen(
        [sys.executable, "-m", "mfact.core.cli", "generate", "--lang", "en", "--entity", "Marie Curie",
         "--model", str(folder), "--max-tokens", "1000000", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout.read(1)                    # streaming has begun
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err.decode()
    doc = json.loads(out.decode().rstrip("\n").split("\n")[-1])
    assert doc["stop_reason"] == "user" and 0 < doc["tokens"] < 1000000
