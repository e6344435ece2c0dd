"""The small interfaces every pipeline stage sits behind, so a backend can be swapped alone.

Implementations live in their own modules (models/, knowledge/, checking/); the pipeline, the TUI
and the CLI only talk to these Protocols.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterable, Iterator, NamedTuple, Protocol, Sequence, runtime_checkable

import numpy as np

from .config import Checking, Decoding
from .errors import MfactError, error_line, format_error  # noqa: F401 - re-exported
from .session import Entity, Evidence, Verdict


# --------------------------------------------------------------------------- generation


@dataclass
class DecodingParams:
    """Decoding parameters; the defaults are the configuration's (core/config.py `Decoding`: the
    semantic-drift paper's 500 tokens, T=0.6, top-p 0.9, fixed seed)."""
    max_tokens: int = Decoding.max_tokens
    temperature: float = Decoding.temperature
    top_p: float = Decoding.top_p
    seed: int = Decoding.seed
    greedy: bool = Decoding.greedy
    repetition_penalty: float = Decoding.repetition_penalty
    stop_on_repeat: bool = Checking.stop_on_repeat      # stop when a sentence repeats an earlier one
    logprobs: bool = False           # ask for per-token log-probabilities and entropy (the LLM judge
                                     # does); backends that get them at no cost record them anyway

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Chunk:
    """A piece of streamed text. The last chunk of a stream has `done=True` and a `stop_reason`."""
    text: str
    tokens: int = 1
    logprob: float | None = None      # summed log-probability of the chunk's tokens, when known
    entropy: float | None = None      # mean next-token entropy over the chunk, when known
    done: bool = False
    stop_reason: str | None = None    # eos | max_tokens | user | repetition | drift | error | connection_lost


@dataclass
class Progress:
    """Progress of long work (first-run model preparation, downloads, indexing)."""
    stage: str
    done: float
    total: float | None = None
    message: str = ""


ProgressCallback = Callable[[Progress], None]


# --------------------------------------------------------------------------- capabilities


