"""Naming one thing on the command line: an exact name, or a prefix only it has.

Every command that takes a project (`sync --project`, `log --project`, `projects merge`, `edit`…) goes
through `project_names` and `pick`, so one selector means the same project everywhere: an exact branch,
then an exact slug, then an exact PROJECT.md name wins; otherwise a prefix must be unique.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from memgit.core.vocab import PREFIX
from memgit.errors import AmbiguousSelector, NoMatch

SHOWN = 8  # candidates named in an error


def project_names(branch: str, name: str | None = None) -> tuple[str, ...]:
    """What a project goes by, strongest first: its branch, its slug, its PROJECT.md name.

    Several projects may share a name (three repositories called `cli` are `cli`, `cli-2`, `cli-3`),
    never a branch or a slug: an exact slug therefore wins over a name the others share.
    """
    slug = branch.removeprefix(PREFIX)
    return (branch, slug, *([name] if name and name not in (branch, slug) else []))


def matching(selector: str, names: Mapping[str, Iterable[str]]) -> list[str]:
    """The candidates `selector` names: those with an exact name, else those with a name it starts.

    Args:
        names: each candidate's key and the names it goes by (an id, its short form, a slug...),
            strongest first when in order: an exact match on an earlier name wins over one on a later.
    Returns:
        the keys, sorted; several only when the selector is a prefix they share, or a name they share.
    """
    ordered = {k: tuple(ns) for k, ns in names.items()}
    for rank in range(max((len(ns) for ns in ordered.values()), default=0)):
        exact = sorted(k for k, ns in ordered.items() if len(ns) > rank and ns[rank] == selector)
        if exact:
            return exact
    return sorted(k for k, ns in ordered.items() if any(n.startswith(selector) for n in ns))


def pick(selector: str, names: Mapping[str, Sequence[str] | Iterable[str]], *, what: str, hint: str = "") -> str:
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
