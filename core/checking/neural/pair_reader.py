"""The pair reader: one number for a claim read alone against its evidence windows.

The claim combiner (`claim_combiner.py`) judges a claim given alone (`mfact verify-pairs`) from what
the token-level detector read of it: word scores and states pooled per fact. Those were trained to
mark words, not to judge a pair, and a logistic model over them stalls near 0.775 on held-out XNLI
whatever is put on top (docs/verifier.md, "The claim combiner"). The pair reader is trained for the
pair: a copy of the detector's upper layers and segment vectors, fine-tuned with a sentence head
([first token, mean of the claim's tokens, mean of the evidence's tokens] -> one logit) on labelled
(premise, hypothesis) pairs (`core/training/train_pair.py`). It reads the detector's lower states,
which the detector's pass over the claim has already cached. The shipped reader kept its first 4
layers and the segment vectors as the detector's (`--freeze 4`; `shared`), so the detector's own
pass over a claim read alone computes the reader's logit on the way, from its states after those
layers (`side`, `DetectorModel.top`): a claim costs the reader's 4 own layers more, not 8. Its logit
is one more input of the claim combiner; facts read in their sentence never use it.

Weights: `data/pair-reader.pt` (the reader's own layers and the head; matrices int8 by row, the
rest fp16; what it shares with the detector is not stored), naming the detector they were trained
on: with other detector weights the reader is not used. A head may score one logit or XNLI's three
labels (the file says which); either way the reader gives one logit, for entailment.
"""
from __future__ import annotations

import copy
import hashlib
import io
import pickle
import threading
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import torch
from torch import nn

from .e5torch import E5Encoder, mean_pool

WEIGHTS_FILE = "pair-reader.pt"
KIND = "pair-reader"


class PairModel(nn.Module):
    """Upper layers over (claim states, evidence states) -> one logit per pair (supported).

    With `classes=3` the head scores entailment, neutral and contradiction (XNLI's own labels), and
    the logit is log p(entailment) - log p(neutral or contradiction)."""

    def __init__(self, layers: nn.ModuleList, seg: torch.Tensor, hidden: int, classes: int = 1, shared: int = 0):
        super().__init__()
        if classes not in (1, 3):
            raise ValueError(f"a pair reader has 1 or 3 outputs, not {classes}")
        self.classes = classes
        self.layers = layers
        self.seg = nn.Parameter(seg.detach().clone())
        self.head = nn.Sequential(nn.Linear(3 * hidden, hidden), nn.GELU(), nn.Dropout(0.1), nn.Linear(hidden, classes))
        self.drop = 0.0     # dropout on each layer's output while training (train_pair --layer-dropout)
        # the first `shared` layers and the segment vectors are the detector's own (kept frozen in
        # training), so the reader can go on from the detector's states after those layers
        self.shared = shared

    def trainable(self) -> dict[str, torch.Tensor]:
        """Everything it holds is trained and shipped."""
        return self.state_dict()

    @classmethod
    def from_detector(cls, det_model, classes: int = 1, shared: int = 0) -> "PairModel":
        """A new reader whose layers and segment vectors start as the detector's upper ones (the
        first `shared` layers and the segment vectors to stay so)."""
        layers = nn.ModuleList(copy.deepcopy(lay) for lay in det_model.enc.layers[det_model.split:])
        return cls(layers, det_model.seg.data, det_model.enc.config.hidden, classes, shared)

    def is_own(self, key: str) -> bool:
        """Whether a weight of `state_dict` is the reader's own, not one it shares with the detector."""
        if key == "seg":
            return not self.shared
        parts = key.split(".")
        return not (parts[0] == "layers" and int(parts[1]) < self.shared)

    def scores(self, s: torch.Tensor, sm: torch.Tensor, e: torch.Tensor, em: torch.Tensor) -> torch.Tensor:
        """The head's outputs, (batch, classes)."""
        x = torch.cat([s + self.seg[0], e + self.seg[1]], dim=1)
        return self.from_layer(x, torch.cat([sm, em], dim=1), s.shape[1], 0)

    def from_layer(self, x: torch.Tensor, mask: torch.Tensor, ls: int, start: int) -> torch.Tensor:
        """The head's outputs from the states `x` (batch, claim + evidence tokens, hidden) before
        layer `start`; `mask` covers both parts, the claim's `ls` tokens first."""
        bias = E5Encoder.attn_bias(mask, x.dtype)
        for layer in self.layers[start:]:
            x = layer(x, bias)
            if self.drop and self.training:
                x = nn.functional.dropout(x, self.drop, True)
        return self.head(
            torch.cat([x[:, 0], mean_pool(x[:, :ls], mask[:, :ls]), mean_pool(x[:, ls:], mask[:, ls:])], dim=-1)
        )

    def after_shared(self, x: torch.Tensor, mask: torch.Tensor, ls: int) -> torch.Tensor:
        """One logit per row from the detector's own states after its first `shared` upper layers
        (`DetectorModel.top(..., side=...)`): the rest of what `forward` computes."""
        return binary_logit(self.from_layer(x, mask, ls, self.shared))

    def forward(self, s: torch.Tensor, sm: torch.Tensor, e: torch.Tensor, em: torch.Tensor) -> torch.Tensor:
        return binary_logit(self.scores(s, sm, e, em))


