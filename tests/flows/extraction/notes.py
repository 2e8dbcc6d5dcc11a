"""The notes the extraction tests start from: a source with quotes, an existing concept note
(Spanish), and a source with many quotes."""

from __future__ import annotations

SOURCE = "03 - Sources/Make It Stick.md"
SOURCE_TEXT = """---
title: Make It Stick
author: Peter C. Brown
category: book
---
# Make It Stick

## Highlights
> Retrieval practice strengthens memory more than rereading does. ^ms-retrieval

> Spacing out practice makes learning more durable than massed practice.

> Interleaving different kinds of problems improves the ability to discriminate between them.
"""
EXISTING_ID = "5d1862ab-cb20-54c3-8a00-9e5e25cec35a"
EXISTING = f"""---
entity_id: {EXISTING_ID}
entity_type: Concept
short_summary: Recordar activamente fortalece la memoria.
summary: Evocar la información desde la memoria la consolida mejor que releer.
aliases:
- Retrieval practice
concept_relations: {{}}
---
# Práctica de recuperación

## Concepto
Evocar lo aprendido fortalece la memoria.

## Análisis
Usar tarjetas y autoexamen.

## Conexiones
- GENERALIZES:
- SPECIFIC_OF:
- PART_OF:
- HAS_PART:
- SUPPORTS:
- SUPPORTED_BY:
- OPPOSES:
- SIMILAR_TO:
- RELATES_TO:

## Fuente
"""


def quote_source(n: int) -> str:
    lines = [
        f"> Quote number {i} about learning, memory and practice in detail. ^q{i}\n"
        for i in range(n)
    ]
    return "---\ntitle: Big Book\n---\n# Big Book\n\n## Highlights\n" + "\n".join(lines)


SECOND_ID = "9b0e7f4c-1d2a-4c55-8e61-7a3f2d9c0b18"
SECOND = f"""---
entity_id: {SECOND_ID}
entity_type: Concept
short_summary: Mezclar tipos de problemas ayuda a distinguirlos 🧩.
summary: Alternar problemas distintos en una sesión enseña a elegir la estrategia adecuada.
aliases: []
concept_relations: {{}}
---
# Práctica intercalada

## Concepto
Intercalar problemas de distinto tipo obliga a reconocer cuál es cuál.

## Análisis
Más lento al principio, más transferible después.
"""
"""A second concept note: with it and `pool_size = 1` the graph is larger than a relation
pool, so relation queries (1.1c) are asked for."""
