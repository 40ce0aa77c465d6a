"""Extractors: a transcript in, a note (or the reason there is none) out."""

HEURISTIC = "heuristic/2"  # the offline extractor's name and rule version, as its commits record it
