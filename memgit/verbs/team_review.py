"""The reader's hand on the team's learnings (issue 22): `memgit review --team` accepts them (with
`[team] review = "new"`, only accepted ones reach the briefing), and `memgit forget` hides one for the
reader alone. Both are commits on the reader's project branch (team/accepted.md, team/hidden.md,
see memgit.verbs.team_memory): revertible, and never sent to the team. A teammate's ref is never
touched; their own forget reaches everyone at the next pull.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from memgit.config import Config
from memgit.consolidate import team as rules
from memgit.core import vocab
from memgit.core.ledger import format_message
from memgit.store.blobs import read_blobs
from memgit.verbs.remember import Written, scope_label, writable
from memgit.verbs.team_memory import ACCEPTED, HIDDEN, mates, shared_memory

_LEARNING = re.compile(rf"^[-*] \[(?P<type>{vocab.TYPE_PATTERN})\] (?P<text>.+)$")
MIN_KEY = 8  # characters of a learning's id that may stand for it
_KEY = re.compile(rf"[0-9a-f]{{{MIN_KEY},16}}")


@dataclass(slots=True)
class TeamLearning:
    """A learning only teammates hold, not yet accepted."""

    branch: str
    people: list[str]
    type: str
    text: str
    key: str

    @property
    def line(self) -> str:
        return f"- [{self.type}] {self.text} ({', '.join(self.people)}; id {self.key})"


@dataclass(slots=True)
class TeamQueue:
    learnings: list[TeamLearning] = field(default_factory=list)
    hidden: dict[str, list[str]] = field(default_factory=dict)  # key -> the hidden keys of each teammate's wording

    def as_dict(self) -> dict:
        return {"learnings": [asdict(x) for x in self.learnings]}


def shared_branches(repo) -> list[str]:
    from memgit.store import team as store

    heads = repo.branches()
    return sorted({vocab.PREFIX + s for t in store.teams(repo) for s in t.shared} & set(heads))


def pending(cfg: Config, project: str | None = None) -> TeamQueue:
    """The team's learnings the reader has not accepted, per shared project (or `project` only).

    Raises:
        NotARepo: no memory repository.
        NoMatch, AmbiguousSelector: `project` names no project, or several.
    """
    from memgit.verbs.inspect import open_repo
    from memgit.verbs.selection import find_project

    queue = TeamQueue()
    with open_repo(cfg) as repo:
        branches = [find_project(repo, project)] if project else shared_branches(repo)
        heads = repo.branches()
        for branch in branches:
            shared = shared_memory(repo, cfg, branch, heads[branch])
            if shared is None:
                continue
            memory, team = shared
            with memory:
                for c in team.pending(memory.clusters()):
                    key = rules.learning_key(c.type, c.text)
                    queue.learnings.append(TeamLearning(branch, team.people(c), c.type, c.text, key))
                    queue.hidden[key] = sorted({rules.hidden_key(rules.person_of(o.path), o.type, o.text)
                                                for o in c.occurrences if rules.person_of(o.path)})
    return queue


def decide(cfg: Config, queue: TeamQueue, accepted: list[TeamLearning], rejected: list[TeamLearning]) -> list[Written]:
    """Record the answers: one `review(<scope>)` commit per project, accepted ones in team/accepted.md,
    rejected ones hidden in team/hidden.md; then the projects are consolidated again.

    Raises:
        SecretFound, LockHeld, ConflictError: as the commit raises them.
    """
    done = []
    with writable(cfg) as repo:
        for branch in sorted({x.branch for x in [*accepted, *rejected]}):
            head = repo.head(branch)
            changes = {}
            yes = [x for x in accepted if x.branch == branch]
            no = [x for x in rejected if x.branch == branch]
            if yes:
                changes[ACCEPTED] = _appended(repo, head, ACCEPTED, "Team learnings you accepted (memgit review --team)",
                                              [f"- {x.key} {','.join(x.people)} [{x.type}] {x.text}" for x in yes])
            if no:
                changes[HIDDEN] = _appended(repo, head, HIDDEN, "Team learnings hidden for you (memgit forget)",
                                            [f"- {k} {','.join(x.people)} [{x.type}] {x.text}" for x in no
                                             for k in queue.hidden.get(x.key, [])])
            message = format_message("review", scope_label(branch), f"team: {len(yes)} accepted, {len(no)} hidden",
                                     trailers=[("Memgit-Team-Accepted", x.key) for x in yes])
            sha = repo.commit(branch, changes, message, expected=head)
            done.append(Written(sha, branch, scope_label(branch), ", ".join(changes), message.split("\n", 1)[0]))
        if done:
            from memgit.verbs import consolidate

            consolidate.run(repo, cfg, branches=sorted({w.branch for w in done}), include_global=False, force=True)
    return done


def _appended(repo, head: str, path: str, title: str, lines: list[str]) -> bytes:
    text = (repo.read(head, path) or f"# {title}\n\n".encode()).decode("utf-8", "replace")
    known = set(text.splitlines())
    return (text + "".join(f"{line}\n" for line in lines if line not in known)).encode()


# -- forget --------------------------------------------------------------------------------------


def teammate_notes(repo) -> dict[tuple[str, str], str]:
    """The text of each teammate's session note of the shared projects, as last pulled: {(the reader's
    branch, `team/<person>/<note>`): text}, read at once."""
    found = {}
    heads = repo.branches()
    for branch in shared_branches(repo):
        read = mates(repo, branch, heads[branch])
        for person, _, sha in read[1] if read else ():
            blobs = {path: blob for path, blob in repo.blobs(sha, "sessions").items() if path.endswith(".md")}
            contents = read_blobs(repo, set(blobs.values()))  # git cat-file, not a read per note
            found.update({(branch, rules.note_path(person, path)): contents[blob].decode("utf-8", "replace")
                          for path, blob in sorted(blobs.items())})
    return found


def learning_lines(text: str, wanted=lambda type_, words, line: True) -> list[str]:
    """The learning lines of a note (`- [type] text`) that `wanted(type, text, line)` keeps."""
    return [line.strip() for line in text.splitlines()
            if (m := _LEARNING.match(line.strip())) and wanted(m["type"], m["text"].strip(), line.strip())]


def matching(notes: dict[tuple[str, str], str], query: str) -> list[tuple[str, str, list[str]]]:
    """The teammates' learnings holding `query` in `notes` (teammate_notes): (the reader's branch,
    `team/<person>/<note>`, the learning lines). Forgetting them hides them here."""
    needle = query.casefold()
    return [(branch, path, lines) for (branch, path), text in notes.items()
            if (lines := learning_lines(text, lambda t, words, line: needle in line.casefold()))]


def named(notes: dict[tuple[str, str], str], target: str) -> list[tuple[str, str, list[str]]]:
    """Every learning of the teammate's note `target` names by its path (`team/<person>/…`, as search
    and the prompt hook print it, with or without `<branch>:`), or those of one learning by its id (the
    key `memgit review --team` prints, or a prefix of MIN_KEY characters only it has)."""
    branch, sep, path = target.partition(":")
    if not sep:
        branch, path = "", target
    path = path.strip("/")
    if rules.person_of(path):
        return [(b, p, lines) for (b, p), text in notes.items()
                if p == path and b.endswith(branch) and (lines := learning_lines(text))]
    if not _KEY.fullmatch(target):
        return []
    found = [(b, p, lines) for (b, p), text in notes.items()
             if (lines := learning_lines(text, lambda t, words, _: rules.learning_key(t, words).startswith(target)))]
    keys = {rules.learning_key(m["type"], m["text"].strip()) for _, _, lines in found for line in lines
            if (m := _LEARNING.match(line))}
    if len(keys) > 1:
        from memgit.errors import AmbiguousSelector

        raise AmbiguousSelector(f"{target!r} is the start of {len(keys)} learnings' ids; give more of it "
                                "(`memgit review --team --json` prints them whole)")
    return found


def is_teammates(path: str) -> bool:
    return rules.person_of(path) is not None and path not in (ACCEPTED, HIDDEN)


def hiding(repo, head: str, drops: list[tuple[str, list[str]]]) -> dict[str, bytes]:
    """The change to team/hidden.md that hides these teammates' learning lines ((`team/<person>/<note>`,
    lines) each); none when there are none."""
    lines = []
    for path, learned in drops:
        person = rules.person_of(path)
        for line in learned:
            if m := _LEARNING.match(line):
                lines.append(f"- {rules.hidden_key(person, m['type'], m['text'].strip())} {person} "
                             f"[{m['type']}] {m['text'].strip()}")
    return {HIDDEN: _appended(repo, head, HIDDEN, "Team learnings hidden for you (memgit forget)", lines)} if lines else {}
