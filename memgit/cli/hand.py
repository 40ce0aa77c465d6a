"""A person's hand on memory: `remember`, `forget`, `review` and `edit` (memgit.verbs.remember,
memgit.verbs.forget, memgit.verbs.review)."""

from __future__ import annotations

from dataclasses import asdict

import click

from memgit.cli.app import cli, confirm, emit, json_option, load_config, repo_option
from memgit.core import vocab

project_option = click.option("--project", help="This project's scope: its branch, slug or PROJECT.md name, or a "
                              "prefix only it has.")
global_option = click.option("--global", "global_", is_flag=True, help="Main's scope, which holds in every project.")


@cli.command()
@click.argument("text")
@click.option("--type", "type_", help="The kind of learning (preference, convention, command, gotcha, decision, fact).")
@global_option
@project_option
@click.option("--private", is_flag=True, help="Never sent to a team, even in a shared project.")
@repo_option
@json_option
def remember(text, type_, global_, project, private, repo_path, as_json) -> None:
    """Pin TEXT as a note of the current project (or --global / --project): every session is told it.

    Example: memgit remember "Deploys happen on Fridays; never merge on Thursday evening" --global
    """
    from memgit.verbs.remember import remember as pin

    done = pin(load_config(repo_path), text, type_=type_, project=project, global_=global_, private=private)
    emit(as_json, {"ok": True, **asdict(done)}, f"{done.subject}; nothing committed" if done.already
         else f"{done.sha[:8]} {done.subject}\n  {done.branch}:{done.path}")


@cli.command()
@click.argument("target")
@click.option("--yes", "-y", is_flag=True, help="Do not ask before forgetting.")
@repo_option
@json_option
def forget(target, yes, repo_path, as_json) -> None:
    """Forget a NOTE (path or file name), a SESSION (id or prefix), or the learnings holding QUERY.

    Shows what will go and asks; without a terminal to ask, or with --json, it needs --yes. One `forget`
    commit per scope, then the scope is consolidated again. `git revert` of the commit brings it back.
    A teammate's learning (a shared project) is hidden for you alone, never changed in their notes: by
    its note's path (team/<person>/…, as search shows it), its session, its id (`memgit review --team`
    prints it) or its words.

    Example: memgit forget "uv run pytest" --yes
    """
    from memgit.verbs import forget as verb

    cfg = load_config(repo_path)
    chosen = verb.plan(cfg, target)
    if not as_json:
        click.echo(_plan_text(chosen))
    confirm("Forget this?", yes=yes, as_json=as_json, doing="forgetting")
    done = verb.forget(cfg, chosen)
    emit(as_json, {"ok": True, **chosen.as_dict(), "commits": [asdict(c) for c in done.commits],
                   "consolidated": [c.scope for c in done.consolidated]}, _written_text(done.commits, done.consolidated))


def _plan_text(chosen) -> str:
    lines = [f"{'will go' if chosen.how != 'query' else 'learnings and notes matching ' + repr(chosen.target)}:"]
    for d in chosen.drops:
        lines.append(f"  {d.branch}:{d.path}" + ("" if d.whole else f"  ({len(d.lines)} line(s))"))
        lines += [f"      {line}" for line in d.lines]
    return "\n".join(lines)


def _written_text(commits, consolidated) -> str:
    lines = [f"{c.sha[:8]} {c.subject}" for c in commits]
    lines += [f"{c.sha[:8]} consolidate({c.scope})" for c in consolidated]
    forgets = [c for c in commits if c.subject.startswith("forget(")]
    if forgets:
        lines.append("undo: git revert " + " ".join(c.sha[:12] for c in forgets) + " (on its branch), then memgit consolidate")
    return "\n".join(lines)


@cli.command()
@click.option("--project", help="Only this scope: a project (slug, projects/<slug>, its name, a prefix only it has) "
              "or main.")
@click.option("--type", "types", multiple=True, type=click.Choice(vocab.LEARNING_TYPES),
              help="Only learnings of this type (repeatable).")
@click.option("--since", type=click.DateTime(["%Y-%m-%d"]), metavar="YYYY-MM-DD",
              help="Only learnings of sessions on or after this day.")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many learnings this time.")
@click.option("--accept-all", is_flag=True, help="Accept every learning of the queue and record the review.")
@click.option("--team", "team", is_flag=True, help="The teammates' learnings of your shared projects instead: accepted, "
              "they reach the briefing ([team] review = \"new\"); rejected, they are hidden for you.")
