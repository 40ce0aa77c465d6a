"""Where a directory's git repository is, and whether its identity could have changed, in a few `stat`
calls: the session-start hook asks this at every start, so nothing heavier than os is imported."""

from __future__ import annotations

import os
import stat

def git_top(cwd: str) -> str | None:
    """The directory holding the `.git` that `find_git` would find for cwd, walking up (no Path objects: the hook path)."""
    directory = os.path.abspath(cwd)
    if not os.path.isdir(directory):
        return None
    while True:
        dotgit = os.path.join(directory, ".git")
        try:
            mode = os.stat(dotgit).st_mode
        except OSError:
            mode = None
        if mode is not None and (not stat.S_ISDIR(mode) or os.path.isfile(os.path.join(dotgit, "HEAD"))):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def git_signature(top: str, config: str) -> list | None:
    """What would change if the directory's identity changed: its `.git` file and the git config."""
    try:
        st = os.stat(os.path.join(top, ".git"))
    except OSError:
        return None
    # A .git directory's own mtime moves with every index.lock: only a gitfile's is meaningful.
    dotgit = [1, 0, 0] if stat.S_ISDIR(st.st_mode) else [0, st.st_mtime_ns, st.st_size]
    try:
        cs = os.stat(config)
        return dotgit + [cs.st_mtime_ns, cs.st_size]
    except OSError:
        return dotgit + [None, None]
