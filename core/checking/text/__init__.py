"""Text handling every stage shares: sentence splitting, cleaning model output, script and word utilities."""
