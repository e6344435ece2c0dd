"""mfact core: models, sessions, knowledge, retrieval, checking, metrics, CLI logic (no Textual)."""

__version__ = "0.1.0"
