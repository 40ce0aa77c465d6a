"""A Memory built at once (the first consolidation of a scope, a team's first pull) holds what the
rules define, row for row: each group's leader is the most similar leader of higher priority, each
group is posted under its prefix, and the contradictions are those its prefix finds. Checked
against plain definitions over generated learnings full of paraphrases, negations, numbers and
choices, so that clusters and contradictions are many (the fast build tests a leader only when its
size and the place of the first shared word let it reach the threshold; nothing else may change).
"""

import math
import random
from collections import Counter

import pytest

from memgit.consolidate.heuristic.graph import (
    CHOICE_TYPES, Occurrence, contradicts, group_key, probe, signature, similar, threshold,
)
from memgit.consolidate.heuristic.leaders import priority_of
from memgit.consolidate.heuristic.memory import Memory

WORDS = ("cache redis schema migration docker compose pytest worker queue deploy branch review token "
         "index search build lint format release config server client session commit merge rebase "
         "frontend backend api route handler timeout retry lock table column").split()
FILLER = "the a of in with before after when for to on".split()
CHOICES = [("pnpm", "npm"), ("uv", "pip"), ("tabs", "spaces"), ("rebase", "merge"), ("ruff", "black")]
KINDS = ("preference", "convention", "decision", "gotcha", "fact", "command")


def statement(rnd: random.Random) -> str:
    """A base learning: 3 to 24 content words, now and then a number, a code span or a choice."""
    words = rnd.sample(WORDS, rnd.choice((3, 5, 7, 9, 10, 12, 14, 17, 20, 24)) % len(WORDS) or 3)
    text = []
    for w in words:
        text.append(w)
        if rnd.random() < 0.3:
            text.append(rnd.choice(FILLER))
    roll = rnd.random()
    if roll < 0.15:
        text += ["node", str(rnd.choice((18, 20, 22)))]
    elif roll < 0.3:
        new, old = rnd.choice(CHOICES)
        text = ["use", new, "instead", "of", old, "for"] + text
    elif roll < 0.4:
        text.insert(rnd.randrange(len(text)), f"`{rnd.choice(WORDS)} {rnd.choice(WORDS)}`")
    elif roll < 0.45:
        text = ["use", rnd.choice(("british", "american")), "spelling", "in"] + text[:2]
    return " ".join(text).capitalize() + "."


def variant(text: str, rnd: random.Random) -> str:
    """Another wording of `text`: a word dropped, added or swapped, negated, renumbered, or the choice reversed."""
    words = text.rstrip(".").split()
    roll = rnd.random()
    if roll < 0.25 and len(words) > 2:
        del words[rnd.randrange(len(words))]
    elif roll < 0.45:
        words.insert(rnd.randrange(len(words) + 1), rnd.choice(WORDS + FILLER))
    elif roll < 0.6:
        words[rnd.randrange(len(words))] = rnd.choice(WORDS)
    elif roll < 0.7:
        words.insert(0, rnd.choice(("Never", "Don't", "Do not")))
    elif roll < 0.8:
        words = [str(int(w) + 2) if w.isdigit() else w for w in words]
    elif roll < 0.9:
        for new, old in CHOICES:
            if new in words and old in words:
                i, j = words.index(new), words.index(old)
                words[i], words[j] = old, new
    else:
        words = [w.upper() if rnd.random() < 0.2 else w for w in words] + ["!"]
    return " ".join(words) + "."


