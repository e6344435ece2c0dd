"""The transformers backend: any Hub id, local model folder or `.gguf` file, streamed token by token.

`model.generate` runs in a worker thread; a streamer hands each new token id through a queue to
the caller's iterator, which decodes incrementally (so characters spread over several tokens, as in
Bengali, come out whole) and yields `Chunk`s. A logits processor records each token's
log-probability and the entropy of the next-token distribution (before temperature and top-p), and
a stopping criterion watches the caller's `threading.Event`, so a stop ends generation within one
token. Errors in the worker (CUDA out of memory, ...) are re-raised in the caller as `MfactError`.
"""
from __future__ import annotations

import gc
import logging
import os
import queue
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import MfactError
from ..protocols import BatchResult, Chunk, DecodingParams, Progress
from .local import ChunkBuffer, LocalGenerator

log = logging.getLogger("mfact.models")

ProgressCb = Callable[[Progress], None] | None

# Non-special added tokens that are model control markup, never text (Gemma 3's image markers, ...).
_CONTROL_TOKEN = re.compile(r"^(<(start|end)_of_[a-z_]+>|<image_soft_token>|<unused\d+>|\[multimodal\])$")

_OOM_HINT = "try --quantize 4bit, a smaller model, fewer --max-tokens, or --device cpu"


def _is_oom(exc: BaseException) -> bool:
    import torch

    if isinstance(exc, torch.cuda.OutOfMemoryError):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


# --------------------------------------------------------------------------- incremental decoding


class IncrementalDecoder:
    """Turns token ids into text deltas as they arrive.

    Decodes a short window of recent ids and emits only what is new once it no longer ends in an
    incomplete character (U+FFFD), so multi-byte characters split over tokens come out whole and
    tokenizers that drop a word's leading space at the start of a decode keep it. Control tokens
    (`skip_ids`) are dropped.
    """

    def __init__(self, tokenizer: Any, skip_ids: set[int] | frozenset[int] = frozenset(),
                 context: list[int] | None = None):
        self.tok = tokenizer
        self.skip = skip_ids
        self.ids: list[int] = [i for i in (context or []) if i not in skip_ids][-6:]
        self.prefix = 0
        self.read = len(self.ids)

    def _decode(self, ids: list[int]) -> str:
        return self.tok.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)

    def add(self, token_id: int) -> str:
        if token_id in self.skip:
            return ""
        self.ids.append(token_id)
        before = self._decode(self.ids[self.prefix:self.read])
        after = self._decode(self.ids[self.prefix:])
        if len(after) > len(before) and not after.endswith("\ufffd"):
            delta = after[len(before):]
            self.prefix, self.read = self.read, len(self.ids)
            if len(self.ids) > 64:           # keep the window short (only ids[prefix:] are decoded)
                drop = self.prefix - 6 if self.prefix > 6 else 0
                self.ids = self.ids[drop:]
                self.prefix -= drop
                self.read -= drop
            return delta
        return ""

    def flush(self) -> str:
        """Whatever is still held back (an incomplete character at the very end)."""
        if self.read >= len(self.ids):
            return ""
        before = self._decode(self.ids[self.prefix:self.read])
        after = self._decode(self.ids[self.prefix:])
        self.prefix = self.read = len(self.ids)
        return after[len(before):] if len(after) > len(before) else ""


def control_token_ids(tokenizer: Any) -> set[int]:
    """Ids never rendered as text: special tokens and control markup such as <start_of_image>."""
    ids = {int(i) for i in (getattr(tokenizer, "all_special_ids", None) or [])}
    added = getattr(tokenizer, "added_tokens_decoder", None) or {}
    for i, tok in added.items():
        content = getattr(tok, "content", str(tok))
        if getattr(tok, "special", False) or _CONTROL_TOKEN.match(content):
            ids.add(int(i))
    return ids


# --------------------------------------------------------------------------- CPU threads


def cpu_threads_for(model: Any) -> int | None:
    """torch threads for generating on the CPU: $MFACT_GEN_THREADS when set (0: torch's default);
    else 1 on machines with two cores or fewer, where a second OpenMP thread competing with other
    work made generation 3-4x slower here (docs/models.md); else torch's default (None)."""
    device = getattr(model, "device", None)
    if device is not None and getattr(device, "type", "cpu") != "cpu":
        return None
    env = os.environ.get("MFACT_GEN_THREADS", "").strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            raise MfactError(f"MFACT_GEN_THREADS must be a whole number, got {env!r}") from None
        return n if n > 0 else None
    return 1 if (os.cpu_count() or 1) <= 2 else None


