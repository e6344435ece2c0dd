"""The llama.cpp backend: GGUF files generated in-process through the `cyllama` binding.

`cyllama` is a manylinux wheel that bundles llama.cpp (no compiler, installs in seconds); mfact uses
its low-level classes (model, context, sampler chain, batch) and runs the token loop itself, so
that it controls every step:

- streaming: `stream` is a plain generator in the caller's thread (llama.cpp releases the GIL
  while it computes a token), text decoded incrementally so characters spread over several tokens
  (Bengali, emoji) come out whole; control tokens are dropped;
- stopping: the caller's `threading.Event` is checked before every token (and between prompt
  chunks), so a stop ends generation within one token;
- sampling: temperature, then top-p, then a seeded draw, as transformers does it (the paper's
  T 0.6 / top-p 0.9), or greedy; a repetition penalty when asked. A seed and settings give the
  same text every time;
- log-probabilities: when `DecodingParams.logprobs` asks for them (the LLM judge does), each
  token's log-probability and the entropy of the next-token distribution (before temperature and
  top-p) are computed from the logits. The binding copies the whole vocabulary's logits into a
  Python list (Gemma: 262,144 floats, about 30 ms a token), so they are off for ordinary generation;
- batches: `generate_batch` decodes several prompts as separate sequences of one llama.cpp batch,
  each with its own sampler seeded like a single run.

The binding's `get_logits*` call `model.n_vocab`, which its model class lacks in 0.2.18; a subclass
supplies it.
"""
from __future__ import annotations

import logging
import math
import os
import re
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import MfactError
from ..protocols import BatchResult, Chunk, DecodingParams, Progress
from .hf import IncrementalDecoder
from .local import ChunkBuffer, LocalGenerator

log = logging.getLogger("mfact.models")

ProgressCb = Callable[[Progress], None] | None

BINDING = "cyllama"
# Non-special tokens that are model markup, never text (Gemma 3's image markers, ...).
_CONTROL_TEXT = re.compile(r"^(<(start|end)_of_[a-z_]+>|<image_soft_token>|<unused\d+>|\[multimodal\])$")
_BYTE_TOKEN = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")
PREFILL_CHUNK = 256          # prompt tokens per decode call: a stop is seen between chunks
DEFAULT_CTX = 2048


# --------------------------------------------------------------------------- the binding


_ll: Any = None
_ll_lock = threading.Lock()


def binding() -> Any:
    """The binding's low-level module (imported on first use, logging of llama.cpp silenced)."""
    global _ll
    with _ll_lock:
        if _ll is None:
            try:
                import cyllama.llama.llama_cpp as ll
            except ImportError as exc:
                raise MfactError(f"the llama.cpp backend needs the package cyllama ({exc})",
                                 "pip install 'cyllama==0.2.18', or use --backend transformers") from None
            ll.disable_logging()
            ll.ggml_backend_load_all()
            _ll = ll
    return _ll


def binding_version() -> dict[str, str]:
    """{"binding": "cyllama 0.2.18", "llama_cpp": "b9190"} (what a session records)."""
    out = {"binding": BINDING}
    try:
        from importlib.metadata import version

        out["binding"] = f"{BINDING} {version(BINDING)}"
    except Exception:  # noqa: BLE001 - not installed as a distribution
        pass
    try:
        import json
        from importlib.util import find_spec

        spec = find_spec(BINDING)
        if spec and spec.submodule_search_locations:
            cfg = Path(list(spec.submodule_search_locations)[0]) / "build_config.json"
            versions = json.loads(cfg.read_text(encoding="utf-8")).get("versions", {})
            if versions.get("llama_cpp_version"):
                out["llama_cpp"] = str(versions["llama_cpp_version"])
    except Exception:  # noqa: BLE001 - the version is informative only
        pass
    return out


def supports_gpu() -> bool:
    """Whether the installed binding was built with a GPU backend (CUDA, Metal, Vulkan, ...)."""
    try:
        return bool(binding().llama_supports_gpu_offload())
    except MfactError:
        return False


