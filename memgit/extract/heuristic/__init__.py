"""The offline extractor: a session note from a transcript by rules, deterministic and pure.

The whole path, in order:

    session.read     one pass over the transcript: exchanges (what the person said, what the agent
                     answered and ran), accepted plans, build/test runs, edits, compaction summaries
    revisions.prune  the session as it ended: options not taken, what the person corrected or undid
                     and what the agent retracted are gone before any learner reads it
    learners         one pure function per kind of learning, each proposing scored candidates:
                     preferences (rules and corrections the person stated), commands (as they ran
                     and passed), gotchas (error, cause, fix), decisions (a choice with its reason),
                     facts (how the codebase works, as the agent found it), sequences (where a
                     numbered file such as a migration goes, as the work shows it), upkeep (the
                     files the person has updated after the work: README, release notes, tests)
    rank.rank        the shared filter stage (fragments, narration, logs, injected text, ephemera),
                     then the best candidates, deduplicated, within the note's size
    summary          the note's title, paragraph and outcome

Skip rule: no note when the session holds no real request (empty, only slash commands, only
placeholders or warm-ups), or when nothing in it passes as a learning: a note without a learning
is noise in the memory (the `skip` commit still records that the session was read).
"""

from __future__ import annotations

from memgit.core.model import Extraction, Note, Transcript
from memgit.extract import HEURISTIC
from memgit.extract.heuristic import (checks, commands, decisions, facts, gotchas, hooks, memories, preferences, rank,
                                      revisions, sequences, session, summary, upkeep)
from memgit.extract.heuristic.keywords import keywords
from memgit.extract.heuristic.session import Session, is_edit
from memgit.extract.heuristic.shell import program
from memgit.extract.heuristic.text import own_words, title_slug

EXTRACTOR = HEURISTIC
LEARNERS = (preferences.learn, upkeep.learn, commands.learn, gotchas.learn, decisions.learn, facts.learn,
            sequences.learn, hooks.learn, checks.learn, memories.learn)
PROSE_SCAN = 1500  # of a prompt read for keywords: past that it is usually pasted material


def extract(transcript: Transcript, *, project: str) -> Extraction:
    """Distil one transcript into a note, or say why it is not worth one (a skip).

    Args:
        transcript: the session, normalised and redacted by the caller.
        project: the project slug of the session's scope.

    Returns:
        `Extraction(note=Note(...))`, or `Extraction(note=None, reason=...)` for a skip.
    """
    s = revisions.prune(session.read(transcript))  # the final state: options not taken, corrections, undos gone
    candidates = [c for learn in LEARNERS for c in learn(s)]
    learnings = rank.rank(candidates, cwd=s.cwd, budget=rank.budget_for(len(s.requests), len(s.compactions)))
    learnings = gotchas.settle(learnings, s)  # a bug of the project's code fixed in the session is its history
    learnings = checks.settle(learnings, s)  # a remark the checks file as the session left it holds is its history
    if reason := _skip_reason(s, bool(learnings)):
        return Extraction(note=None, reason=reason)
    title = summary.title(s, transcript.title)
    ended = summary.outcome(s)
    note = Note(
        session=transcript.ledger_id,
        agent=transcript.agent,
        project=project,
        title=title,
        summary=summary.paragraph(s, ended),
        learnings=learnings,
        cwd=transcript.cwd,
        git_branch=transcript.git_branch,
        started=transcript.started,
        ended=transcript.ended,
        outcome=ended[0],
        extractor=EXTRACTOR,
        keywords=_keywords(s),
        slug=title_slug(title),
    )
    return Extraction(note=note)


def _skip_reason(s: Session, learned: bool) -> str | None:
    if not s.requests and not s.compactions:
        return "only slash commands" if s.commands else "no user request"
    if learned:
        return None
    n, calls = len(s.requests), len(s.calls) + len(s.side_calls)
    return f"nothing learned: {n} prompt{'s' if n != 1 else ''}, {calls} tool call{'s' if calls != 1 else ''}"


def _keywords(s: Session) -> list[str]:
    all_calls = s.calls + s.side_calls
    return keywords(
        prose=[own_words(x.said)[:PROSE_SCAN] for x in s.requests] + s.compactions + s.plans,
        commands=[r.shell.text for r in s.runs + s.side_runs],
        programs=[program(c.command) for c in all_calls if c.command],
        files=[c.file_path for c in s.edits if c.file_path],
        read=[c.file_path for c in all_calls if not is_edit(c) and c.file_path],
        tools=[c.name for c in all_calls],
    )
