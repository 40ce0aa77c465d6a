"""Where a rule's matches lie relative to its keywords, read from the pattern itself.

A rule runs only where one of its keywords occurs (gitleaks' prefilter). When the pattern shows
that every match *starts* with a keyword, the rule is tried at those places alone (`match` at each
occurrence); when every match *contains* one and is bounded in length, it is searched in a window
around each occurrence; when every match starts with one of a few other literals (`kind:`,
`https://`), it is tried where those are; otherwise it scans the whole text, and only if the
literals every match must hold are all there. Long texts then cost a few anchored tries
per keyword instead of hundreds of patterns run end to end.

The analysis reads `re`'s own parse tree (`re._parser`). It only ever answers "don't know" when
unsure, which costs speed, never a finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Iterable

WIDEST = 4096  # a "near" window reaches this far at most; a longer match scans the whole text
_MAX_FORMS = 64  # literal spellings followed before the analysis gives up on a sequence


@dataclass(frozen=True, slots=True)
class Placement:
    mode: str  # "at": every match starts with a keyword (or an anchor); "near": contains one; "anywhere"
    reach: int = 0  # for "near": the longest match
    required: tuple[bytes, ...] = ()  # lowercase literals every match holds: absent, the rule cannot match
    anchors: tuple[bytes, ...] = ()  # for "at": literals every match starts with, when not its keywords


def place(pattern: str, flags: int, keywords: Iterable[str]) -> Placement:
    """Tell how every match of `pattern` relates to the (lowercase) `keywords`."""
    keys = tuple(keywords)
    if not keys:
        return Placement("anywhere")
    try:
        tree = _parser.parse(pattern, flags)
    except Exception:  # noqa: BLE001 - an analysis failure only means "scan everything"
        return Placement("anywhere")
    starts, _complete = _forms(tree.data)
    if starts and all(any(s.startswith(k) for k in keys) for s in starts):
        return Placement("at")
    widest = tree.getwidth()[1]
    if widest <= WIDEST and _contains(tree.data, keys):
        return Placement("near", widest)
    if starts and all(len(s) >= 3 for s in starts) and len(starts) <= 16:  # kind: or data: (a k8s Secret)
        return Placement("at", anchors=tuple(sorted(s.encode() for s in starts)))
    return Placement("anywhere", required=tuple(sorted(r.encode() for r in _required(tree.data))))


def _required(items) -> set[str]:
    """Literals (3+ characters, lowercase) that every match of `items` holds."""
    found: set[str] = set()
    run = ""
    for op, av in [*items, (None, None)]:
        chars = _chars(op, av) if op is not None else None
        if chars is not None and len(chars) == 1:
            run += next(iter(chars))
            continue
        if op is sre.AT:
            continue  # \b inside a literal: still one run of text
        if len(run) >= 3:
            found.add(run)
        run = ""
        if op is sre.SUBPATTERN:
            found |= _required(av[3])
        elif op is sre.BRANCH:
            found |= set.intersection(*(_required(alt) for alt in av[1]))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and av[0] >= 1:
            found |= _required(av[2])
    return found


def _chars(op, av) -> set[str] | None:
    """The characters one item can match, when it is a literal or a small set of them."""
    if op is sre.LITERAL:
        return {chr(av).lower()}
    if op is sre.IN and all(o is sre.LITERAL for o, _ in av):
        chars = {chr(a).lower() for _, a in av}
        return chars if len(chars) <= 8 else None
    return None


def _cross(left: set[str], right: set[str]) -> set[str] | None:
    if len(left) * len(right) > _MAX_FORMS:
        return None
    return {a + b for a in left for b in right}


def _forms(items) -> tuple[set[str], bool]:
    """Return (strings every match of `items` starts with, whether they are the whole match)."""
    done: set[str] = {""}
    for op, av in items:
        if op is sre.AT:
            continue  # \b, ^: takes no characters
        chars = _chars(op, av)
        if chars is not None:
            nxt = _cross(done, chars)
            if nxt is None:
                return done, False
            done = nxt
            continue
        if op is sre.SUBPATTERN:
            sub, complete = _forms(av[3])
        elif op is sre.BRANCH:
            alts = [_forms(alt) for alt in av[1]]
            sub = set().union(*(a for a, _ in alts))
            complete = all(c for _, c in alts)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            sub, complete = _repeat_forms(*av)
            if sub is None:
                return done, False
        else:
            return done, False
        nxt = _cross(done, sub)
        if nxt is None:
            return done, False
        done = nxt
        if not complete:
            return done, False
    return done, True


def _repeat_forms(lo: int, hi: int, body) -> tuple[set[str] | None, bool]:
    """Spellings of `body{lo,hi}`: all of them for a short fixed body, else how the first copy starts."""
    forms, complete = _forms(body)
    if complete and hi <= 3:
        spelled: set[str] | None = set()
        for count in range(lo, hi + 1):
            power: set[str] | None = {""}
            for _ in range(count):
                power = _cross(power, forms) if power is not None else None
            if power is None or spelled is None or len(spelled) + len(power) > _MAX_FORMS:
                return None, False
            spelled |= power
        return spelled, True
    return (forms, False) if lo >= 1 else (None, False)


def _contains(items, keys: tuple[str, ...]) -> bool:
    """Whether every match of `items` holds one of `keys`."""

    def holds(strings: set[str]) -> bool:
        return bool(strings) and all(any(k in s for k in keys) for s in strings)

    run: set[str] = {""}  # spellings of the run of fixed items just read
    for op, av in items:
        if op is sre.AT:
            continue
        chars = _chars(op, av)
        if chars is not None:
            run = _cross(run, chars) or {""}
            if holds(run):
                return True
            continue
        if op is sre.SUBPATTERN:
            inner = av[3]
        elif op is sre.BRANCH:
            if all(_contains(alt, keys) for alt in av[1]):
                return True
            inner = None
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and av[0] >= 1:
            inner = av[2]
        else:
            inner = None
        if inner is not None and _contains(inner, keys):
            return True
        forms, complete = _forms([(op, av)])
        joined = _cross(run, forms) if forms != {""} else None
        if joined is not None and holds(joined):
            return True
        run = joined if (joined is not None and complete) else {""}
    return False