# --------------------------------------------------------------------------- the generator


class HFGenerator(LocalGenerator):
    """A transformers causal LM behind the Generator protocol."""

    def __init__(self, model: Any, tokenizer: Any, name: str, backend: str = "transformers",
                 prompt_style: str = "auto", logprobs: bool = True):
        self.module = model               # the torch model
        self.tokenizer = tokenizer
        self.backend = backend
        super().__init__(name, prompt_style, bool(getattr(tokenizer, "chat_template", None)))
        self.logprobs = logprobs
        self.skip_ids = control_token_ids(tokenizer)
        self.eos_ids = self._eos_ids()
        self.cpu_threads = cpu_threads_for(model)

    def _eos_ids(self) -> list[int]:
        ids: list[int] = []
        gen_cfg = getattr(self.module, "generation_config", None)
        for src in (getattr(gen_cfg, "eos_token_id", None), getattr(self.tokenizer, "eos_token_id", None)):
            if src is None:
                continue
            ids.extend([int(x) for x in src] if isinstance(src, (list, tuple)) else [int(src)])
        if self.prompt_style == "chat":
            for t in ("<end_of_turn>", "<|im_end|>", "<|eot_id|>", "<|end|>"):
                tid = self.tokenizer.convert_tokens_to_ids(t)
                if isinstance(tid, int) and tid != getattr(self.tokenizer, "unk_token_id", None):
                    ids.append(tid)
        return sorted(set(ids))

    def runtime_info(self) -> dict[str, Any]:
        """What a session records about how it was generated, beyond the decoding parameters."""
        info: dict[str, Any] = {"binding": "transformers"}
        try:
            import torch
            import transformers

            info["binding"] = f"transformers {transformers.__version__}"
            info["torch"] = torch.__version__
            info["threads"] = self.cpu_threads or torch.get_num_threads()
            device = getattr(self.module, "device", None)
            info["device"] = str(device) if device is not None else "cpu"
        except Exception:  # noqa: BLE001 - informative only
            pass
        return info

    # ------------------------------------------------------------------ prompts

    def _has_template(self) -> bool:
        return bool(getattr(self.tokenizer, "chat_template", None))

    def _apply_template(self, prompt: str) -> str:
        return str(self.tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True))

    def encode_prompt(self, prompt: str) -> Any:
        rendered = self.render_prompt(prompt)
        templated = rendered is not prompt
        enc = self.tokenizer(rendered, return_tensors="pt", add_special_tokens=not templated)
        device = getattr(self.module, "device", None)
        return {k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask")} \
            if device is not None else dict(enc)

    def _prepare_run(self, params: DecodingParams) -> None:
        """Threads and seeds for one generate call (the caller holds the model lock)."""
        import torch

        if self.cpu_threads:
            torch.set_num_threads(self.cpu_threads)
        torch.manual_seed(int(params.seed))
        if torch.cuda.is_available():
            torch.cuda.manual_seed_all(int(params.seed))

    def generate_kwargs(self, params: DecodingParams) -> dict[str, Any]:
        """The keyword arguments of `model.generate` for these decoding parameters (bench uses them)."""
        kw: dict[str, Any] = dict(max_new_tokens=max(1, int(params.max_tokens)),
                                  eos_token_id=self.eos_ids or None,
                                  pad_token_id=self._pad_id(),
                                  repetition_penalty=float(params.repetition_penalty))
        if params.greedy or params.temperature <= 0:
            kw.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            kw.update(do_sample=True, temperature=float(params.temperature), top_p=float(params.top_p),
                      top_k=0)
        return kw

    def _pad_id(self) -> int | None:
        pad = getattr(self.tokenizer, "pad_token_id", None)
        if pad is None:
            pad = self.eos_ids[0] if self.eos_ids else None
        return pad

    # ------------------------------------------------------------------ streaming

    def stream(self, prompt: str, params: DecodingParams | None = None,
               stop: threading.Event | None = None) -> Iterator[Chunk]:
        params = params or DecodingParams()
        self._check_open()
        inputs = self.encode_prompt(prompt)
        prompt_ids = inputs["input_ids"][0].tolist()
        q: queue.SimpleQueue = queue.SimpleQueue()
        halt = threading.Event()
        kwargs = self.generate_kwargs(params)
        hooks = _stream_hooks(q, halt, stop, self.logprobs)
        model = self.module

        def work() -> None:
            try:
                with self._lock:
                    self._prepare_run(params)
                    model.generate(**inputs, **kwargs, **hooks)
                q.put(("end",))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                q.put(("error", exc))

        worker = threading.Thread(target=work, name="mfact-generate", daemon=True)
        worker.start()
        try:
            yield from self._chunks(q, IncrementalDecoder(self.tokenizer, self.skip_ids, context=prompt_ids),
                                    stop, halt, kwargs["max_new_tokens"])
        finally:
            halt.set()
            worker.join()

    def _chunks(self, q: queue.SimpleQueue, decoder: IncrementalDecoder, user_stop: threading.Event | None,
                halt: threading.Event, max_new: int) -> Iterator[Chunk]:
        """The chunks of the tokens the generation thread puts in `q`, and the last one with the
        stop reason (`halt` is set as soon as the stream has ended)."""
        buf = ChunkBuffer()
        n = 0
        last_id: int | None = None
        reason: str | None = None
        while True:
            item = q.get()
            if item[0] == "error":
                raise self._error(item[1]) from None
            if item[0] == "end":
                break
            _, tid, lp, ent = item
            n += 1
            last_id = tid
            buf.add(lp, ent)
            if user_stop is not None and user_stop.is_set():
                reason = "user"
                break
            if tid in self.eos_ids:
                continue
            delta = decoder.add(tid)
            if delta:
                yield buf.chunk(delta)
            if user_stop is not None and user_stop.is_set():
                reason = "user"
                break
        halt.set()
        if reason is None:
            if user_stop is not None and user_stop.is_set():
                reason = "user"
            elif last_id is not None and last_id in self.eos_ids:
                reason = "eos"
            elif n >= max_new:
                reason = "max_tokens"
            else:
                reason = "eos"
        tail = decoder.flush() if reason != "user" else ""
        yield buf.chunk(tail, done=True, stop_reason=reason)

    # ------------------------------------------------------------------ batches

    def generate_batch(self, prompts: list[str], params: DecodingParams | None = None,
                       stop: threading.Event | None = None,
                       row_stop: Callable[[int, str], str | None] | None = None,
                       on_row: Callable[[int, BatchResult], None] | None = None,
                       check_every: int = 8) -> list[BatchResult]:
        """Generate for several prompts in one `model.generate` call (left padding), not streamed
        (`on_row` is not called: every row is known when the call returns).

        Each result's text is what `stream` would have yielded for that prompt, joined (same
        incremental decoding, control tokens dropped), with its token count (the end-of-sequence
        token included, as in `stream`) and stop reason (eos, max_tokens or user). No log-probs.
        Greedy decoding gives the texts of single runs (up to float rounding on padded rows);
        sampled batches use one random stream seeded with `params.seed` for the whole batch, so
        they are reproducible for the same batch composition, not identical to single runs.
        A set `stop` ends the whole batch within one token (every row: "user").
        `row_stop(row, text_so_far)`, asked every `check_every` tokens for each unfinished row,
        ends that row when it returns a reason (e.g. "repetition", then its stop reason), so a
        row a stream would have stopped early does not run on to max_tokens."""
        import torch

        params = params or DecodingParams()
        self._check_open()
        if not prompts:
            return []
        rows = [self.encode_prompt(p)["input_ids"][0].tolist() for p in prompts]
        ids, mask, width = self._padded(rows)
        ended: dict[int, tuple[int, str]] = {}     # row -> (new tokens kept, reason), from row_stop
        watch = _batch_watch(stop, row_stop, ended, width, self, max(1, int(check_every)))
        kwargs = self.generate_kwargs(params)
        try:
            with self._lock:
                self._prepare_run(params)
                with torch.no_grad():
                    out = self.module.generate(input_ids=ids, attention_mask=mask, **kwargs, stopping_criteria=[watch])
        except BaseException as exc:  # noqa: BLE001 - one clear error
            raise self._error(exc) from None
        stopped = stop is not None and stop.is_set()
        return [self._row_result(rows[i], out[i, width:].tolist(), ended.get(i), stopped, kwargs["max_new_tokens"])
                for i in range(len(rows))]

    def _padded(self, rows: list[list[int]]) -> tuple[Any, Any, int]:
        """The prompts' ids left-padded to one width, their attention mask, and the width."""
        import torch

        width = max(len(r) for r in rows)
        pad = self._pad_id()
        pad = 0 if pad is None else int(pad)
        ids = torch.full((len(rows), width), pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, width - len(r):] = torch.tensor(r, dtype=torch.long)
            mask[i, width - len(r):] = 1
        device = getattr(self.module, "device", None)
        if device is not None:
            ids, mask = ids.to(device), mask.to(device)
        return ids, mask, width

    def _row_result(self, prompt_ids: list[int], new: list[int], ended: tuple[int, str] | None, stopped: bool,
                    max_new: int) -> BatchResult:
        """One row of a batch: its text as `stream` would have given it, its tokens and stop reason."""
        eos = set(self.eos_ids)
        cut = next((j + 1 for j, t in enumerate(new) if t in eos), None)
        if ended is not None and (cut is None or ended[0] < cut):
            cut = None
            new = new[:ended[0]]
        toks = new[:cut] if cut is not None else new
        decoder = IncrementalDecoder(self.tokenizer, self.skip_ids, context=prompt_ids)
        text = "".join(decoder.add(t) for t in toks if t not in eos)
        if cut is not None:
            reason = "eos"
        elif ended is not None:
            reason = ended[1]
        elif stopped:
            reason = "user"
        elif len(toks) >= max_new:
            reason = "max_tokens"
        else:
            reason = "eos"
        if reason != "user":
            text += decoder.flush()
        return BatchResult(text=text, tokens=len(toks), stop_reason=reason)

    # ------------------------------------------------------------------ failures and closing

    def _closed(self) -> bool:
        return self.module is None

    def _known_failure(self, exc: BaseException) -> MfactError | None:
        if _is_oom(exc):
            self._free_cuda()
            return MfactError(f"out of GPU memory while generating with {self.model}", _OOM_HINT)
        return None

    @staticmethod
    def _free_cuda() -> None:
        try:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except Exception:  # noqa: BLE001
            pass

    def close(self) -> None:
        """Release the model's memory (GPU memory included)."""
        self.module = None
        self.tokenizer = None
        gc.collect()
        self._free_cuda()

    def __repr__(self) -> str:
        return f"HFGenerator({self.model!r}, style={self.prompt_style})"


def _stream_hooks(q: queue.SimpleQueue, halt: threading.Event, user_stop: threading.Event | None,
                  want_stats: bool) -> dict[str, Any]:
    """The streamer, logits processor and stopping criterion of one streamed `model.generate`:
    each new token goes into `q` with its log-probability and the entropy of its distribution
    (`want_stats`), and generation stops within one token of `halt` or `user_stop`."""
    import torch
    from transformers import LogitsProcessor, StoppingCriteria
    from transformers.generation.streamers import BaseStreamer

    stats: dict[str, Any] = {}

    class Stats(LogitsProcessor):
        # log p(token) = x[token] - logsumexp(x); entropy = logsumexp(x) - sum(softmax(x) * x)
        def __call__(self, input_ids, scores):
            x = scores[0].float()
            lse = torch.logsumexp(x, dim=-1)
            stats["x"], stats["lse"] = x, lse
            stats["entropy"] = lse - torch.dot(torch.exp(x - lse), x)
            return scores

    class Streamer(BaseStreamer):
        first = True

        def put(self, value):
            if self.first:              # the prompt
                self.first = False
                return
            tid = int(value.reshape(-1)[0])
            lp = ent = None
            if "x" in stats:
                x, lse = stats.pop("x"), stats.pop("lse")
                lp = float(x[tid] - lse)
                ent = float(stats.pop("entropy"))
                if ent != ent:          # NaN: masked (-inf) logits; the slower exact form
                    ent = float(torch.special.entr(torch.softmax(x, dim=-1)).sum())
            q.put(("tok", tid, lp, ent))

        def end(self):
            pass

    class Watch(StoppingCriteria):
        def __call__(self, input_ids, scores, **kwargs):
            done = halt.is_set() or (user_stop is not None and user_stop.is_set())
            return torch.full((input_ids.shape[0],), done, dtype=torch.bool, device=input_ids.device)

    return {"streamer": Streamer(), "logits_processor": [Stats()] if want_stats else None,
            "stopping_criteria": [Watch()]}


def _batch_watch(user_stop: threading.Event | None, row_stop: Callable[[int, str], str | None] | None,
                 ended: dict[int, tuple[int, str]], width: int, gen: Any, every: int) -> Any:
    """The stopping criterion of a batch of `gen` (its end-of-text ids, tokenizer and skipped ids):
    `user_stop` ends every row; `row_stop`, asked every `every` tokens, ends a row (recorded in `ended`)."""
    eos, tokenizer, skip = set(gen.eos_ids), gen.tokenizer, gen.skip_ids
    import torch
    from transformers import StoppingCriteria

    class Watch(StoppingCriteria):
        def __call__(self, input_ids, scores, **kwargs):
            done = user_stop is not None and user_stop.is_set()
            flags = torch.full((input_ids.shape[0],), done, dtype=torch.bool, device=input_ids.device)
            n = input_ids.shape[1] - width
            if row_stop is None or done or n == 0 or n % every:
                return flags
            for i in range(input_ids.shape[0]):
                if i in ended:
                    flags[i] = True
                    continue
                new = input_ids[i, width:].tolist()
                if any(t in eos for t in new):
                    continue        # finished by itself
                text = tokenizer.decode([t for t in new if t not in skip], skip_special_tokens=False,
                                        clean_up_tokenization_spaces=False)
                why = row_stop(i, text)
                if why:
                    ended[i] = (n, str(why))
                    flags[i] = True
            return flags

    return Watch()


# --------------------------------------------------------------------------- loading


def pick_device(spec: str = "auto") -> tuple[str, Any]:
    """(device, dtype) for `--device`: auto = CUDA in bfloat16 when available, else CPU float32."""
    import torch

    spec = (spec or "auto").strip().lower()
    if spec == "auto":
        if torch.cuda.is_available():
            return "cuda", torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return "cpu", torch.float32
    if spec.startswith("cuda"):
        if not torch.cuda.is_available():
            raise MfactError(f"--device {spec}: no CUDA GPU is visible to torch",
                             "install a CUDA build of torch (see README) or use --device cpu")
        return spec, torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if spec == "mps":
        if not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
            raise MfactError("--device mps: Apple Metal is not available here", "use --device cpu")
        return "mps", torch.float16
    if spec == "cpu":
        return "cpu", torch.float32
    raise MfactError(f"unknown device {spec!r}", "use auto, cpu, cuda, cuda:N or mps")


_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$")


def _check_hub(model_id: str) -> None:
    """Fail fast (< 3 s) with a clear message when a Hub id can neither be found locally nor fetched."""
    if not _REPO_ID.match(model_id):
        raise MfactError(f"model {model_id!r} is neither an existing file or folder nor a Hugging Face id",
                         "pass 'embedded', a Hub id such as google/gemma-3-1b-it, a model folder or a .gguf file")
    try:
        from huggingface_hub import constants, try_to_load_from_cache
    except ImportError:  # pragma: no cover - transformers depends on it
        return
    cached = try_to_load_from_cache(model_id, "config.json")
    if isinstance(cached, str):
        return
    offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on") or \
        os.environ.get("TRANSFORMERS_OFFLINE", "").lower() in ("1", "true", "yes", "on")
    if offline:
        raise MfactError(f"model {model_id!r} is not in the Hugging Face cache and downloads are off"
                         " (HF_HUB_OFFLINE)",
                         "download it once with network, or pass a local folder, a .gguf file or 'embedded'")
    import httpx

    url = f"{constants.ENDPOINT.rstrip('/')}/api/models/{model_id}"
    try:
        r = httpx.get(url, timeout=httpx.Timeout(2.5), follow_redirects=True)
    except httpx.HTTPError as exc:
        raise MfactError(f"model {model_id!r} is not cached here and the Hugging Face Hub cannot be reached"
                         f" ({type(exc).__name__})",
                         "connect to the network once to download it, or pass a local folder, a .gguf file"
                         " or 'embedded'") from None
    if r.status_code in (401, 403):
        raise MfactError(f"model {model_id!r} is gated or private on the Hugging Face Hub",
                         "accept its licence on huggingface.co and log in with `hf auth login`")
    if r.status_code == 404:
        raise MfactError(f"no model {model_id!r} on the Hugging Face Hub", "check the id (owner/name)")


def _model_source(spec: str) -> tuple[str, str | None]:
    """(what to load from, the GGUF file in it or None) for `--model`: a .gguf file, a local model
    folder or a Hub id."""
    if not spec:
        raise MfactError("no model given", "pass --model embedded, a Hub id, a folder or a .gguf file")
    path = Path(spec).expanduser()
    if spec.lower().endswith(".gguf"):
        if not path.is_file():
            raise MfactError(f"GGUF file not found: {path}", "check the path, or pass --model embedded")
        return str(path.parent), path.name
    if path.exists():
        if not path.is_dir() or not (path / "config.json").is_file():
            raise MfactError(f"{path} is not a transformers model folder (no config.json)",
                             "pass a folder saved with save_pretrained, a .gguf file or a Hub id")
        return str(path), None
    if spec.startswith(("/", ".", "~")) or spec.count("/") > 1:
        raise MfactError(f"model folder not found: {path}", "check the path")
    _check_hub(spec)
    return spec, None


def _quantization(quantize: str, dev: str, dtype: Any) -> Any:
    """The bitsandbytes config of `--quantize` (None without it)."""
    if not quantize:
        return None
    if not dev.startswith("cuda"):
        raise MfactError(f"--quantize {quantize} needs a CUDA GPU", "drop --quantize or use --device cuda")
    try:
        import bitsandbytes  # noqa: F401
        from transformers import BitsAndBytesConfig
    except ImportError:
        raise MfactError("--quantize needs bitsandbytes", "pip install 'mfact[quant]'") from None
    if quantize == "4bit":
        return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=dtype)
    if quantize == "8bit":
        return BitsAndBytesConfig(load_in_8bit=True)
    raise MfactError(f"unknown --quantize {quantize!r}", "use 4bit or 8bit")


