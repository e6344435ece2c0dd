"""Checking one fact, read as retrieve → rate (SAFE's per-fact function): pure and synchronous.

`CachedVerifier` puts the verdict cache and the validation of what a verifier answers in front of
any Verifier; `check_fact` is the whole per-fact step. The run calls it in its worker pool.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ..errors import MfactError
from ..protocols import Retriever, Verifier
from ..session import LABELS, Entity, Evidence, Verdict
from .cache import VerdictCache


class CachedVerifier:
    """A verifier behind the on-disk verdict cache, its answers validated: the label is one of S,
    NS, IR, the confidence in [0, 1], the cited evidence among the passages given."""

    def __init__(self, verifier: Verifier, cache: VerdictCache | None = None):
        self.verifier = verifier
        self.cache = cache
        self.name = getattr(verifier, "name", type(verifier).__name__)
        self.version = str(getattr(verifier, "version", ""))

    def verify(self, fact: str, entity: str, lang: str, passages: Sequence[Evidence]) -> tuple[Verdict, bool]:
        """(verdict, came from the cache)."""
        key = None
        if self.cache is not None:
            key = VerdictCache.key(self.name, self.version, entity, lang, fact, [e.id for e in passages])
            cached = self.cache.get(key)
            if cached is not None:
                return cached, True
        verdict = self.validate(self.verifier.verify(fact, entity, lang, passages), passages)
        if self.cache is not None and key is not None:
            self.cache.put(key, verdict)
        return verdict, False

    def validate(self, verdict: Verdict, passages: Sequence[Evidence]) -> Verdict:
        if verdict.label not in LABELS:
            raise MfactError(f"the verifier {self.name} returned an unknown label {verdict.label!r}",
                             "a verifier must answer S, NS or IR")
        verdict.confidence = min(1.0, max(0.0, float(verdict.confidence)))
        known = {e.id for e in passages}
        verdict.evidence = [e for e in verdict.evidence if e in known]
        if not verdict.verifier:
            verdict.verifier = f"{self.name}/{self.version}" if self.version else self.name
        return verdict


@dataclass(frozen=True)
class FactCheck:
    passages: list[Evidence]
    verdict: Verdict | None          # None: the run ended before verification
    cached: bool = False


def check_fact(fact: str, entity: Entity, lang: str, *, retriever: Retriever, verifier: CachedVerifier,
               langs: Sequence[str], k: int,
               on_evidence: Callable[[list[Evidence]], bool] | None = None) -> FactCheck:
    """Retrieve the top-k passages for `fact` in `langs`, then rate it against them.
    `on_evidence(passages)` hears the passages before the (slower) verification; when it returns
    False the check ends there, unrated."""
    passages = list(retriever.retrieve(entity, fact, langs, k))
    if on_evidence is not None and on_evidence(passages) is False:
        return FactCheck(passages, None)
    verdict, cached = verifier.verify(fact, entity.name, lang, passages)
    return FactCheck(passages, verdict, cached)
