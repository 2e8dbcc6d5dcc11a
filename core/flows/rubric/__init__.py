"""Rubric evaluation of any vault note (spec 003): evaluate -> review -> approve / revise / edit."""
