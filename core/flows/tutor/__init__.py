"""Tutoring (spec 004): a planner / executor / evaluator tutor over sessions that resume."""
