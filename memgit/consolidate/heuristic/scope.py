"""What the global scope (`main`) may hold: only what transfers to every project.

A learning transfers when it is a preference the person stated in general terms ("always", "never",
"from now on", "I prefer": memgit.extract.heuristic.standing), or a preference, convention or gotcha
seen in two or more projects. A rule of one project's code, a correction of one task and anything
one session said once stay in the project.
Never a command, a path, a file name, an identifier or a URL: those are facts of one project, and
`main` is injected into every other project's sessions.
"""

from __future__ import annotations

import re

from memgit.consolidate.heuristic.graph import Cluster, Occurrence
from memgit.core.vocab import TYPES
from memgit.extract.heuristic.standing import stated_generally

GLOBAL_TYPES = tuple(name for name, t in TYPES.items() if t.transfers)
MIN_PROJECTS = 2
_PROJECT_SPECIFIC = re.compile(
    r"`|https?://|\b[\w.-]+/[\w./-]+|\b[\w-]+\.(?:py|go|ts|tsx|js|jsx|mjs|json|ya?ml|toml|md|rs|rb|java|kt|sh|sql|"
    r"html|css|lock|cfg|ini|env|txt)\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b|"
    r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b|\b[A-Z]{2,}(?:_[A-Z0-9]+)+\b|(?:^|\s)--?[a-z][\w-]*|\b[A-Z]{2,}-\d+\b"
)


def portable(text: str) -> bool:
    """No command, path, file name, identifier or URL: nothing that belongs to one project."""
    return _PROJECT_SPECIFIC.search(text) is None


def candidate(o: Occurrence) -> bool:
    """An occurrence the global consolidation looks at at all."""
    return o.type in GLOBAL_TYPES and portable(o.text)


def transfers(cluster: Cluster) -> bool:
    """A cluster of candidates (across projects) that belongs on `main`."""
    if cluster.superseded_by is not None or cluster.type not in GLOBAL_TYPES or not portable(cluster.text):
        return False
    if len(cluster.sources) >= MIN_PROJECTS:
        return True
    return cluster.type == "preference" and stated_generally(cluster.text)
