"""Deterministic stand-ins for every pipeline stage, for tests of the pipeline, the TUI and the batch
runner (and for demos without a model).

- `FakeGenerator(text)` streams a given text in token-sized pieces (a "token" is a word with its
  trailing space), honours `stop` within one chunk and ends with reason eos, max_tokens or user.
- `FakeExtractor()` makes one fact per sentence (the sentence itself, its span trimmed).
- `FakeRetriever(passages)` ranks the given passages by word overlap with the fact.
- `FakeVerifier(rules=..., labels=...)` labels facts by regex rules, by an exact fact->label map, or
  (neither given) by word overlap with the passages.
- `FakeEmbedder()` a hashed bag-of-words embedding (deterministic, no model).
- `fake_pipeline(text=..., labels=...)` a real `CheckPipeline` built from these.

Everything here is deterministic: the same inputs give the same events in the same order (apart
from the interleaving of verdicts when `workers > 1`).
"""
from __future__ import annotations

import copy
import hashlib
import re
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from .errors import MfactError
from .protocols import (Chunk, DecodingParams, EmbedderBase, ExtractedFact, GeneratorBase, Sentence, Stage,
                        VerifierBase)
from .session import LABELS, Entity, Evidence, Verdict

DEFAULT_TEXT = (
    "Marie Curie was a Polish and naturalised-French physicist and chemist. "
    "She was born in Warsaw in 1867. "
    "She conducted pioneering research on radioactivity. "
    "She was the first woman to win a Nobel Prize. "
    "She won the Nobel Prize in Physics in 1903. "
    "She discovered the elements polonium and radium. "
    "She died in 1934 in France. "
    "She later became the first president of Brazil. "
)

DEFAULT_PASSAGES = (
    "Marie Curie was a Polish and naturalised-French physicist and chemist who conducted pioneering"
    " research on radioactivity.",
    "She was born in Warsaw, in what was then the Kingdom of Poland, in 1867.",
    "She was the first woman to win a Nobel Prize, the Nobel Prize in Physics in 1903, and the first"
    " person to win a Nobel Prize twice.",
    "Her achievements include the discovery of two elements, polonium and radium.",
    "She died in 1934, aged 66, at a sanatorium in Passy, France.",
)

