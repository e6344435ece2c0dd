"""Training data and training scripts for mfact's learned checkers (not imported at run time)."""
