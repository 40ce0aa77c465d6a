"""Draw a random string matching a regex, from a seeded generator: test secrets made at test time.

Gitleaks builds many of its test samples with `secrets.NewSecret(regex)` (a fork of Go's reggen).
This does the same for the patterns those samples use, from `re`'s own parse tree: literals,
classes (ranges, \\d \\w \\s, negation), groups, alternation and repeats (an open-ended repeat
adds at most three to its minimum); anchors and lookarounds produce nothing.
"""

from __future__ import annotations

import random
import string
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

from memgit.core.secret_rules.re2 import translate

_PRINTABLE = [chr(c) for c in range(33, 127)]
_CATEGORY = {
    sre.CATEGORY_DIGIT: string.digits,
    sre.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    sre.CATEGORY_SPACE: " ",
}
_NOT = {sre.CATEGORY_NOT_DIGIT: sre.CATEGORY_DIGIT, sre.CATEGORY_NOT_WORD: sre.CATEGORY_WORD,
        sre.CATEGORY_NOT_SPACE: sre.CATEGORY_SPACE}


def draw(regex: str, rng: random.Random) -> str:
    """A string matching `regex` (Go RE2 syntax), drawn with `rng`."""
    return "".join(_items(_parser.parse(translate(regex)).data, rng))


def _chars(items, rng: random.Random) -> str:
    allowed: set[str] = set()
    negate = False
    for op, av in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            allowed.add(chr(av))
        elif op is sre.RANGE:
            allowed.update(chr(c) for c in range(av[0], av[1] + 1))
        elif op is sre.CATEGORY:
            if av in _NOT:
                allowed.update(c for c in _PRINTABLE if c not in _CATEGORY[_NOT[av]])
            else:
                allowed.update(_CATEGORY[av])
    pool = sorted(set(_PRINTABLE) - allowed) if negate else sorted(allowed)
    return rng.choice(pool)


def _items(items, rng: random.Random) -> list[str]:
    out: list[str] = []
    for op, av in items:
        if op is sre.LITERAL:
            out.append(chr(av))
        elif op is sre.NOT_LITERAL:
            out.append(rng.choice([c for c in string.ascii_letters + string.digits if ord(c) != av]))
        elif op is sre.ANY:
            out.append(rng.choice(string.ascii_letters + string.digits))
        elif op is sre.IN:
            out.append(_chars(av, rng))
        elif op is sre.SUBPATTERN:
            out.extend(_items(av[3], rng))
        elif op is sre.BRANCH:
            out.extend(_items(rng.choice(av[1]), rng))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, body = av
            high = low + 3 if high is sre.MAXREPEAT else high
            for _ in range(rng.randint(low, high)):
                out.extend(_items(body, rng))
        elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            continue
        else:
            raise ValueError(f"cannot draw {op} from a regex")
    return out
