"""Screens of the mfact app, one per file."""
