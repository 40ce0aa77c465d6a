"""Consolidators: a scope's notes -> MEMORY.md, memory_summary.md and skills (model.Consolidation).

`heuristic` is offline and deterministic (the default); `llm` merges with a model. Both are pure
over values; memgit/consolidation.py reads the scope from git and commits the result.
"""