_TOKEN_RE = re.compile(r"\S+\s*|\s+")
_WORD_RE = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Token-sized pieces that join back to `text` exactly (words with their trailing space)."""
    return _TOKEN_RE.findall(text)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(text) if len(w) > 2 or w.isdigit()}


# --------------------------------------------------------------------------- generation


@dataclass(frozen=True)
class Persona:
    """The model a FakeGenerator passes for: its name (the session's generator model) and the
    template of its default prompt (`{entity}`, `{lang}`)."""
    model: str = "fake"
    prompt_template: str = "Tell me a bio of {entity}."


class FakeGenerator(GeneratorBase):
    """Streams `text` in pieces of `chunk_size` tokens, sleeping `delay` seconds per chunk.

    `samples` are the texts of the second, third, ... call to `stream` (SelfCheck samples); after
    they run out the main text is streamed again. `fail_after=N` raises MfactError after N tokens
    (to test error handling). The stop reason is `user` when `stop` is set, `max_tokens` when the
    budget ran out first, else `eos`. `persona`: the model's name and its default prompt.
    """

    backend = "fake"

    def __init__(self, text: str = DEFAULT_TEXT, chunk_size: int = 1, delay: float = 0.0,
                 samples: Sequence[str] = (), fail_after: int | None = None, persona: Persona = Persona()):
        if chunk_size < 1:
            raise ValueError("chunk_size must be >= 1")
        self.text = text
        self.chunk_size = chunk_size
        self.delay = delay
        self.model = persona.model
        self.samples = list(samples)
        self.fail_after = fail_after
        self.prompt_template = persona.prompt_template
        self.calls: list[tuple[str, DecodingParams]] = []
        self._lock = threading.Lock()

    def default_prompt(self, entity: str, lang: str) -> str:
        return self.prompt_template.format(entity=entity, lang=lang)

    def stream(self, prompt: str, params: DecodingParams,
               stop: threading.Event | None = None) -> Iterator[Chunk]:
        with self._lock:
            n = len(self.calls)
            self.calls.append((prompt, params))
        text = self.samples[n - 1] if 0 < n <= len(self.samples) else self.text
        return self._stream(text, params, stop)

    def _stream(self, text: str, params: DecodingParams, stop: threading.Event | None) -> Iterator[Chunk]:
        pieces = tokenize(text)
        budget = max(0, int(params.max_tokens))
        sent = 0
        i = 0
        while True:
            if stop is not None and stop.is_set():
                yield Chunk("", tokens=0, done=True, stop_reason="user")
                return
            if i >= len(pieces):
                yield Chunk("", tokens=0, done=True, stop_reason="eos")
                return
            if sent >= budget:
                yield Chunk("", tokens=0, done=True, stop_reason="max_tokens")
                return
            if self.fail_after is not None and sent >= self.fail_after:
                raise MfactError("the fake model failed on purpose", "fail_after was set")
            take = min(self.chunk_size, len(pieces) - i, budget - sent)
            piece = "".join(pieces[i:i + take])
            i += take
            sent += take
            if self.delay > 0:
                if stop is not None:
                    if stop.wait(self.delay):
                        yield Chunk("", tokens=0, done=True, stop_reason="user")
                        return
                else:
                    time.sleep(self.delay)
            yield Chunk(piece, tokens=take, logprob=-0.1 * take, entropy=0.5)


# --------------------------------------------------------------------------- extraction


class FakeExtractor(Stage):
    """One fact per sentence: the sentence's text without surrounding spaces, span to match."""

    name = "fake-sentence"
    version = "1"

    def __init__(self, delay: float = 0.0):
        self.delay = delay

    def extract(self, sentence: Sentence, full_text: str, lang: str, entity: str) -> list[ExtractedFact]:
        if self.delay:
            time.sleep(self.delay)
        raw = full_text[sentence.start:sentence.end]
        lead = len(raw) - len(raw.lstrip())
        body = raw.strip()
        if not body:
            return []
        start = sentence.start + lead
        return [ExtractedFact(text=body, span=(start, start + len(body)))]


# --------------------------------------------------------------------------- retrieval


class FakeRetriever(Stage):
    """Ranks `passages` (strings or Evidence) by word overlap with the fact, best first.

    Ids are stable: `fake-<n>` in the order given (or the Evidence's own id). `delay` sleeps per call;
    `fail=True` raises MfactError (to test error handling)."""

    name = "fake"
    version = "1"

    def __init__(self, passages: Iterable[str | Evidence] = DEFAULT_PASSAGES, delay: float = 0.0,
                 fail: bool = False, title: str = "Fake page", lang: str = "en"):
        self.passages: list[Evidence] = []
        for i, p in enumerate(passages):
            if isinstance(p, Evidence):
                self.passages.append(p)
            else:
                self.passages.append(Evidence(id=f"fake-{i}", source="fake", lang=lang, title=title,
                                              text=str(p), url=f"https://example.org/fake#{i}"))
        self.delay = delay
        self.fail = fail
        self.calls = 0

    def retrieve(self, entity: Entity, fact: str, langs: Sequence[str], k: int = 8) -> list[Evidence]:
        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        if self.fail:
            raise MfactError("the fake knowledge source failed on purpose", "fail was set")
        q = _words(f"{entity.name} {fact}")
        scored = []
        for i, p in enumerate(self.passages):
            w = _words(p.text)
            score = len(q & w) / (len(q) or 1)
            scored.append((-score, i, p, score))
        scored.sort(key=lambda t: (t[0], t[1]))
        out = []
        for _, _, p, score in scored[:max(0, k)]:
            out.append(Evidence(id=p.id, source=p.source, lang=p.lang, title=p.title, text=p.text,
                                url=p.url, section=p.section, score=round(score, 4)))
        return out


# --------------------------------------------------------------------------- verification


Rule = tuple[str, str]   # (regular expression searched in the fact, label)


@dataclass(frozen=True)
class Fallback:
    """How a FakeVerifier labels a fact its labels or rules do not name: `default` where a mapping
    or a rule list has no entry; with neither, S when at least `threshold` of the fact's words are
    in one passage, else NS."""
    default: str = "S"
    threshold: float = 0.5


class FakeVerifier(VerifierBase):
    """Labels facts deterministically.

    - `labels`: a mapping fact text -> label (exact text, or the text stripped);
    - `rules`: a list of (regex, label), the first match wins; or a callable
      (fact, entity, lang, passages) -> label;
    - otherwise: S when at least the fallback's `threshold` of the fact's words are in one passage,
      else NS.
    The fallback's `default` is used when a mapping or rule list has no entry. `delay` sleeps per
    call; `fail_on` is a regex: facts matching it raise MfactError.
    """

    name = "fake"
    version = "1"

    def __init__(self, rules: Sequence[Rule] | Callable[..., str] | None = None,
                 labels: Mapping[str, str] | None = None, fallback: Fallback = Fallback(),
                 delay: float = 0.0, fail_on: str | None = None, confidence: float = 0.9):
        default, threshold = fallback.default, fallback.threshold
        self.rules = rules
        self.labels = {k.strip(): v for k, v in (labels or {}).items()}
        self.default = default
        self.threshold = threshold
        self.delay = delay
        self.fail_on = re.compile(fail_on) if fail_on else None
        self.confidence = confidence
        self.calls = 0
        # the version names the rules, so the verdict cache never mixes two fakes' verdicts
        spec = repr((sorted(self.labels.items()), None if callable(rules) else list(rules or []),
                     id(rules) if callable(rules) else None, default, threshold))
        self.version = "1-" + hashlib.sha1(spec.encode("utf-8")).hexdigest()[:8]
        for lab in list(self.labels.values()) + [default]:
            if lab not in LABELS:
                raise ValueError(f"unknown label {lab!r}")

    def _label(self, fact: str, entity: str, lang: str, passages: Sequence[Evidence]) -> str:
        if callable(self.rules):
            return self.rules(fact, entity, lang, passages)
        if self.labels and fact.strip() in self.labels:
            return self.labels[fact.strip()]
        if self.rules:
            for pattern, label in self.rules:
                if re.search(pattern, fact):
                    return label
            return self.default
        if self.labels:
            return self.default
        fw = _words(fact) - _words(entity)
        if not fw:
            return "S"
        best = max((len(fw & _words(p.text)) / len(fw) for p in passages), default=0.0)
        return "S" if best >= self.threshold else "NS"

    def verify(self, fact: str, entity: str, lang: str, passages: Sequence[Evidence]) -> Verdict:
        self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        if self.fail_on is not None and self.fail_on.search(fact):
            raise MfactError("the fake verifier failed on purpose", "fail_on matched")
        label = self._label(fact, entity, lang, passages)
        used = [p.id for p in passages[:2]] if label != "IR" else []
        return Verdict(label=label, confidence=self.confidence, verifier=f"{self.name}/{self.version}",
                       evidence=used, reason=f"fake rule -> {label}")


# --------------------------------------------------------------------------- embeddings


class FakeEmbedder(EmbedderBase):
    """Hashed bag of lower-cased words (and character trigrams), L2-normalised; no model needed."""

    name = "fake-hash"

    def __init__(self, dim: int = 256):
        self.dim = dim

    def _one(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        words = [w.lower() for w in _WORD_RE.findall(text)]
        feats = words + [w[i:i + 3] for w in words for i in range(max(1, len(w) - 2))]
        for f in feats:
            h = int.from_bytes(hashlib.blake2b(f.encode("utf-8"), digest_size=4).digest(), "little")
            v[h % self.dim] += 1.0
        n = float(np.linalg.norm(v))
        return v / n if n > 0 else v

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._one(t) for t in texts])

    embed_passages = embed_queries


