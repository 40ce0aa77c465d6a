"""Naming one thing on the command line: an exact name, or a prefix only it has."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from memgit.errors import AmbiguousSelector, NoMatch

SHOWN = 8  # candidates named in an error


def matching(selector: str, names: Mapping[str, Iterable[str]]) -> list[str]:
    """The candidates `selector` names: those with an exact name, else those with a name it starts.

    Args:
        names: each candidate's key and the names it goes by (an id, its short form, a slug...).
    Returns:
        the keys, sorted; several only when the selector is a prefix they share.
    """
    exact = sorted(k for k, ns in names.items() if selector in ns)
    if exact:
        return exact
    return sorted(k for k, ns in names.items() if any(n.startswith(selector) for n in ns))


def pick(selector: str, names: Mapping[str, Iterable[str]], *, what: str, hint: str = "") -> str:
    """The one candidate `selector` names.

    Raises:
        NoMatch: nothing is named by it.
        AmbiguousSelector: it is a prefix of several candidates (they are listed).
    """
    found = matching(selector, names)
    if not found:
        raise NoMatch(f"no {what} matches {selector!r}" + (f"; {hint}" if hint else ""))
    if len(found) > 1:
        listed = ", ".join(found[:SHOWN]) + (f" and {len(found) - SHOWN} more" if len(found) > SHOWN else "")
        raise AmbiguousSelector(f"{selector!r} matches {len(found)} {what}s: {listed}; give more of it")
    return found[0]
