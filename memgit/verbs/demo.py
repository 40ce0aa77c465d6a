"""`memgit demo`: the whole pipeline on synthetic transcripts, in a temporary repository."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from memgit import config as config_mod
from memgit.verbs import sync, inspect as views
from memgit.sources.claude_code.synthetic import demo_sessions


def run_demo(keep: str | None = None) -> dict:
    """Write synthetic transcripts, sync them into a fresh repo, and return the notes and the log."""
    base = Path(keep).absolute() if keep else Path(tempfile.mkdtemp(prefix="memgit-demo-"))
    claude_root, repo_path = base / "claude", base / "memory"
    projects = claude_root / "projects"
    an_hour_ago = time.time() - 3600
    for session in demo_sessions():
        path = session.write(projects)
        os.utime(path, (an_hour_ago, an_hour_ago))
    cfg = config_mod.load({"HOME": str(base), "CLAUDE_CONFIG_DIR": str(claude_root),
                           "MEMGIT_HOME": str(repo_path), "XDG_CONFIG_HOME": str(base / "config")})
    result = sync.run(cfg, sync.SyncOptions(all=True))
    notes = []
    for r in result.results:
        if r.kind == "extract":
            notes.append(views.show(cfg, f"{r.branch}:{r.note}"))
    history = views.log(cfg, limit=50)
    text = [f"memgit demo: {len(result.results)} synthetic sessions synced into {repo_path}", ""]
    for n in notes:
        text += [f"== {n['branch']}:{n['path']}", n["content"].rstrip(), ""]
    text.append("== memgit log")
    text += [f"{c['sha'][:8]} {c['branch']:20} {c['subject']}" for c in history]
    s = result.summary()
    text += ["", f"read {s['read']}, extracted {s['extracted']}, skipped {s['skipped']}, failed {s['failed']}, "
             f"commits {s['commits']}", f"Browse it: git -C {repo_path} log --all --stat"]
    return {"repo": str(repo_path), "summary": s, "notes": notes, "log": history, "text": "\n".join(text)}
