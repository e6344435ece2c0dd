"""Verifiers: the default pipeline of windows, slot checks, detector and feature model; the LLM, NLI and \
cross-encoder verifiers; the claim combiner."""
