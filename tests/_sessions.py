"""Sessions built in tests: a long run of one-fact sentences, labelled S, S, NS, ... by the
verifier, all citing one evidence passage (big-session and first-save tests)."""
from __future__ import annotations

from mfact.core.session import Entity, Evidence, Fact, Session, Verdict


def papers_session(n: int, **extra) -> Session:
    """`n` sentences "In <year> Marie Curie wrote paper <i>.", one fact each (the first of every
    three NS, the others S). `extra`: further Session fields (e.g. checks)."""
    sents = [f"In {1800 + i % 200} Marie Curie wrote paper {i}." for i in range(n)]
    facts, pos = [], 0
    for i, sent in enumerate(sents):
        facts.append(Fact(id=f"f{i}", text=sent, sentence=i, span=(pos, pos + len(sent)),
                          auto=Verdict(label="S" if i % 3 else "NS", confidence=0.8, evidence=["e1"])))
        pos += len(sent) + 1
    ev = [Evidence(id="e1", source="wikipedia", lang="en", title="Marie Curie", text="A physicist.")]
    return Session(language="en", entity=Entity("Marie Curie"), text=" ".join(sents), facts=facts,
                   evidence=ev, stop_reason="eos", **extra)
