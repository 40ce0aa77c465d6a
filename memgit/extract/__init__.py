"""Extractors: a transcript in, a note (or the reason there is none) out."""

HEURISTIC = "heuristic/1"  # the offline extractor's name, as its commits record it