def binary_logit(z: torch.Tensor) -> torch.Tensor:
    """One logit (supported) per row from a head's outputs: the output itself, or for three
    (entailment, neutral, contradiction) log p(entailment) - log p(the other two)."""
    if z.shape[-1] == 1:
        return z.squeeze(-1)
    return z[..., 0] - torch.logsumexp(z[..., 1:], dim=-1)


def save_reader(model: PairModel, path: Path, meta: dict, base: nn.Module) -> str:
    """The weights file. The layers and segment vectors are stored as their change from the
    detector's (`base`, the DetectorModel the reader started from), each matrix int8 with an fp16
    scale per row: fine-tuning moves weights little, so the rounding is a small part of a small
    change (the weights themselves in int8 moved logits by 0.2). The head is fp16. What the reader
    shares with the detector (`model.shared`: its first layers and the segment vectors) is not
    stored: it is the detector's. 15 MB for the detector's 8 upper layers, 7.6 MB for 4."""
    from .detector import INT8_SUFFIX, stored_state, write_blob
    if model.shared and shared_layers(model, base) < model.shared:
        raise ValueError(f"the reader's first {model.shared} layers and segment vectors are not the detector's")
    start = _start_state(base)
    delta = PairModel.from_detector(base, model.classes)
    delta.load_state_dict({k: v.detach().float() - start.get(k, 0.0) for k, v in model.state_dict().items()})
    state = {k: v for k, v in stored_state(delta, limit=0).items() if model.is_own(k.removesuffix(INT8_SUFFIX))}
    for k, v in model.state_dict().items():
        if k.startswith("head."):
            state.pop(k + INT8_SUFFIX, None)
            state[k] = v.detach().to("cpu", torch.float16).clone()
    return write_blob({"format": 1, "kind": KIND, "layers": len(model.layers), "classes": model.classes,
                       "shared": model.shared, "delta": True, "state": state, "meta": meta}, path)


def shared_layers(model: PairModel, base: nn.Module) -> int:
    """How many of the reader's first layers are exactly the detector's upper ones, 0 when its segment
    vectors are not the detector's (the detector's states then differ from the reader's from the start)."""
    if not torch.equal(model.seg.data.float(), base.seg.data.float()):
        return 0
    n = 0
    for lay, theirs in zip(model.layers, base.enc.layers[base.split:]):
        mine, other = lay.state_dict(), theirs.state_dict()
        if not all(torch.equal(v.float(), other[k].float()) for k, v in mine.items()):
            break
        n += 1
    return n


def tie(model: PairModel, base: nn.Module) -> int:
    """Give the reader the detector's segment vectors and share its unchanged first layers (a reader
    trained with `--freeze N` before its segment vectors were frozen too: they moved by at most
    0.005, which moved held-out XNLI by 0.0006, docs/verifier.md). The number of layers shared."""
    with torch.no_grad():
        model.seg.copy_(base.seg.data)
    model.shared = shared_layers(model, base)
    return model.shared


def reader_state(blob: dict, base: nn.Module) -> dict[str, torch.Tensor]:
    """fp32 weights from a weights file's contents: the detector's upper layers plus the stored
    change, and the head; what the file does not hold (what the reader shares) is the detector's."""
    from .detector import loaded_state
    start = _start_state(base)
    own = {k: v + start.get(k, 0.0) for k, v in loaded_state(blob["state"]).items()}
    n = int(blob.get("shared", 0))
    shared = {k for k in start if k == "seg" or (k.startswith("layers.") and int(k.split(".")[1]) < n)} if n else set()
    if set(start) - set(own) - shared:
        raise ValueError("a pair reader's weights file without some of its layers")
    return {**start, **own}