@dataclass(frozen=True)
class Placement:
    """Where a model's weights go and in what form: `--device` (auto: CUDA in bfloat16 when
    available, else CPU float32) and `--quantize` ("", 4bit or 8bit)."""
    device: str = "auto"
    quantize: str = ""


def load_transformers(spec: str, placement: Placement = Placement(), prompt_style: str = "auto",
                      on_progress: ProgressCb = None, name: str | None = None,
                      backend: str = "transformers") -> HFGenerator:
    """Load a Hub id, a local model folder or a `.gguf` file with transformers."""
    spec = str(spec).strip()
    source, gguf_file = _model_source(spec)
    dev, dtype = pick_device(placement.device)
    qconfig = _quantization(placement.quantize, dev, dtype)

    def progress(stage: str, done: float, total: float | None, message: str) -> None:
        if on_progress is not None:
            on_progress(Progress(stage=stage, done=done, total=total, message=message))

    from transformers import AutoModelForCausalLM, AutoTokenizer

    extra: dict[str, Any] = {"gguf_file": gguf_file} if gguf_file else {}
    try:
        progress("load", 0, 2, f"loading tokenizer of {spec}")
        tokenizer = AutoTokenizer.from_pretrained(source, **extra)
        progress("load", 1, 2, f"loading {spec} on {dev}")
        kwargs: dict[str, Any] = dict(dtype=dtype, **extra)
        if qconfig is not None:
            kwargs["quantization_config"] = qconfig
        if dev != "cpu":
            kwargs["device_map"] = {"": dev}
        model = AutoModelForCausalLM.from_pretrained(source, **kwargs)
        model.eval()
        progress("load", 2, 2, f"{spec} ready")
    except MfactError:
        raise
    except Exception as exc:  # noqa: BLE001 - turned into one clear line
        if _is_oom(exc):
            HFGenerator._free_cuda()
            raise MfactError(f"out of GPU memory while loading {spec}", _OOM_HINT) from None
        if isinstance(exc, (OSError, ValueError)) and ("connect" in str(exc).lower()
                                                      or "offline" in str(exc).lower()):
            raise MfactError(f"cannot load model {spec!r}: it is not fully downloaded and the Hub cannot"
                             " be reached", "connect once to download it, or pass a local model") from None
        log.error("loading %s failed", spec, exc_info=exc)
        raise MfactError(f"cannot load model {spec!r}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}",
                         "is it a causal language model? details are in the log") from None
    return HFGenerator(model, tokenizer, name=name or spec, backend=backend, prompt_style=prompt_style)
