"""`memgit sync` with nothing new, without click: the console script's fast path (memgit.entry), and
the rendering both paths share.

Importing click, every command and the sync pipeline costs ten `python -c pass` and more before a
single folder is listed; a sync that finds nothing new (memgit.verbs.sync_noop) answers in a few.
Only the plain forms are read here (`--no-wait`, `--json`, `--repo`): anything else, and anything
the record cannot answer, returns None and goes through click and the whole pipeline.
"""

from __future__ import annotations

import os
import time

_AGENT_LABELS = {"claude-code": "Claude Code", "codex": "Codex", "gemini-cli": "Gemini CLI"}


def parse(argv: list[str]) -> dict | None:
    """The options of `memgit sync ...` (argv after `sync`), or None when click should read them."""
    opts: dict = {"as_json": False, "repo_path": None}
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg in ("--wait", "--no-wait"):  # either way, a held lock is the full run's to wait for or refuse
            continue
        if arg == "--json":
            opts["as_json"] = True
            continue
        name, eq, value = arg.partition("=")
        if name != "--repo":
            return None
        if not eq:
            if i >= len(argv):
                return None
            value, i = argv[i], i + 1
        opts["repo_path"] = value
    return opts


def main(argv: list[str]) -> int | None:
    """Answer `memgit sync` from argv (after `sync`) when nothing is new; None when the full sync must run."""
    opts = parse(argv)
    if opts is None:
        return None
    from memgit import config
    from memgit.verbs import sync_noop

    try:
        result = sync_noop.answer(config.load(repo_path=opts["repo_path"]), now=time.time())
    except Exception:  # noqa: BLE001 - not an answer: the full run meets the same trouble and says it its own way
        if os.environ.get("MEMGIT_DEBUG"):
            raise
        return None
    if result is None:
        return None
    if opts["as_json"]:
        import json

        print(json.dumps(payload(result, waited=False), indent=2))
    else:
        print(text(result))
    return 0


def payload(result, *, waited: bool, failure: str = "", code: str = "") -> dict:
    from dataclasses import asdict

    return {"ok": not failure, **result.summary(), "waited": waited, "sessions": [asdict(r) for r in result.results],
            **({"error": {"code": code, "message": failure}} if failure else {})}


def _usd(cost) -> str:
    return f", ~${cost:.4f}" if cost is not None else ", cost unknown (an agent CLI, or a model not in litellm's price map)"


def text(result) -> str:
    lines = []
    for r in result.results:
        if r.kind == "planned":
            lines.append(f"would read {r.session}  {r.project}  bytes {r.start}-{r.end}  ({r.reason})"
                         + (f"  ~{r.tokens:,} tokens{_usd(r.cost)}" if r.tokens else ""))
        elif r.kind == "fail":
            lines.append(f"failed {r.session}: {r.reason}")
        elif r.kind == "gone":
            lines.append(f"gone {r.session}: {r.reason}")
    for folder, reason in sorted(result.unreadable.items()):
        agent, _, name = folder.partition(":")
        lines.append(f"unreadable {agent} folder {name}: {reason}")
    s = result.summary()
    if result.dry_run:
        if result.new_repo:
            lines.append(f"no memory repository yet: a real sync creates it at {result.repo}")
        lines += _left_out_text(result)
        lines.append(f"{len(result.results)} session(s) would be read (dry run; nothing written)")
        if s.get("tokens"):
            lines.append(f"{result.extractor} would be sent ~{s['tokens']:,} tokens{_usd(s['cost'])} "
                         "(estimate; output tokens guessed)")
        if result.budget:
            b = result.budget
            lines.append(f"budget: {b['text']}; this run {'fits' if b['fits'] else 'would pass it and stop there'}")
    else:
        if result.consolidated:
            lines.append("consolidated " + ", ".join(c.branch for c in result.consolidated))
        if result.consolidation_error:
            lines.append(f"consolidation failed (the sessions are recorded; the next sync retries): "
                         f"{result.consolidation_error}")
        lines += [f"imported {_AGENT_LABELS.get(i['agent'], i['agent'])} memory {i['source']} onto {i['branch']}"
                  for i in s["imported"]]
        lines += [f"joined {j['joined']} into {j['into']}: one repository ({j['remote']})" for j in s.get("joined", [])]
        lines += [f"your edit: {k}" for k in result.kept]
        lines += [f"warning: {w}" for w in result.warnings]
        lines += _left_out_text(result)
        lines.append(f"read {s['read']}, extracted {s['extracted']}, skipped {s['skipped']}, "
                     f"failed {s['failed']}, commits {s['commits']}  ({s['repo']})")
    return "\n".join(lines)


def _left_out_text(result) -> list[str]:
    lines = []
    if result.too_old:
        lines.append(f"{result.too_old} session(s) are older than {result.max_age_days:g} days (max_age_days); "
                     "`memgit sync --all` reads them")
    if result.looked_in:
        lines.append("no agent history found; looked in:")
        lines += [f"  {x['agent']}: {x['folder']} (set by {x['setting']})" for x in result.looked_in]
    return lines