@repo_option
@json_option
def review(project, types, since, limit, accept_all, team, repo_path, as_json) -> None:
    """Accept or reject each learning added since the last review; rejecting one forgets it.

    What the agent is told first comes first. Each answer is recorded as it is given: quit (q) at any
    point and the next `memgit review` goes on from there. With --json it only lists them (add
    --accept-all to record them as reviewed).

    Example: memgit review --project pinion --type gotcha --limit 20
    """
    from memgit.verbs import review as verb

    cfg = load_config(repo_path)
    if team:
        return _review_team(cfg, project, accept_all, as_json)
    todo = verb.pending(cfg, project=project, types=types, since=since and since.date(), limit=limit)
    if as_json and not accept_all or not todo.learnings:
        emit(as_json, {"ok": True, **todo.as_dict()}, f"none of the {todo.left} learning(s) left to review matches "
             "these options" if todo.left else "nothing new to review since the last review")
        return
    if accept_all:
        done = verb.finish(cfg, todo, todo.learnings, [])
    else:
        done = verb.finish(cfg, todo, *_ask(cfg, todo), recorded=True)
    left = todo.left - done.accepted - done.rejected
    emit(as_json, {"ok": True, "accepted": done.accepted, "rejected": done.rejected, "left": left,
                   "commits": [asdict(c) for c in done.commits]},
         _written_text(done.commits, done.consolidated) + f"\naccepted {done.accepted}, rejected {done.rejected}"
         + (f"; {left} left: `memgit review` goes on from there" if left else "; nothing left to review"))


def _review_team(cfg, project, accept_all, as_json) -> None:
    """`memgit review --team`: accept (a), hide (r) or leave (q) each learning only teammates hold."""
    from memgit.verbs import team_review

    queue = team_review.pending(cfg, project)
    if as_json and not accept_all or not queue.learnings:
        emit(as_json, {"ok": True, **queue.as_dict()}, "nothing of the team's left to review")
        return
    accepted, rejected = (queue.learnings, []) if accept_all else ([], [])
    for i, x in enumerate([] if accept_all else queue.learnings, 1):
        click.echo(f"[{i}/{len(queue.learnings)}] {x.branch}\n  {x.line}")
        answer = click.prompt("  accept, reject or quit", type=click.Choice(["a", "r", "q"]), default="a")
        if answer == "q":
            break
        (accepted if answer == "a" else rejected).append(x)
    done = team_review.decide(cfg, queue, accepted, rejected)
    emit(as_json, {"ok": True, "accepted": len(accepted), "rejected": len(rejected), "commits": [asdict(c) for c in done]},
         "\n".join(f"{c.sha[:8]} {c.subject}" for c in done) + f"\naccepted {len(accepted)}, hidden {len(rejected)}")


def _ask(cfg, todo) -> tuple[list, list]:
    """Ask about each learning: a(ccept), r(eject) or q(uit); record each answer as it is given."""
    from memgit.verbs.review import decide

    accepted, rejected = [], []
    for i, x in enumerate(todo.learnings, 1):
        click.echo(f"[{i}/{len(todo.learnings)}] {x.branch}:{x.path}\n  {x.line}")
        answer = click.prompt("  accept, reject or quit", type=click.Choice(["a", "r", "q"]), default="a")
        if answer == "q":
            break
        decide(cfg, x, accept=answer == "a")
        (accepted if answer == "a" else rejected).append(x)
    return accepted, rejected


@cli.command()
@click.argument("path", required=False)
@project_option
@global_option
@repo_option
def edit(path, project, global_, repo_path) -> None:
    """Open $EDITOR on a file of the scope (default memory_summary.md, what every session of the current
    project is told) and commit it.

    An edit of a file memgit rewrites (MEMORY.md, memory_summary.md, its skills) is kept as yours: a line
    you add is pinned as your note and stays where you put it, a line you remove stays out, at every
    consolidation; `git revert` of the edit commit undoes it.

    Example: memgit edit MEMORY.md --project pinion
    """
    from memgit.verbs.remember import commit_edit, edit_target, how_kept

    cfg = load_config(repo_path)
    branch, path, head, text = edit_target(cfg, path, project=project, global_=global_)
    click.echo(f"editing {branch}:{path}; {how_kept(path)}", err=True)
    new = click.edit(text, extension=".md", require_save=True)
    done = commit_edit(cfg, branch, path, head, new) if new is not None else None
    click.echo((f"{done.sha[:8]} {done.subject}" + (f"\n{done.kept}" if done.kept else "")) if done
               else f"{branch}:{path} unchanged; nothing committed")
