"""Text generators: the embedded default, GGUF files, transformers models, OpenAI-compatible servers.

    from mfact.core.models import load_generator
    gen = load_generator(cfg, on_progress=print)
    prompt = gen.default_prompt("Marie Curie", "es")
    for chunk in gen.stream(prompt, decoding_params(cfg), stop=event):
        ...

Which backend serves a Config:
- `base_url` set            -> the openai backend (`--model` names the server's model); several
                               URLs (comma-separated, or --base-url repeated) -> a ServerPool
                               balancing over them (core/models/pool.py);
- `model` "embedded" or ""  -> Gemma 3 270M from the PyPI package, its GGUF run by llama.cpp;
- a `.gguf` file            -> llama.cpp;
- anything else             -> transformers: a Hub id or a local model folder.
`--backend llamacpp|transformers` forces one for local models (transformers de-quantizes a GGUF;
llama.cpp needs a GGUF). With `--backend auto` a GGUF goes to transformers only when a GPU is asked
for or present and the installed llama.cpp binding has no GPU backend (docs/models.md).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..errors import MfactError
from ..protocols import DecodingParams, GeneratorBase, ProgressCallback
from ..session import GeneratorInfo
from .prompts import build_prompt

if TYPE_CHECKING:  # pragma: no cover
    from ..config import Config

__all__ = ["load_generator", "decoding_params", "generator_info", "build_prompt", "close_generator",
           "pick_backend", "BACKENDS", "LOCAL_BACKENDS"]


@dataclass(frozen=True)
class LocalBackend:
    """One way to run a local model: what it is, whether it needs a GGUF file, how to load one."""
    help: str
    load: Callable[[str, Config, ProgressCallback | None], GeneratorBase]
    gguf_only: bool = False


def _load_llamacpp(model: str, cfg: Config, on_progress: ProgressCallback | None) -> GeneratorBase:
    from .llamacpp import load_llamacpp

    return load_llamacpp(model, prompt_style=cfg.decoding.prompt_style, device=cfg.decoding.device,
                         on_progress=on_progress)


def _load_transformers(model: str, cfg: Config, on_progress: ProgressCallback | None) -> GeneratorBase:
    from .hf import Placement, load_transformers

    return load_transformers(model, Placement(cfg.decoding.device, cfg.decoding.quantize or ""),
                             prompt_style=cfg.decoding.prompt_style, on_progress=on_progress)


LOCAL_BACKENDS: dict[str, LocalBackend] = {
    "llamacpp": LocalBackend("llama.cpp in-process (the default for the embedded model and .gguf files)",
                             _load_llamacpp, gguf_only=True),
    "transformers": LocalBackend("Hugging Face transformers (any model; a GGUF is de-quantized on load)",
                                 _load_transformers),
}
BACKENDS = ("auto", *LOCAL_BACKENDS)


def _nvidia_gpu_present() -> bool:
    """A cheap look for an NVIDIA driver (no torch import: that costs seconds)."""
    return os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/nvidia0")


def pick_backend(backend: str, device: str, gguf: bool) -> str:
    """"llamacpp" or "transformers" for a local model (`gguf`: the embedded default or a .gguf)."""
    backend = (backend or "auto").strip().lower()
    if backend not in BACKENDS:
        raise MfactError(f"unknown backend {backend!r}", "use " + ", ".join(BACKENDS[:-1]) + " or " + BACKENDS[-1])
    if backend != "auto":
        return backend
    if not gguf:
        return "transformers"
    device = (device or "auto").strip().lower()
    wants_gpu = device.startswith(("cuda", "mps")) or (device == "auto" and _nvidia_gpu_present())
    if not wants_gpu:
        return "llamacpp"
    from .llamacpp import supports_gpu

    if supports_gpu():
        return "llamacpp"
    if device == "auto":
        # a driver but maybe no CUDA build of torch: transformers only when torch sees the GPU
        try:
            import torch

            return "transformers" if torch.cuda.is_available() else "llamacpp"
        except ImportError:
            return "llamacpp"
    return "transformers"


def _load_servers(cfg: Config) -> GeneratorBase:
    """The openai backend: one server, or a ServerPool balancing over several."""
    from ..net import Deadlines
    from .openai import OpenAIGenerator
    from .pool import ServerPool, split_urls

    model = (cfg.decoding.model or "").strip()
    gens = [OpenAIGenerator(url, model=model if model != "embedded" else "", api_key_env=cfg.network.api_key_env,
                            prompt_style=cfg.decoding.prompt_style or "auto", deadlines=Deadlines.from_config(cfg))
            for url in split_urls(cfg.network.base_url.strip())]
    return gens[0] if len(gens) == 1 else ServerPool(gens)


def load_generator(cfg: Config, on_progress: ProgressCallback | None = None) -> GeneratorBase:
    """The Generator a Config asks for. Raises MfactError (one clear line and a hint) when it cannot."""
    if (cfg.network.base_url or "").strip():
        return _load_servers(cfg)
    model = (cfg.decoding.model or "").strip()
    device = cfg.decoding.device or "auto"
    embedded_default = model in ("", "embedded", "default")
    gguf = embedded_default or model.lower().endswith(".gguf")
    backend = pick_backend(cfg.decoding.backend or "auto", device, gguf)
    kind = LOCAL_BACKENDS[backend]
    if kind.gguf_only and not gguf:
        raise MfactError(f"--backend {backend} needs a GGUF file, not {model!r}",
                         "pass --model embedded or a .gguf file, or use --backend transformers")
    if embedded_default:
        from . import embedded

        return embedded.load(device=device, prompt_style=cfg.decoding.prompt_style or "auto",
                             on_progress=on_progress, backend=backend)
    return kind.load(model, cfg, on_progress)


def decoding_params(cfg: Config) -> DecodingParams:
    """DecodingParams from a Config (its max_tokens, temperature, top_p, seed, greedy, ...)."""
    dec, d = cfg.decoding, DecodingParams()
    d.max_tokens = int(dec.max_tokens)
    d.temperature = float(dec.temperature)
    d.top_p = float(dec.top_p)
    d.seed = int(dec.seed)
    d.greedy = bool(dec.greedy)
    d.repetition_penalty = float(dec.repetition_penalty)
    d.stop_on_repeat = bool(cfg.checking.stop_on_repeat)
    if d.max_tokens < 1:
        raise MfactError(f"--max-tokens must be at least 1, got {d.max_tokens}")
    if not d.greedy and not 0 < d.top_p <= 1:
        raise MfactError(f"--top-p must be in (0, 1], got {d.top_p}")
    if d.temperature < 0:
        raise MfactError(f"--temperature must be >= 0, got {d.temperature}")
    return d


def generator_info(gen: GeneratorBase, prompt: str, params: DecodingParams) -> GeneratorInfo:
    """What goes into Session.generator: backend, model, the exact prompt, decoding params, seed."""
    p = params.to_dict()
    p["prompt_style"] = gen.prompt_style
    runtime = gen.runtime_info()
    if runtime is not None:
        p["runtime"] = runtime          # binding and its version, threads, GPU layers, file
    rendered = gen.render_prompt(prompt)
    if rendered != prompt:
        p["rendered_prompt"] = rendered
    return GeneratorInfo(backend=gen.backend, model=gen.model, prompt=prompt, params=p,
                         seed=params.seed)


def close_generator(gen: GeneratorBase | None) -> None:
    """Release a generator's resources (model memory, HTTP connections), when it has any."""
    if gen is not None:
        gen.close()
