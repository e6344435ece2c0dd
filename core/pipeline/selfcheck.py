"""SelfCheck consistency of a text against extra samples (Spataru et al. 2024, after SelfCheckGPT)."""
from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np

from ..protocols import DecodingParams, Embedder, Generator
from .text import clean_text


def selfcheck_scores(sentences: Sequence[str], samples: Sequence[Sequence[str]],
                     embedder: Embedder) -> list[float | None]:
    """SelfCheck consistency (Spataru et al. 2024, after SelfCheckGPT): for each sentence, 1 - the
    mean over samples of its highest cosine similarity to a sentence of that sample. Higher = less
    consistent."""
    if not sentences:
        return []
    samples = [s for s in samples if s]
    if not samples:
        return [None] * len(sentences)
    q = np.asarray(embedder.embed_queries(list(sentences)), dtype=np.float32)
    sims = []
    for sample in samples:
        p = np.asarray(embedder.embed_queries(list(sample)), dtype=np.float32)
        sims.append((q @ p.T).max(axis=1))
    mean = np.clip(np.mean(np.stack(sims), axis=0), -1.0, 1.0)
    return [round(float(1.0 - x), 4) for x in mean]


@dataclass(frozen=True)
class SampleWatch:
    """How sampling ends early and reports: `stop` set or the run `closed()`; `progress(i)`."""
    stop: threading.Event
    closed: Callable[[], bool]
    progress: Callable[[int], None]


def sample_texts(generator: Generator, prompt: str, params: DecodingParams, n: int,
                 watch: SampleWatch) -> list[str]:
    """The `n` extra samples SelfCheck compares with (seeds after the run's), cleaned; fewer when
    `stop` is set or the run `closed()`. `progress(i)` after the i-th."""
    stop, closed, progress = watch.stop, watch.closed, watch.progress
    out: list[str] = []
    for i in range(n):
        if stop.is_set() or closed():
            break
        parts = []
        for chunk in generator.stream(prompt, replace(params, seed=params.seed + 1 + i), stop):
            parts.append(chunk.text)
            if chunk.done:
                break
        out.append(clean_text("".join(parts)))
        progress(i + 1)
    return out
