"""Language identification (minimal first version: py3langid). See the models issue for the
per-language choice between detectors."""
from __future__ import annotations

import threading

_lock = threading.Lock()
_identifier = None


def _langid():
    global _identifier
    with _lock:
        if _identifier is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier  # noqa: I001
            _identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        return _identifier


def detect(text: str) -> tuple[str, float]:
    """(ISO 639-1 code, probability) of the text's language; ("", 0.0) for empty text."""
    if not text or not text.strip():
        return "", 0.0
    code, prob = _langid().classify(text)
    return str(code), float(prob)