def _start_state(base: nn.Module) -> dict[str, torch.Tensor]:
    """What a new reader starts from (fp32): the detector's upper layers and segment vectors, under
    the reader's own names; the head starts from nothing, so it is stored whole."""
    return {k: v.float() for k, v in PairModel.from_detector(base).state_dict().items() if not k.startswith("head.")}


def default_path() -> Path:
    return Path(str(resources.files("mfact.core").joinpath("checking", "data", WEIGHTS_FILE)))


class PairReader:
    """The trained reader over a loaded detector (`detector.TokenDetector`): logits of (claim,
    windows) pairs, read from the detector's cached lower states."""

    def __init__(self, det: Any, path: Path | None = None):
        path = Path(path) if path else default_path()
        data = path.read_bytes()
        self.digest = hashlib.sha256(data).hexdigest()
        blob = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
        if blob.get("kind") != KIND:
            raise ValueError(f"{path} is not a pair reader's weights")
        self.meta = blob.get("meta", {})
        self.detector = str(self.meta.get("detector_sha256", ""))
        base = _float_model(det)
        model = PairModel.from_detector(base, int(blob.get("classes", 1)), int(blob.get("shared", 0)))
        model.load_state_dict(reader_state(blob, base))
        model.eval()
        self.det = det
        self.model = model.to(det.device, dtype=det.dtype)
        self._lock = threading.Lock()

    def side(self) -> tuple[int, Any] | None:
        """What the detector's pass over a claim can compute for the reader on the way (`score_tokens`'s
        `side`): (layers shared, the rest of the reader from the states after them); None when the
        reader shares none, or the detector runs int8 (its states are then not the reader's)."""
        if not self.model.shared or getattr(self.det, "quantized", False):
            return None
        return self.model.shared, self.model.after_shared

    @torch.no_grad()
    def logits(self, pairs: Sequence[tuple[str, Sequence[str]]]) -> list[float]:
        """One logit (supported) per (claim, evidence windows); the claim cut as the detector cuts
        a sentence part. Batched as the detector batches (an int8 detector's states one by one)."""
        from .detector import MAX_SENT_TOKENS, prepare
        tk = self.det.tokens
        out = [0.0] * len(pairs)
        todo = []
        for n, (claim, windows) in enumerate(pairs):
            ids, _spans = tk.sentence(claim, MAX_SENT_TOKENS)
            if ids:
                todo.append((n, ids, f"{claim}\x000", list(windows)))
        step = 1 if getattr(self.det, "quantized", False) else 16
        with self._lock:
            for a in range(0, len(todo), step):
                part = todo[a:a + step]
                s, sm, e, em = prepare(self.det.cache, [(ids, key) for _n, ids, key, _w in part],
                                       [w for *_x, w in part], self.det.device, self.det.dtype)
                for (n, *_x), z in zip(part, self.model(s, sm, e, em).float().tolist()):
                    out[n] = z
        return out


def _float_model(det: Any):
    """The detector's model in fp32 (the reader's weights are changes from its upper layers): the
    loaded one, or, when that runs int8 or bf16, read again from its weights file."""
    from .detector import model_of
    m = det.model
    lay = m.enc.layers[m.split]
    if isinstance(getattr(lay, "q", None), nn.Linear) and lay.q.weight.dtype == torch.float32:
        return m
    return model_of(torch.load(det.path, map_location="cpu", weights_only=True))[0]


_LOADED: dict[tuple, PairReader | None] = {}
_LOAD_LOCK = threading.Lock()


def load_reader(det: Any, path: Path | None = None) -> PairReader | None:
    """The shipped reader (or `path`) over `det`, when it was trained on this detector; else None."""
    p = Path(path) if path else default_path()
    if det is None or not p.is_file() or not all(hasattr(det, a) for a in ("model", "tokens", "cache", "digest")):
        return None             # no detector, or one that is not the token detector (a stand-in of a test)
    st = p.stat()
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns, id(det))
    with _LOAD_LOCK:
        if key not in _LOADED:
            try:
                r = PairReader(det, p)
                _LOADED[key] = r if r.detector == det.digest else None
            except (OSError, ValueError, RuntimeError, KeyError, EOFError, pickle.UnpicklingError):
                _LOADED[key] = None
        return _LOADED[key]
