"""`--verifier lite`: the feature model alone."""
from __future__ import annotations

from .offline import OfflineVerifier


class LiteVerifier(OfflineVerifier):
    """The calibrated feature model alone (`--verifier lite`): what `offline` was before slot checks."""

    name = "lite"
