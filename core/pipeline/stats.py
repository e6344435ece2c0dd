"""Timings of one run (bench/pipeline.py and the logs read them)."""
from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class RunStats:
    """Timings of the last run (for bench/pipeline.py and logs). Monotonic seconds."""
    started: float = 0.0
    first_token: float | None = None
    last_token: float | None = None
    last_verdict: float | None = None
    last_sentence: float | None = None
    finished: float | None = None
    tokens: int = 0
    facts: int = 0
    verdicts: int = 0
    cache_hits: int = 0

    @property
    def verdict_lag(self) -> float | None:
        if self.last_token is None or self.last_verdict is None:
            return None
        return max(0.0, self.last_verdict - self.last_token)

    @property
    def sentence_lag(self) -> float | None:
        """Seconds from the completion of the last checked sentence to the last verdict."""
        if self.last_sentence is None or self.last_verdict is None:
            return None
        return max(0.0, self.last_verdict - self.last_sentence)

    @property
    def tokens_per_s(self) -> float | None:
        if self.first_token is None or self.last_token is None or self.tokens < 2:
            return None
        dt = self.last_token - self.first_token
        return (self.tokens - 1) / dt if dt > 0 else None

    def rate(self, tokens: int) -> float:
        """Tokens per second so far (from the start of the run while fewer than 2 tokens came)."""
        tps = self.tokens_per_s
        if tps is None:
            dt = (self.last_token or time.monotonic()) - self.started
            return tokens / dt if dt > 0 else 0.0
        return tps
