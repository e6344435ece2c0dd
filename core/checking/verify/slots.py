"""`--verifier slots`: the slot checks alone."""
from __future__ import annotations

from typing import Sequence
from ...session import Verdict
from ..slots.check import SlotReport
from .offline import FactCase, OfflineVerifier


class SlotsVerifier(OfflineVerifier):
    """The slot checks alone (`--verifier slots`), for comparison: a fact is NS only when a value
    conflicts with the evidence (or there is no evidence), else S; no trained model decides."""

    name = "slots"
    detector_scope = "off"

    def _decide(self, c: FactCase, p: float, threshold: float, name: str,
                words: Sequence[tuple[int, int, float]] | None = None, rep: SlotReport | None = None) -> Verdict:
        v = super()._decide(c, p, threshold, name, words, rep)
        if v.label == "NS" and not (v.reason or "").startswith("slot conflict"):
            return Verdict("S", 0.5, name, v.evidence, "no slot conflict (the slot checks alone)")
        return v
