"""Lesson generation with self-review and cascaded judging (spec 001)."""
