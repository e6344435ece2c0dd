"""The detector's CPU precision setting ($MFACT_DETECTOR_PRECISION), read without importing torch:
the detector loads by it, the default verifier names it in its version."""
from __future__ import annotations

import os

PRECISIONS = ("fp32", "int8")
PRECISION_ENV = "MFACT_DETECTOR_PRECISION"


def _setting() -> str:
    return os.environ.get(PRECISION_ENV, "").strip().lower()


def cpu_precision() -> str:
    """The CPU inference precision: $MFACT_DETECTOR_PRECISION (fp32 or int8), else fp32; another
    value is refused with a message."""
    v = _setting()
    if v and v not in PRECISIONS:
        from ...errors import MfactError
        raise MfactError(f"{PRECISION_ENV}={v!r} is not a detector precision",
                         f"set it to {' or '.join(PRECISIONS)}, or unset it (fp32)")
    return v or "fp32"


def version_tag() -> str:
    """The precision in the default verifier's version: "f32" (the default), "q2" for int8 (the
    second int8 scheme: the feed-forward outputs and the head in fp32). Never raises: a bad value is
    refused where the detector loads."""
    return "q2" if _setting() == "int8" else "f32"