def gen_threads() -> int:
    """llama.cpp threads for generating: $MFACT_GEN_THREADS when set, else 1 on machines with two
    cores or fewer (generation and the verifier share them; bench/threads.py measured 1 + 1 as the
    fastest end-to-end check there, docs/models.md), else half the cores (at most 8)."""
    env = os.environ.get("MFACT_GEN_THREADS", "").strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            raise MfactError(f"MFACT_GEN_THREADS must be a whole number, got {env!r}") from None
        if n > 0:
            return n
    cores = os.cpu_count() or 1
    return 1 if cores <= 2 else max(1, min(8, cores // 2))


# --------------------------------------------------------------------------- text


class _Detok(IncrementalDecoder):
    """Token ids -> text deltas through llama.cpp's vocabulary (the window logic is transformers')."""

    def __init__(self, vocab: Any, context: list[int] | None = None):
        super().__init__(None, frozenset(), context)
        self.vocab = vocab

    def _decode(self, ids: list[int]) -> str:
        if not ids:
            return ""
        return self.vocab.detokenize(ids, remove_special=False, unparse_special=False)


def _stats(logits: Any, tid: int) -> tuple[float, float]:
    """(log p(tid), entropy) of the next-token distribution given raw logits."""
    import numpy as np

    x = np.asarray(logits, dtype=np.float32)
    m = float(x.max())
    e = np.exp(x - m)
    z = float(e.sum())
    lse = m + math.log(z)
    ent = lse - float(np.dot(e, x)) / z
    return float(x[tid]) - lse, max(0.0, ent)


# --------------------------------------------------------------------------- the generator


class _Contexts:
    """A model's llama.cpp contexts, kept between runs: one for a single sequence (grown to what a
    run needs) and one for batches (remade for another number of rows or a bigger need)."""

    def __init__(self, model: Any, threads: int, min_ctx: int, name: str):
        self.model, self.threads, self.min_ctx, self.name = model, threads, min_ctx, name
        self._ctx: Any = None
        self._ctx_size = 0
        self._batch_ctx: Any = None
        self._batch_ctx_shape = (0, 0)

    def drop(self) -> None:
        """Make the next run build its contexts anew (another thread count, say)."""
        self._ctx = self._batch_ctx = None
        self._ctx_size, self._batch_ctx_shape = 0, (0, 0)

    def clear(self) -> None:
        self.drop()
        self.model = None

    def single(self, need: int) -> Any:
        """The single-sequence context, big enough for `need` positions (reused between runs)."""
        ll = binding()
        if self._ctx is not None and self._ctx_size >= need:
            self._ctx.kv_cache_clear()
            return self._ctx
        size = max(self.min_ctx, 1 << max(8, (need - 1).bit_length()))
        self._ctx = None
        self._ctx = self._new(ll, size, 1)
        self._ctx_size = size
        return self._ctx

    def batch(self, n_seq: int, need: int) -> Any:
        """The context of a batch of `n_seq` rows needing `need` positions in all."""
        if self._batch_ctx is None or self._batch_ctx_shape[0] != n_seq or self._batch_ctx_shape[1] < need:
            size = 1 << max(8, (need - 1).bit_length())
            self._batch_ctx = None
            self._batch_ctx = self._new(binding(), size, n_seq)
            self._batch_ctx_shape = (n_seq, size)
        else:
            self._batch_ctx.kv_cache_clear()
        return self._batch_ctx

    def _new(self, ll: Any, n_ctx: int, n_seq: int) -> Any:
        p = ll.LlamaContextParams()
        p.n_ctx = int(n_ctx)
        p.n_batch = max(PREFILL_CHUNK, 64 * n_seq) if n_seq > 1 else PREFILL_CHUNK
        p.n_ubatch = p.n_batch
        p.n_seq_max = int(n_seq)
        p.n_threads = self.threads
        p.n_threads_batch = self.threads
        p.no_perf = True
        if n_seq > 1:
            p.kv_unified = True
        try:
            return ll.LlamaContext(self.model, p)
        except Exception as exc:  # noqa: BLE001
            raise MfactError(f"llama.cpp cannot make a context of {n_ctx} tokens for {self.name}:"
                             f" {type(exc).__name__}: {exc}", "use fewer --max-tokens") from None


def _sampler(params: DecodingParams) -> Any:
    ll = binding()
    s = ll.LlamaSampler(ll.LlamaSamplerChainParams())
    if float(params.repetition_penalty) != 1.0:
        # over every generated token, as transformers' repetition_penalty (the prompt aside)
        s.add_penalties(max(64, _limit(params)), float(params.repetition_penalty), 0.0, 0.0)
    if params.greedy or params.temperature <= 0:
        s.add_greedy()
    else:
        # transformers' order (the paper's): temperature, then top-p on the tempered
        # distribution, then the seeded draw
        s.add_temp(float(params.temperature))
        if float(params.top_p) < 1.0:
            s.add_top_p(float(params.top_p), 1)
        s.add_dist(int(params.seed) & 0xFFFFFFFF)
    return s

def _limit(params: DecodingParams) -> int:
    return max(1, int(params.max_tokens))

def _prefill(ctx: Any, ids: list[int], stop: threading.Event | None) -> bool:
    """Decode the prompt in chunks; False when stopped before it was done."""
    ll = binding()
    for i in range(0, len(ids), PREFILL_CHUNK):
        if stop is not None and stop.is_set():
            return False
        ctx.decode(ll.llama_batch_get_one(ids[i:i + PREFILL_CHUNK], i))
    return True


def _prefill_rows(ctx: Any, batch: Any, rows: list[list[int]], n_batch: int, stop: threading.Event | None) -> bool:
    """Decode a batch's prompts: every prompt but its last token in chunks (no logits), then one
    step with each prompt's last token (logits for all rows come from that one decode). False when
    stopped first."""
    k = 0
    for r, ids in enumerate(rows):
        for i, t in enumerate(ids[:-1]):
            if k == n_batch:
                if stop is not None and stop.is_set():
                    return False
                ctx.decode(batch)
                batch.clear()
                k = 0
            batch.add(t, i, [r], False)
            k += 1
    if k:
        ctx.decode(batch)
        batch.clear()
    for r, ids in enumerate(rows):
        batch.add(ids[-1], len(ids) - 1, [r], True)
    ctx.decode(batch)
    return True


class LlamaCppGenerator(LocalGenerator):
    """A GGUF model run in-process by llama.cpp, behind the Generator protocol."""

    backend = "llamacpp"

    def __init__(self, path: str | Path, name: str | None = None, prompt_style: str = "auto",
                 threads: int | None = None, gpu_layers: int = 0, n_ctx: int = DEFAULT_CTX):
        ll = binding()
        path = Path(path)
        self.path = path
        self.threads = int(threads or gen_threads())
        self.gpu_layers = int(gpu_layers)
        self.min_ctx = int(n_ctx)

        # cyllama 0.2.18's get_logits/get_logits_ith read model.n_vocab, which LlamaModel lacks
        model_class = type("_Model", (ll.LlamaModel,), {"n_vocab": property(lambda m: m._mfact_n_vocab)})

        params = ll.LlamaModelParams()
        params.n_gpu_layers = self.gpu_layers
        try:
            self._model: Any = model_class(str(path), params)
        except Exception as exc:  # noqa: BLE001 - one clear line
            raise MfactError(f"llama.cpp cannot load {path}: {type(exc).__name__}: {exc}",
                             "is it a complete GGUF file of a language model?") from None
        self.vocab = self._model.get_vocab()
        self._model._mfact_n_vocab = int(self.vocab.n_vocab)
        self.chat_template = ""
        try:
            self.chat_template = self._model.get_default_chat_template() or ""
        except Exception:  # noqa: BLE001 - no template
            self.chat_template = ""
        super().__init__(name or str(path), prompt_style, bool(self.chat_template))
        self.add_bos = bool(self.vocab.get_add_bos())
        self._skip: dict[int, bool] = {}
        self._contexts = _Contexts(self._model, self.threads, self.min_ctx, self.model)

    # ------------------------------------------------------------------ facts for the session

    def runtime_info(self) -> dict[str, Any]:
        """What a session records about how it was generated, beyond the decoding parameters."""
        info: dict[str, Any] = dict(binding_version())
        info.update(threads=self.threads, gpu_layers=self.gpu_layers, file=self.path.name)
        return info

    # ------------------------------------------------------------------ prompts

    def _has_template(self) -> bool:
        return bool(self.chat_template)

    def _apply_template(self, prompt: str) -> str:
        ll = binding()
        try:
            return self._model.chat_apply_template(
                self.chat_template, [ll.LlamaChatMessage(role="user", content=prompt)], True)
        except Exception:  # noqa: BLE001 - not one of llama.cpp's built-in templates: Jinja
            pass
        try:
            from jinja2.sandbox import ImmutableSandboxedEnvironment

            env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
            bos = self.vocab.get_text(self.vocab.token_bos()) if self.add_bos else ""
            eos = self.vocab.get_text(self.vocab.token_eos())
            return env.from_string(self.chat_template).render(
                messages=[{"role": "user", "content": prompt}], add_generation_prompt=True,
                bos_token=bos, eos_token=eos)
        except Exception as exc:  # noqa: BLE001 - a template that cannot render: plain prompt
            log.warning("chat template of %s cannot be applied (%s); using the plain prompt",
                        self.model, exc)
            return prompt

    def encode_prompt(self, prompt: str) -> list[int]:
        rendered = self.render_prompt(prompt)
        templated = rendered is not prompt
        ids = self.vocab.tokenize(rendered, add_special=self.add_bos and not templated,
                                  parse_special=templated)
        if templated and self.add_bos and (not ids or ids[0] != self.vocab.token_bos()) \
                and not rendered.startswith(self.vocab.get_text(self.vocab.token_bos())):
            ids = [self.vocab.token_bos()] + list(ids)
        if not ids:
            ids = [self.vocab.token_bos()]
        return list(ids)

    # ------------------------------------------------------------------ pieces

    def _is_skipped(self, tid: int) -> bool:
        hit = self._skip.get(tid)
        if hit is None:
            try:
                hit = bool(self.vocab.is_control(tid)) or bool(
                    _CONTROL_TEXT.match(self.vocab.get_text(tid) or ""))
            except Exception:  # noqa: BLE001
                hit = False
            self._skip[tid] = hit
        return hit

    # ------------------------------------------------------------------ streaming

    def stream(self, prompt: str, params: DecodingParams | None = None,
               stop: threading.Event | None = None) -> Iterator[Chunk]:
        params = params or DecodingParams()
        self._check_open()
        ids = self.encode_prompt(prompt)
        limit = _limit(params)
        want_stats = bool(params.logprobs)
        with self._lock:
            try:
                yield from self._stream(ids, params, limit, want_stats, stop)
            except MfactError:
                raise
            except Exception as exc:  # noqa: BLE001 - one clear line
                raise self._error(exc) from None

    def _stream(self, ids: list[int], params: DecodingParams, limit: int, want_stats: bool,
                stop: threading.Event | None) -> Iterator[Chunk]:
        ll = binding()
        ctx = self._contexts.single(len(ids) + limit + 1)
        sampler = _sampler(params)
        if not _prefill(ctx, ids, stop):
            yield Chunk("", tokens=0, done=True, stop_reason="user")
            return
        vocab = self.vocab
        decoder = _Detok(vocab, [t for t in ids if not self._is_skipped(t)])
        pos = len(ids)
        n = 0
        buf = ChunkBuffer()
        reason = None
        while True:
            if stop is not None and stop.is_set():
                reason = "user"
                break
            if n >= limit:
                reason = "max_tokens"
                break
            if want_stats:
                logits = ctx.get_logits_ith(-1)
            tid = sampler.sample(ctx, -1)
            n += 1
            buf.add(*(_stats(logits, tid) if want_stats else (None, None)))
            if vocab.is_eog(tid):
                reason = "eos"
                break
            if not self._is_skipped(tid):
                delta = decoder.add(tid)
                if delta:
                    yield buf.chunk(delta)
            if n >= limit:
                reason = "max_tokens"
                break
            if stop is not None and stop.is_set():
                reason = "user"
                break
            ctx.decode(ll.llama_batch_get_one([tid], pos))
            pos += 1
        tail = decoder.flush() if reason != "user" else ""
        yield buf.chunk(tail, done=True, stop_reason=reason)

    # ------------------------------------------------------------------ batches

    def generate_batch(self, prompts: list[str], params: DecodingParams | None = None,
                       stop: threading.Event | None = None,
                       row_stop: Callable[[int, str], str | None] | None = None,
                       on_row: Callable[[int, BatchResult], None] | None = None,
                       check_every: int = 8) -> list[BatchResult]:
        """Generate for several prompts in one llama.cpp batch (one sequence each), not streamed.

        Each row has its own sampler seeded with `params.seed`, as a single run is, so a row's text
        is the one `stream` gives for that prompt whenever the batched arithmetic rounds the same
        (greedy rows match; a sampled row can part from the single run after a near tie).
        A set `stop` ends the whole batch within one token (every unfinished row: "user").
        `row_stop(row, text_so_far)`, asked every `check_every` tokens for each unfinished row,
        ends that row when it returns a reason (e.g. "repetition"). `on_row(row, result)` hears
        each row's result as soon as that row ends (not a row ended by `stop`), while the others
        go on: a batch run checks it meanwhile. No log-probs."""
        params = params or DecodingParams()
        self._check_open()
        if not prompts:
            return []
        rows = [self.encode_prompt(p) for p in prompts]
        with self._lock:
            try:
                return self._batch(rows, params, stop, row_stop, max(1, int(check_every)), on_row)
            except MfactError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise self._error(exc) from None

    def _row_step(self, r: int, tid: int, texts: list[str], decoder: _Detok, at_limit: bool,
                  row_stop: Callable[[int, str], str | None] | None) -> str | None:
        """Add row r's new token to its text; why the row ends there (eos, max_tokens, what
        `row_stop` says), or None."""
        if self.vocab.is_eog(tid):
            return "eos"
        if not self._is_skipped(tid):
            texts[r] += decoder.add(tid)
        if at_limit:
            return "max_tokens"
        why = row_stop(r, texts[r]) if row_stop is not None else None
        return str(why) if why else None

    def _batch(self, rows: list[list[int]], params: DecodingParams, stop: threading.Event | None,
               row_stop: Callable[[int, str], str | None] | None, every: int,
               on_row: Callable[[int, BatchResult], None] | None = None) -> list[BatchResult]:
        ll = binding()
        limit = _limit(params)
        n_seq = len(rows)
        ctx = self._contexts.batch(n_seq, sum(len(r) + limit + 1 for r in rows))
        vocab = self.vocab
        samplers = [_sampler(params) for _ in rows]
        batch = ll.LlamaBatch(n_tokens=max(PREFILL_CHUNK, 64 * n_seq), embd=0, n_seq_max=n_seq)
        if not _prefill_rows(ctx, batch, rows, max(PREFILL_CHUNK, 64 * n_seq), stop):
            return [BatchResult("", 0, "user") for _ in rows]
        out_idx = {r: r for r in range(n_seq)}
        decoders = [_Detok(vocab, [t for t in ids if not self._is_skipped(t)]) for ids in rows]
        texts = [""] * n_seq
        counts = [0] * n_seq
        reasons: list[str | None] = [None] * n_seq
        pos = [len(ids) for ids in rows]
        active = list(range(n_seq))
        done: dict[int, BatchResult] = {}

        def ended(r: int) -> None:
            done[r] = BatchResult(text=texts[r] + decoders[r].flush(), tokens=counts[r], stop_reason=str(reasons[r]))
            if on_row is not None:
                on_row(r, done[r])
        while active:
            if stop is not None and stop.is_set():
                for r in active:
                    reasons[r] = "user"
                break
            batch.clear()
            nxt: list[int] = []
            k = 0
            for r in active:
                tid = samplers[r].sample(ctx, out_idx[r])
                counts[r] += 1
                reasons[r] = self._row_step(r, tid, texts, decoders[r], counts[r] >= limit,
                                            row_stop if counts[r] % every == 0 else None)
                if reasons[r] is not None:
                    ended(r)
                    continue
                batch.add(tid, pos[r], [r], True)
                out_idx[r] = k
                k += 1
                pos[r] += 1
                nxt.append(r)
            active = nxt
            if active:
                ctx.decode(batch)
        return [done.get(r) or BatchResult(text=texts[r], tokens=counts[r], stop_reason="user")
                for r in range(n_seq)]

    # ------------------------------------------------------------------ errors and closing

    def _closed(self) -> bool:
        return self._model is None

    def _known_failure(self, exc: BaseException) -> MfactError | None:
        if isinstance(exc, ValueError) and "KV slot" in str(exc):
            log.error("llama.cpp generation failed", exc_info=exc)
            return MfactError(f"llama.cpp ran out of context for {self.model}", "use fewer --max-tokens")
        return None

    def set_threads(self, threads: int) -> None:
        """Generate with `threads` threads from the next run on (bench/batch.py compares them)."""
        self.threads = self._contexts.threads = int(threads)
        self._contexts.drop()

    def close(self) -> None:
        """Release the model and its contexts (a generation still running keeps its own references
        until it ends, so closing never pulls memory from under it, nor waits for it)."""
        self._contexts.clear()
        self._model = None

    def __repr__(self) -> str:
        return f"LlamaCppGenerator({self.model!r}, style={self.prompt_style}, threads={self.threads})"


# --------------------------------------------------------------------------- loading


def load_llamacpp(spec: str | Path, prompt_style: str = "auto", device: str = "auto",
                  name: str | None = None, on_progress: ProgressCb = None) -> LlamaCppGenerator:
    """Load a `.gguf` file with llama.cpp. `device`: cpu, or auto/cuda/mps to offload every layer
    when the installed binding has a GPU backend (CPU otherwise)."""
    path = Path(str(spec)).expanduser()
    if not path.is_file():
        raise MfactError(f"GGUF file not found: {path}", "check the path, or pass --model embedded")
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise MfactError(f"cannot read {path}: {exc.strerror or exc}", "check its permissions") from None
    if magic != b"GGUF":
        raise MfactError(f"{path} is not a GGUF file", "pass a .gguf model file, a Hub id or a folder")
    dev = (device or "auto").strip().lower()
    gpu_layers = 0
    if dev != "cpu" and supports_gpu():
        gpu_layers = 999
    if on_progress is not None:
        on_progress(Progress(stage="load", done=0, total=1, message=f"loading {path.name} with llama.cpp"))
    t0 = time.perf_counter()
    gen = LlamaCppGenerator(path, name=name, prompt_style=prompt_style, gpu_layers=gpu_layers)
    log.info("llama.cpp loaded %s in %.2f s (%d threads, %d GPU layers)", path.name,
             time.perf_counter() - t0, gen.threads, gpu_layers)
    if on_progress is not None:
        on_progress(Progress(stage="load", done=1, total=1, message=f"{path.name} ready"))
    return gen