class Stage:
    """Base class of the pipeline's stages (generators, extractors, retrievers, verifiers): the
    optional capabilities are declared here with their defaults, so nobody probes for them.

    - `notices`: one-line warnings the stage collected while working (e.g. "no network: offline
      sources only"); the run shows each new one once.
    - `describe()`: options worth recording in a session's config (name and version are taken
      from the attributes).
    - `close()`: give back what the stage holds (a model, a connection).
    - `load()`: load now what the first item would otherwise wait for (a verifier's trained
      weights), so that a run's first verdict is not late; returns a line saying what was loaded,
      or "" for nothing. By default nothing.
    - `prepare(...)`: the work that needs no text, done ahead (a batch run calls it while the
      model generates): a retriever's `prepare(entity, langs)` gives the passage texts it
      gathered, a verifier's `prepare(texts, lang)` embeds them. By default nothing."""
    name: str = ""
    version: str = ""
    notices: Sequence[str] = ()

    def describe(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        return None

    def prepare(self, *args: Any) -> Any:
        return None

    def load(self) -> str:
        return ""


@runtime_checkable
class StageLike(Protocol):
    """What the pipeline asks of every stage (`Stage` provides it with defaults)."""
    name: str
    version: str

    @property
    def notices(self) -> Sequence[str]: ...

    def describe(self) -> dict[str, Any]: ...

    def close(self) -> None: ...

    def prepare(self, *args: Any) -> Any: ...

    def load(self) -> str: ...


@dataclass
class BatchResult:
    """One row of `GeneratorBase.generate_batch`: the text, its token count and why it ended."""
    text: str
    tokens: int
    stop_reason: str


RowStop = Callable[[int, str], "str | None"]
OnRow = Callable[[int, BatchResult], None]


class GeneratorBase(Stage):
    """Base class of generators, with working defaults for what a backend may add:

    - `render_prompt(prompt)`: the prompt as the model sees it (a chat template applied); by
      default the prompt itself.
    - `runtime_info()`: how the model runs (binding, threads, GPU layers), recorded with the
      decoding parameters; None when there is nothing to say.
    - `batching` (a declared capability): `generate_batch` writes several texts in one model call
      (local models). The default refuses."""
    backend: str = ""
    model: str = ""
    prompt_style: str = ""
    batching: ClassVar[bool] = False

    def default_prompt(self, entity: str, lang: str) -> str:
        """The prompt for a biography of `entity` in `lang` (completion or chat style)."""
        raise NotImplementedError

    def stream(self, prompt: str, params: DecodingParams,
               stop: threading.Event | None = None) -> Iterator[Chunk]:
        """Stream the continuation. Setting `stop` ends it within one token (reason `user`).
        Raises MfactError for a missing model, unreachable server, out of memory, ..."""
        raise NotImplementedError

    def render_prompt(self, prompt: str) -> str:
        return prompt

    def runtime_info(self) -> dict[str, Any] | None:
        return None

    def describe(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": self.model, "prompt_style": self.prompt_style}

    def generate_batch(self, prompts: list[str], params: DecodingParams | None = None,
                       stop: threading.Event | None = None, row_stop: RowStop | None = None,
                       on_row: OnRow | None = None) -> list[BatchResult]:
        """One result per prompt, in order. `row_stop(row, text_so_far)` may end a row early with
        the reason it returns (e.g. "repetition"); `stop` ends them all (reason `user`);
        `on_row(row, result)` is told of each row as it ends, where the backend can say so (the
        others' rows are known when the call returns)."""
        raise MfactError(f"the {self.backend or type(self).__name__} backend does not batch",
                         "use --batch-size 1")


@runtime_checkable
class Generator(Protocol):
    backend: str            # "llamacpp", "transformers", "openai", "fake", ...
    model: str              # model id, path or server model name

    def default_prompt(self, entity: str, lang: str) -> str:
        """The prompt for a biography of `entity` in `lang` (completion or chat style)."""

    def stream(self, prompt: str, params: DecodingParams,
               stop: threading.Event | None = None) -> Iterator[Chunk]:
        """Stream the continuation. Setting `stop` ends it within one token (reason `user`).
        Raises MfactError for a missing model, unreachable server, out of memory, ..."""


class EmbedderBase(Stage):
    """Base class of embedders: `dim` floats per text, L2-normalised; its description records
    `dim`."""
    dim: int = 0

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        return {"dim": self.dim}


class VerifierBase(Stage):
    """Base class of verifiers: `verify` one fact; `verify_batch` many at once (by default one
    after the other; a verifier that embeds or runs a model does them together)."""

    @property
    def uses_context(self) -> bool:
        """Whether it reads each fact's sentence (`verify_batch(items, contexts=...)`). By default not."""
        return False

    def verify(self, fact: str, entity: str, lang: str, passages: Sequence[Evidence]) -> Verdict:
        raise NotImplementedError

    def verify_batch(self, items: Sequence[tuple[str, str, str, Sequence[Evidence]]]) -> list[Verdict]:
        return [self.verify(*item) for item in items]


# --------------------------------------------------------------------------- embeddings and language


@runtime_checkable
class Embedder(StageLike, Protocol):
    dim: int

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 array (len(texts), dim)."""

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 array (len(texts), dim)."""


@runtime_checkable
class LanguageDetector(StageLike, Protocol):

    def detect(self, text: str) -> tuple[str, float]:
        """(ISO 639-1 code, confidence in [0, 1])."""


# --------------------------------------------------------------------------- knowledge and retrieval


@runtime_checkable
class Retriever(StageLike, Protocol):
    def retrieve(self, entity: Entity, fact: str, langs: Sequence[str], k: int = 8) -> list[Evidence]:
        """The top-k passages for `fact` about `entity`, best first, each with source and score."""


# --------------------------------------------------------------------------- checking


@dataclass
class Sentence:
    index: int
    start: int
    end: int                 # [start, end) into the full text
    text: str


@dataclass
class ExtractedFact:
    text: str
    span: tuple[int, int]    # [start, end) into the full text, inside the sentence


@runtime_checkable
class Extractor(StageLike, Protocol):
    name: str

    def extract(self, sentence: Sentence, full_text: str, lang: str, entity: str) -> list[ExtractedFact]:
        """Atomic facts of one sentence, in order, each anchored to a span of the text."""


class FactItem(NamedTuple):
    """A fact on its way through checking: its text, the entity it is about, its language and the
    passages it is judged against. A plain 4-tuple in that order is read as one (`fact_items`)."""
    fact: str
    entity: str
    lang: str
    passages: Sequence[Evidence]


def fact_items(items: Iterable[tuple[str, str, str, Sequence[Evidence]]]) -> list[FactItem]:
    """The items as FactItems (those that are already are kept)."""
    return [it if isinstance(it, FactItem) else FactItem(*it) for it in items]


@dataclass(frozen=True)
class FactContext:
    """Where a fact sits: the text of its sentence and the fact's span [start, end) in it. A verifier
    that reads whole sentences (`uses_context = True`: the token-level detector, trained on
    sentences) takes one per fact through `verify_batch(items, contexts=...)`."""
    sentence: str
    start: int
    end: int

    def valid(self) -> bool:
        return 0 <= self.start < self.end <= len(self.sentence)

    def key(self) -> str:
        """What a cached verdict made with this context depends on."""
        return f"{self.start}:{self.end}:{self.sentence}"


@runtime_checkable
class Verifier(StageLike, Protocol):
    """Judges facts. One that reads a fact's sentence as well sets `uses_context = True` and takes
    `verify_batch(items, contexts=[FactContext | None, ...])`; the others are never given contexts."""
    name: str
    version: str

    @property
    def uses_context(self) -> bool: ...

    def verify(self, fact: str, entity: str, lang: str, passages: Sequence[Evidence]) -> Verdict:
        """Label S / NS / IR with confidence, the evidence ids used and a short reason."""

    def verify_batch(self, items: Sequence[tuple[str, str, str, Sequence[Evidence]]]) -> list[Verdict]:
        """`verify` of each (fact, entity, lang, passages), in order."""
