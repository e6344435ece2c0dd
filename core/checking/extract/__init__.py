"""Atomic-fact extraction: the rule and LLM extractors, clauses, refinement, non-claims and headings."""
