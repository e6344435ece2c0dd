"""mfact terminal app (Textual)."""
