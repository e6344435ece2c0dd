"""SelfCheck consistency of a text against extra samples (science.md section 2)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..protocols import Embedder


def selfcheck_scores(sentences: Sequence[str], samples: Sequence[Sequence[str]], embedder: Embedder) -> list[float | None]:
    """SelfCheck consistency (science.md section 2): for each sentence, 1 - the mean over samples of
    its highest cosine similarity to a sentence of that sample. Higher = less consistent."""
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
