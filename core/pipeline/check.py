"""Checking one fact, read as retrieve → rate (SAFE's per-fact function): pure and synchronous.

`CachedVerifier` puts the verdict cache and the validation of what a verifier answers in front of
any Verifier; `check_fact` is the whole per-fact step. The run calls it in its worker pool.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..errors import MfactError
from ..protocols import FactContext, Retriever, Verifier, fact_items
from ..schema import SessionFormatError
from ..session import LABELS, Entity, Evidence, Verdict, features_field
from .cache import VerdictCache


class CachedVerifier:
    """A verifier behind the on-disk verdict cache, its answers validated: the label is one of S,
    NS, IR, the confidence in [0, 1], the cited evidence among the passages given, the features
    (`Verdict.features`) at most 256 finite numbers or none. With an `adapter` (core/adapt), the
    user's adaptation is applied to each verdict after the cache, which keeps the verifier's own
    verdicts, features included (a new adaptation needs no new verification)."""

    def __init__(self, verifier: Verifier, cache: VerdictCache | None = None, adapter: Any = None):
        self.verifier = verifier
        self.cache = cache
        self.adapter = adapter
        self.name = verifier.name
        self.version = str(verifier.version)

    def verify(self, fact: str, entity: str, lang: str, passages: Sequence[Evidence],
               context: FactContext | None = None) -> tuple[Verdict, bool]:
        """(verdict, came from the cache)."""
        return self.verify_many([(fact, entity, lang, passages)], [context])[0]

    def verify_many(self, items: Sequence[tuple[str, str, str, Sequence[Evidence]]],
                    contexts: Sequence[FactContext | None] | None = None) -> list[tuple[Verdict, bool]]:
        """`verify` of many facts: those not in the cache in one `verify_batch` call of the verifier
        (`mfact rejudge`). `contexts`: each fact's sentence, for a verifier that reads it (the cache
        key then holds the sentence too); ignored by the others."""
        facts = fact_items(items)
        ctx: list[FactContext | None] = (list(contexts) if contexts is not None and self.verifier.uses_context
                                         else [None] * len(facts))
        out: list[tuple[Verdict, bool] | None] = [None] * len(facts)
        keys: list[str | None] = [None] * len(facts)
        todo = []
        for i, (fact, entity, lang, passages) in enumerate(facts):
            if self.cache is not None:
                c = ctx[i]
                said = fact if c is None else f"{fact}\x1f{c.key()}"
                key = keys[i] = VerdictCache.key(self.name, self.version, entity, lang, said, [e.id for e in passages])
                cached = self.cache.get(key)
                if cached is not None:
                    out[i] = (cached, True)
                    continue
            todo.append(i)
        checked = [self.validate(v, facts[i].passages) for i, v in zip(todo, self._fresh(facts, todo, ctx))]
        for i, v in zip(todo, checked):
            out[i] = (v, False)
        if self.cache is not None:
            self.cache.put_many([(k, v) for k, v in zip((keys[i] for i in todo), checked) if k is not None])
        done = [o for o in out if o is not None]      # every item has its verdict now
        if self.adapter is not None:
            done = [(self.adapter.apply(v, facts[i].lang), c) for i, (v, c) in enumerate(done)]
        return done

    def _fresh(self, items, todo: list[int], ctx: list[FactContext | None]) -> list[Verdict]:
        if not todo:
            return []
        if any(ctx[i] is not None for i in todo):        # only a verifier that reads sentences gets them
            return self.verifier.verify_batch([items[i] for i in todo], contexts=[ctx[i] for i in todo])  # type: ignore[call-arg]
        if len(todo) > 1:
            return self.verifier.verify_batch([items[i] for i in todo])
        return [self.verifier.verify(*items[todo[0]])]

    def validate(self, verdict: Verdict, passages: Sequence[Evidence]) -> Verdict:
        if verdict.label not in LABELS:
            raise MfactError(f"the verifier {self.name} returned an unknown label {verdict.label!r}",
                             "a verifier must answer S, NS or IR")
        verdict.confidence = min(1.0, max(0.0, float(verdict.confidence)))
        known = {e.id for e in passages}
        verdict.evidence = [e for e in verdict.evidence if e in known]
        if not verdict.verifier:
            verdict.verifier = f"{self.name}/{self.version}" if self.version else self.name
        try:                 # the detector's numbers are kept only as a valid list (else none)
            verdict.features = features_field(verdict.features, "features")
        except SessionFormatError:
            verdict.features = None
        return verdict


@dataclass(frozen=True)
class FactCheck:
    passages: list[Evidence]
    verdict: Verdict | None          # None: the run ended before verification
    cached: bool = False


@dataclass(frozen=True)
class FactChecker:
    """What checks a fact: the retriever, the (cached) verifier, the evidence languages and k."""
    retriever: Retriever
    verifier: CachedVerifier
    langs: Sequence[str]
    k: int


def check_fact(fact: str, entity: Entity, lang: str, *, checker: FactChecker,
               on_evidence: Callable[[list[Evidence]], bool] | None = None,
               context: FactContext | None = None) -> FactCheck:
    """Retrieve the checker's top-k passages for `fact` in its `langs`, then rate it against them
    (`context`: the fact's sentence, for a verifier that reads it). `on_evidence(passages)` hears the
    passages before the (slower) verification; when it returns False the check ends there, unrated."""
    retriever, verifier, langs, k = checker.retriever, checker.verifier, checker.langs, checker.k
    passages = list(retriever.retrieve(entity, fact, langs, k))
    if on_evidence is not None and on_evidence(passages) is False:
        return FactCheck(passages, None)
    verdict, cached = verifier.verify(fact, entity.name, lang, passages, context)
    return FactCheck(passages, verdict, cached)