# --------------------------------------------------------------------------- whole pipeline


def sentence_texts(text: str, lang: str = "en") -> list[str]:
    """The stripped sentences of `text` as the pipeline would split them (to build label maps)."""
    from .pipeline.text import sentences_of

    return [s.text.strip() for s in sentences_of(text, lang) if s.text.strip()]


@dataclass(frozen=True)
class FakeStages:
    """How the stages of `fake_pipeline` run: the generator streams `chunk_size` tokens at a time,
    `delay` seconds apart, and `samples` on its later calls (SelfCheck's); the verifier takes
    `verify_delay` seconds a fact."""
    delay: float = 0.0
    chunk_size: int = 1
    samples: Sequence[str] = ()
    verify_delay: float = 0.0


def fake_pipeline(text: str = DEFAULT_TEXT, labels: Sequence[str] | Mapping[str, str] | None = None,
                  passages: Iterable[str | Evidence] = DEFAULT_PASSAGES, *, lang: str = "en",
                  stages: FakeStages = FakeStages(), cfg: Any = None, **cfg_overrides: Any):
    """A real `CheckPipeline` over fake stages (run as `stages` says).

    `labels`: one label per sentence of `text` in order (S / NS / IR, or "N" for NS), or a mapping
    sentence -> label; otherwise the verifier labels by word overlap with `passages`.
    `cfg_overrides` set Config fields (e.g. `stop_at_drift=True`, `workers=1`, `k=3`).
    """
    from .config import Config
    from .pipeline import CheckPipeline, Stages

    label_map: dict[str, str] | None = None
    if labels is not None:
        if isinstance(labels, Mapping):
            label_map = {k.strip(): _norm_label(v) for k, v in labels.items()}
        else:
            sents = sentence_texts(text, lang)
            if len(labels) != len(sents):
                raise ValueError(f"{len(labels)} labels for {len(sents)} sentences")
            label_map = {s: _norm_label(lab) for s, lab in zip(sents, labels)}
    cfg = copy.copy(cfg) if cfg is not None else Config()     # the caller's config stays as it was
    for k, v in cfg_overrides.items():
        if not hasattr(cfg, k):
            raise TypeError(f"unknown config option {k!r}")
        setattr(cfg, k, v)
    gen = FakeGenerator(text, chunk_size=stages.chunk_size, delay=stages.delay, samples=stages.samples)
    verifier = FakeVerifier(labels=label_map, delay=stages.verify_delay) if label_map is not None \
        else FakeVerifier(delay=stages.verify_delay)
    return CheckPipeline(Stages(gen, FakeExtractor(), FakeRetriever(passages), verifier, FakeEmbedder()), cfg)


def _norm_label(v: str) -> str:
    v = str(v).strip().upper()
    return {"N": "NS", "SUPPORTED": "S", "NOT SUPPORTED": "NS"}.get(v, v)
