"""Merging concepts in the vault: reviews, clusters, apply with a journal, undo and resume."""
