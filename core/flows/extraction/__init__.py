"""Concept extraction (spec 002): from a source note's quotes to reviewed, linked concept notes.

`graph.SPEC` is the flow the runtime knows; `graph.build_graph()` the uncompiled graph.
"""
