"""The explicit state a run and its helpers receive: the stages it uses, what was asked, and the
part of the run the session recorder (record.py) reads. Nothing here points back at its owner."""
from __future__ import annotations

import threading
from dataclasses import dataclass

from ..protocols import DecodingParams, Embedder, Extractor, GeneratorBase, LanguageDetector, Retriever, Verifier
from ..session import Entity, Session
from .stats import RunStats
from .text import TextStream


@dataclass(frozen=True)
class Stages:
    """The stages of a pipeline (`CheckPipeline(stages, ...)`), and of one run, taken from the
    pipeline when the run starts."""
    generator: GeneratorBase | None
    extractor: Extractor
    retriever: Retriever
    verifier: Verifier
    embedder: Embedder | None = None
    detector: LanguageDetector | None = None


@dataclass(frozen=True)
class Generation:
    """How a run's text is generated: the seed, the prompt (None: the generator's default for the
    entity) and the decoding params (None: the configuration's, with the seed). `generated=(tokens,
    stop_reason)` with a given text: this pipeline's generator generated it already (a batch,
    core/batch.py) for that prompt and those params."""
    seed: int | None = None
    prompt: str | None = None
    params: DecodingParams | None = None
    generated: tuple[int, str] | None = None


@dataclass(frozen=True)
class RunRequest:
    """What one `CheckPipeline.run` call asked for (see its docstring)."""
    entity: Entity
    lang: str
    stop: threading.Event | None = None
    text: str | None = None
    seed: int | None = None
    prompt: str | None = None
    params: DecodingParams | None = None
    generated: tuple[int, str] | None = None
    question: str = ""             # the question the text answers ("": none)


@dataclass(frozen=True)
class RecordContext:
    """What the session recorder reads of its run: the session, the text stream, the stages that
    score the text, the drift settings and the run's timings."""
    session: Session
    text: TextStream
    lang: str
    detector: LanguageDetector | None
    embedder: Embedder | None
    drift_margin: int
    drift_threshold: float
    stats: RunStats
