"""The steps of an extraction run as the progress view shows them, and which node is which."""

from __future__ import annotations

STEPS: list[tuple[str, str]] = [
    ("load", "Load the source"),
    ("1.1a", "Candidate concepts"),
    ("1.1b", "Duplicate detection"),
    ("1.1c", "Relation queries"),
    ("1.1d", "Relation search"),
    ("1.1e", "Relations"),
    ("1.2", "Self-critique"),
    ("1.3", "Refinement"),
    ("2.1", "Review"),
    ("2.3", "Feedback"),
    ("3.1", "Store commit"),
    ("3.2", "Notes written"),
    ("3.3", "Source processed"),
]
"""(step, label) in order."""

NODE_STEPS: dict[str, str] = {
    "load_source": "load",
    "extract_batch": "1.1a",
    "merge_candidates": "1.1a",
    "detect_duplicate": "1.1b",
    "detect_duplicates": "1.1b",
    "aggregate": "1.1b",
    "relation_queries": "1.1c",
    "search_pool": "1.1d",
    "relate": "1.1e",
    "collect_relations": "1.1e",
    "critique_checks": "1.2",
    "critique": "1.2",
    "critique_judge": "1.2",
    "critique_gate": "1.2",
    "refine": "1.3",
    "review": "2.1",
    "incorporate": "2.3",
    "commit_store": "3.1",
    "write_vault": "3.2",
    "mark_source": "3.3",
}
"""Graph node -> step."""
