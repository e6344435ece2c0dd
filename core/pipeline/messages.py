"""What the worker threads of a run tell the run's loop: one frozen dataclass per kind of news,
put in the run's inbox and dispatched with `match` (core/pipeline/run.py)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ..protocols import Chunk, ExtractedFact, Progress, Sentence
from ..session import Evidence, Verdict


@dataclass(frozen=True)
class ChunkMsg:            # the generator streamed a piece of text
    chunk: Chunk


@dataclass(frozen=True)
class GenDone:             # the generator stopped
    reason: str


@dataclass(frozen=True)
class FactsMsg:            # the extractor found the facts of a sentence
    sentence: Sentence
    facts: tuple[ExtractedFact, ...]


@dataclass(frozen=True)
class EvidenceMsg:         # the passages retrieved for a fact
    fact_id: str
    passages: tuple[Evidence, ...]


@dataclass(frozen=True)
class VerdictMsg:          # the verdict on a fact
    fact_id: str
    verdict: Verdict
    cached: bool = False


@dataclass(frozen=True)
class HumanMsg:            # the user relabelled a fact (CheckPipeline.set_human_label)
    fact_id: str
    label: str | None


@dataclass(frozen=True)
class ProgressMsg:
    progress: Progress


@dataclass(frozen=True)
class SamplesMsg:          # the SelfCheck samples were generated
    samples: tuple[str, ...]


@dataclass(frozen=True)
class ErrorMsg:            # a stage failed: the run ends with an error
    error: BaseException
    where: str


Message = Union[ChunkMsg, GenDone, FactsMsg, EvidenceMsg, VerdictMsg, HumanMsg, ProgressMsg, SamplesMsg,
                ErrorMsg]
