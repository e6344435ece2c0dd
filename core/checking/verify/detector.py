"""`--verifier detector[:FILE]`: the default with the detector on every claim, standalone ones too."""
from __future__ import annotations

from pathlib import Path
from .offline import OfflineVerifier, WINDOWS_PER_FACT


class DetectorVerifier(OfflineVerifier):
    """The default plus the trained token-level detector (`--verifier detector[:FILE]`): p(supported)
    blended with the detector's, its flagged words as the marks. Needs `data/detector.pt`, or the
    weights file `detector_path` (as `train_detector --export` writes it)."""

    name = "detector"
    detector_scope = "all"

    def __init__(self, embedder=None, weights: dict | None = None, k: int = WINDOWS_PER_FACT,
                 detector_path: str | Path | None = None):
        if detector_path and not Path(detector_path).expanduser().is_file():
            from ...errors import MfactError
            raise MfactError(f"no detector weights file {str(detector_path)!r}",
                             "give the file `train_detector --export` wrote, or use --verifier detector")
        super().__init__(embedder, weights, k, detector_path)

    def detector(self):
        det = super().detector()
        if det is None:
            from ...errors import MfactError
            raise MfactError("the detector verifier has no weights (core/checking/data/detector.pt)",
                             "train them: python -m mfact.core.training.train_detector (docs/verifier.md),"
                             " or use --verifier offline")
        return det