def generated(n_notes: int, seed: int) -> list[tuple[str, list[Occurrence], tuple]]:
    rnd = random.Random(seed)
    bases = [(rnd.choice(KINDS), statement(rnd)) for _ in range(max(4, n_notes // 3))]
    found = []
    for i in range(n_notes):
        path, session = f"sessions/2026/0{1 + i % 9}/note-{i:04d}.md", f"claude-code/s{i % (n_notes // 2 + 1)}"
        when = f"2026-0{1 + i % 9}-{1 + i % 28:02d}T10:00:00"
        learnings = []
        for _ in range(rnd.randint(0, 6)):
            kind, text = rnd.choice(bases)
            for _ in range(rnd.choice((0, 0, 1, 1, 2))):
                text = variant(text, rnd)
            if kind == "command" and rnd.random() < 0.7:
                text = f"Tests run with `uv run pytest {rnd.choice(('-x', '-q', ''))} tests/`."
            learnings.append(Occurrence(kind, text, path, session, when, "", f"Note {i}"))
        found.append((path, learnings, ("", session, when, f"Note {i}", "", "", "")))
    return found


def tables(memory: Memory) -> dict[str, set[tuple]]:
    found = {table: set(memory.db.execute(f"SELECT * FROM {table}"))  # noqa: S608  (fixed names)
             for table in ("groups", "conflicts")}
    return {**found, "postings": set(memory.leaders.postings()), "counts": set(memory.leaders.counts().items())}


def defined(found) -> dict[str, set[tuple]]:
    """The tables as the rules define them, computed the plain way (every pair compared)."""
    ids: dict[tuple[str, str], int] = {}
    for _, learnings, _ in found:
        for o in learnings:
            ids.setdefault(group_key(o), len(ids) + 1)
    counts = Counter(word for kind, norm in ids for word in signature(kind, norm).words)

    def prefix(kind: str, norm: str, share) -> list[str]:
        ordered = sorted(signature(kind, norm).words, key=lambda w: (counts[w], w))
        return ordered[: len(ordered) - math.ceil(share(len(ordered)) * len(ordered)) + 1]

    ranked = sorted(ids, key=lambda key: (priority_of(*key), *key))
    posted = {key: prefix(*key, probe if key[0] in CHOICE_TYPES else threshold) for key in ranked}
    leader: dict[tuple[str, str], tuple[str, str]] = {}
    conflicts = set()
    for i, key in enumerate(ranked):
        mine = signature(*key)
        best, best_score = key, 0.0
        for other in ranked[:i]:  # higher priority: the first found wins a tie
            if other[0] != key[0]:
                continue
            theirs = signature(*other)
            if key[0] in CHOICE_TYPES and set(posted[key]) & set(posted[other]) and contradicts(mine, theirs):
                conflicts |= {(ids[key], ids[other]), (ids[other], ids[key])}
            if leader[other] == other and mine.words and theirs.words & mine.words:
                score = similar(mine, theirs)
                if score > best_score:
                    best, best_score = other, score
        leader[key] = best
    return {"counts": set(counts.items()), "conflicts": conflicts,
            "postings": {(key[0], token, ids[key]) for key in ranked for token in posted[key]},
            "leaders": {(ids[key], ids[leader[key]]) for key in ranked}}


@pytest.mark.parametrize("seed", range(4))
def test_a_full_build_holds_what_the_rules_define(seed):
    found = generated(300, seed)
    with Memory() as memory:
        memory.build(found)
        built = tables(memory)
    expected = defined(found)
    leaders = {(gid, leader) for gid, _, _, _, leader, *_ in built["groups"]}
    assert leaders == expected["leaders"]
    assert len({leader for _, leader in leaders}) < len(leaders) * 0.9  # clusters are many: the test bites
    assert built["conflicts"] == expected["conflicts"] and built["conflicts"]
    assert built["postings"] == expected["postings"]
    assert built["counts"] == expected["counts"]


def test_a_full_build_and_a_memory_grown_note_by_note_cluster_alike():
    found = generated(250, seed=11)
    with Memory() as whole, Memory() as grown:
        whole.build(found)
        for path, learnings, meta in found:
            grown.add_occurrences(path, learnings, meta)
        assert _clusters(whole) == _clusters(grown)
        assert [(c.type, c.text, c.sessions) for c in whole.clusters()] == \
            [(c.type, c.text, c.sessions) for c in grown.clusters()]


def _clusters(memory: Memory) -> set[tuple[str, str, str]]:
    """Each group's (type, words) with its leader's words: the same whoever numbered the groups."""
    return set(memory.db.execute("SELECT g.type, g.norm, l.norm FROM groups g JOIN groups l ON l.id = g.leader"))


def test_a_tokens_postings_follow_the_groups_as_notes_come_and_go():
    """A token's groups are one row, rewritten as groups are posted and dropped: after a full build,
    notes removed and others added, each group is posted under exactly its prefix (in the order the
    build froze), no group that left is, and the clusters are those of a full build of what is left."""
    found = generated(300, seed=5)
    kept, gone, later = found[:150], found[150:220], found[220:]
    with Memory() as memory, Memory() as whole:
        memory.build(kept + gone)
        for path, _, _ in gone:
            memory.remove(path)
        for path, learnings, meta in later:
            memory.add_occurrences(path, learnings, meta)
        groups = [memory.leaders.group(gid) for gid, in memory.db.execute("SELECT id FROM groups")]
        assert len(groups) > 200
        expected = {(g.type, token, g.id) for g in groups
                    for token in memory.leaders._prefix(g, probe if g.type in CHOICE_TYPES else threshold)}
        assert set(memory.leaders.postings()) == expected
        whole.build(kept + later)
        assert _clusters(memory) == _clusters(whole)
