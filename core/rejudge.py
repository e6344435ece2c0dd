"""Re-running the verifier (and the user's adaptation) on a stored session's facts and evidence.

Old sessions keep the verdicts they were checked with until `mfact rejudge` asks for new ones.
Each fact is ranked against the session's stored passages as a run ranks given evidence
(`GivenRetriever`: BM25 and dense similarity, top k), then verified in batches through the verdict
cache, the adaptation applied after it. A session with no stored evidence (an imported one) is
judged without evidence, or, with `retrieve`, against passages the configured sources give (they
are added to the session). Only the automatic verdicts are written (`Store.update_verdicts`):
human labels and their history are never touched.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from .session import Evidence, Session, Verdict

BATCH = 64


@dataclass
class Rejudged:
    session_id: str
    title: str
    facts: int = 0
    new: int = 0                                     # facts that had no verdict before
    flips: Counter = field(default_factory=Counter)  # (old label, new label) -> facts
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)   # passages retrieved now, new to the session
    no_evidence: bool = False                        # judged without any evidence

    @property
    def flipped(self) -> int:
        return sum(self.flips.values())


def rejudge_session(session: Session, verifier: Any, *, k: int, langs: Sequence[str], embedder: Any = None,
                    retriever: Any = None) -> Rejudged:
    """New verdicts for every fact of `session` (not written anywhere: the caller stores them).
    `verifier`: a CachedVerifier (with the adapter). `retriever`: used only when the session has no
    stored evidence."""
    from .knowledge.given import GivenRetriever
    from .pipeline.question import answering
    from .pipeline.text import fact_contexts

    res = Rejudged(session.id, session.title, len(session.facts))
    if session.evidence:
        ranker = GivenRetriever([], embedder, evidence=session.evidence)
    else:
        ranker = retriever
        res.no_evidence = retriever is None
    # a text answering a question is judged as its run judged it (core/pipeline/question.py)
    verifier, ranker = answering(verifier, ranker, session.question, session.text, session.language)
    known = {e.id for e in session.evidence}
    items = []
    for f in session.facts:
        passages = list(ranker.retrieve(session.entity, f.text, list(langs), k)) if ranker is not None else []
        for e in passages:
            if e.id not in known:
                known.add(e.id)
                res.evidence.append(e)
        items.append((f.text, session.entity.name, session.language, passages))
    contexts = fact_contexts(session.text, session.language, [f.span for f in session.facts])
    verdicts: list[Verdict] = []
    for i in range(0, len(items), BATCH):
        verdicts += [v for v, _cached in verifier.verify_many(items[i:i + BATCH], contexts[i:i + BATCH])]
    for f, v in zip(session.facts, verdicts):
        res.verdicts[f.id] = v
        if f.auto is None:
            res.new += 1
        elif f.auto.label != v.label:
            res.flips[(f.auto.label, v.label)] += 1
    return res


def apply(session: Session, res: Rejudged) -> None:
    """Put the new verdicts and passages into the session object (for its metrics)."""
    for f in session.facts:
        if f.id in res.verdicts:
            f.auto = res.verdicts[f.id]
    session.evidence.extend(res.evidence)
