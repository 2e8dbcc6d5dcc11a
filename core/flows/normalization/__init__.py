"""Concept normalization (spec 000): merge proposals from a generator/evaluator loop."""
