"""Text generators: the embedded default, any transformers model or GGUF file, OpenAI-compatible servers.

    from mfact.core.models import load_generator
    gen = load_generator(cfg, on_progress=print)
    prompt = gen.default_prompt("Marie Curie", "es")
    for chunk in gen.stream(prompt, decoding_params(cfg), stop=event):
        ...

Which backend serves a Config:
- `base_url` set            -> the openai backend (`--model` names the server's model); several
                               URLs (comma-separated, or --base-url repeated) -> a ServerPool
                               balancing over them (core/models/pool.py);
- `model` "embedded" or ""  -> Gemma 3 270M from the PyPI package (safetensors cache on first use);
- anything else             -> transformers: a Hub id, a local model folder or a .gguf file.
"""
from __future__ import annotations

from typing import Any

from ..protocols import DecodingParams, Generator, MfactError, ProgressCallback
from ..session import GeneratorInfo
from .prompts import build_prompt

__all__ = ["load_generator", "decoding_params", "generator_info", "build_prompt", "close_generator"]


def load_generator(cfg: Any, on_progress: ProgressCallback | None = None) -> Generator:
    """The Generator a Config asks for. Raises MfactError (one clear line and a hint) when it cannot."""
    base_url = (getattr(cfg, "base_url", "") or "").strip()
    model = (getattr(cfg, "model", "") or "").strip()
    style = getattr(cfg, "prompt_style", "auto") or "auto"
    if base_url:
        from ..net import Deadlines
        from .openai import OpenAIGenerator
        from .pool import ServerPool, split_urls

        gens = [OpenAIGenerator(url, model=model if model != "embedded" else "",
                                api_key_env=getattr(cfg, "api_key_env", "OPENAI_API_KEY"), prompt_style=style,
                                deadlines=Deadlines.from_config(cfg))
                for url in split_urls(base_url)]
        return gens[0] if len(gens) == 1 else ServerPool(gens)
    if model in ("", "embedded", "default"):
        from . import embedded

        return embedded.load(device=getattr(cfg, "device", "auto"), prompt_style=style,
                             on_progress=on_progress)
    from .hf import load_transformers

    return load_transformers(model, device=getattr(cfg, "device", "auto"),
                             quantize=getattr(cfg, "quantize", "") or "", prompt_style=style,
                             on_progress=on_progress)


def decoding_params(cfg: Any) -> DecodingParams:
    """DecodingParams from a Config (its max_tokens, temperature, top_p, seed, greedy, ...)."""
    d = DecodingParams()
    for name in ("max_tokens", "temperature", "top_p", "seed", "greedy", "repetition_penalty",
                 "stop_on_repeat"):
        if hasattr(cfg, name) and getattr(cfg, name) is not None:
            setattr(d, name, type(getattr(d, name))(getattr(cfg, name)))
    if d.max_tokens < 1:
        raise MfactError(f"--max-tokens must be at least 1, got {d.max_tokens}")
    if not d.greedy and not 0 < d.top_p <= 1:
        raise MfactError(f"--top-p must be in (0, 1], got {d.top_p}")
    if d.temperature < 0:
        raise MfactError(f"--temperature must be >= 0, got {d.temperature}")
    return d


def generator_info(gen: Generator, prompt: str, params: DecodingParams) -> GeneratorInfo:
    """What goes into Session.generator: backend, model, the exact prompt, decoding params, seed."""
    p = params.to_dict()
    p["prompt_style"] = gen.prompt_style
    rendered = gen.render_prompt(prompt)
    if rendered != prompt:
        p["rendered_prompt"] = rendered
    return GeneratorInfo(backend=gen.backend, model=gen.model, prompt=prompt, params=p,
                         seed=params.seed)


def close_generator(gen: Any) -> None:
    """Release a generator's resources (model memory, HTTP connections), when it has any."""
    if gen is not None:
        gen.close()
