"""`--verifier lite`: the feature model alone."""
from __future__ import annotations

from .features import FeatureModel


class LiteVerifier(FeatureModel):
    """The calibrated feature model alone (`--verifier lite`): what `offline` was before slot checks."""

    name = "lite"
