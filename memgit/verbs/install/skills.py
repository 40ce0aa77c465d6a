"""Publish the memory repository's skills where the agents look for a user's skills.

Consolidation writes `skills/<name>/SKILL.md` on scope branches; no agent reads them there. For
each agent memgit was installed into, every such skill is copied to
`<agent's skills folder>/memgit-<scope>-<name>/SKILL.md` (scope: the project's slug, `global` for
main), its front matter's `name` set to that folder's name (the Agent Skills rule), its links into
the repository turned into `memgit show` commands, and its text passed through redaction once more.

memgit's own skills, shipped in the package and in the plugin's skills/ (memgit-recall: how to run
`memgit search` and `memgit show`), are published beside them, as they are.

Only folders memgit recorded in the manifest as its own are ever written or removed; a copy a person
changed is left alone (and forgotten); a folder of that name memgit did not make is never touched.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Mapping
from pathlib import Path

from memgit.core.redact import redact_count
from memgit.core.scopes import slugify
from memgit.core.vocab import MAIN, PREFIX
from memgit.resources import data_dir
from memgit.verbs.install.manifest import sha256

log = logging.getLogger("memgit.verbs.install")
NAMESPACE = "memgit"
MAX_NAME = 64  # the Agent Skills limit, which Claude Code, Codex and Gemini CLI share
SKILL_FILE = "SKILL.md"
_LINK = re.compile(r"\[([^\]\n]*)\]\((?![a-z][a-z0-9+.-]*:|#|/)([^)\s]+)\)")


def published_name(scope: str, name: str) -> str:
    """`memgit-<scope>-<name>`, kebab-case, within 64 characters; a name already led by its scope keeps one copy."""
    scope, name = slugify(scope, MAX_NAME), slugify(name, MAX_NAME)
    if name == scope or name.startswith(scope + "-"):
        name = name[len(scope):].lstrip("-")
    return "-".join(filter(None, (NAMESPACE, scope, name)))[:MAX_NAME].rstrip("-")


def render(text: str, *, branch: str, name: str, published: str) -> str | None:
    """The SKILL.md as published; None when it has no front matter with a description to go by."""
    import yaml  # lazy: only sync and install come here

    if not text.startswith("---\n") or "\n---\n" not in text[3:]:
        return None
    head, body = text[4:].split("\n---\n", 1)
    try:
        meta = yaml.safe_load(head)
    except yaml.YAMLError:
        return None
    if not isinstance(meta, dict) or not isinstance(meta.get("description"), str):
        return None
    meta = {"name": published, **{k: v for k, v in meta.items() if k != "name"}}
    where = f"skills/{name}"

    def link(m: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(where, m.group(2)))
        if target.startswith(".."):
            return m.group(1)
        return f"{m.group(1)} (`memgit show {branch}:{target}`)"

    origin = (f"<!-- published by memgit from {branch}:{where}/{SKILL_FILE} in the memory repository; memgit "
              "rewrites this folder after each sync and `memgit uninstall` removes it -->")
    dumped = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{dumped}---\n{origin}\n{_LINK.sub(link, body.lstrip(chr(10)))}"


def collect(repo, *, extra_patterns=(), allow=()) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """Every scope branch's skills as published: {published name: (text, source)}, and warnings."""
    wanted: dict[str, tuple[str, str]] = {}
    warnings = []
    for branch, head in sorted(repo.branches().items()):
        if branch != MAIN and not branch.startswith(PREFIX):
            continue
        scope = "global" if branch == MAIN else branch[len(PREFIX):]
        for path, blob in sorted(repo.blobs(head, "skills").items()):
            parts = path.split("/")
            if len(parts) != 3 or parts[2] != SKILL_FILE:
                continue
            name = published = published_name(scope, parts[1])
            n = 2
            while name in wanted:  # two scopes whose names run together
                name = f"{published[:MAX_NAME - len(str(n)) - 1]}-{n}"
                n += 1
            text = render(repo.read_blob(blob).decode("utf-8", "replace"), branch=branch, name=parts[1],
                          published=name)
            if text is None:
                warnings.append(f"{branch}:{path} has no front matter with a description; not published")
                continue
            text, hidden = redact_count(text, extra_patterns, allow=allow)
            if hidden:
                warnings.append(f"{branch}:{path}: {hidden} secret(s) redacted in the published copy")
            wanted[name] = (text, f"{branch}:{path}")
    return wanted, warnings


def shipped() -> dict[str, tuple[str, str]]:
    """memgit's own skills: {name: (text, source)}, from the package's (or the checkout's) skills/."""
    return {p.parent.name: (p.read_text(encoding="utf-8"), f"memgit:skills/{p.parent.name}/{SKILL_FILE}")
            for p in sorted(data_dir("skills").glob(f"*/{SKILL_FILE}"))}


def sync_folder(folder: Path, published: dict, wanted: Mapping[str, tuple[str, str]]) -> tuple[list[str], list[str]]:
    """Make memgit's folders under `folder` hold `wanted`; update `published` (name -> {sha256, source}).

    Returns the changes and the warnings. A file that cannot be written is a warning, not an error:
    the memory itself is safe in the repository.
    """
    changes, warnings = [], []
    for name, (text, source) in sorted(wanted.items()):
        file = folder / name / SKILL_FILE
        data = text.encode("utf-8")
        mine = published.get(name)
        current = _read(file)
        if mine is None and (folder / name).exists():
            warnings.append(f"{folder / name} exists and is not memgit's; left alone")
            continue
        if mine is not None and current is not None and sha256(current) != mine["sha256"]:
            warnings.append(f"{file} was changed by hand; memgit leaves it to you and no longer updates it")
            del published[name]
            continue
        if current == data:
            published[name] = {"sha256": sha256(data), "source": source}
            continue
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            tmp = file.with_name(f".{SKILL_FILE}.memgit.tmp")
            tmp.write_bytes(data)
            tmp.replace(file)
        except OSError as e:
            warnings.append(f"cannot write {file}: {e.strerror or e}")
            continue
        changes.append(f"{'updated' if current is not None else 'published'} {file}")
        published[name] = {"sha256": sha256(data), "source": source}
    for name in sorted(set(published) - set(wanted)):
        c, w = remove_one(folder, name, published.pop(name))
        changes += c
        warnings += w
    return changes, warnings


def remove_one(folder: Path, name: str, record: dict) -> tuple[list[str], list[str]]:
    """Delete one published skill memgit wrote, unless a person changed it since."""
    file = folder / name / SKILL_FILE
    current = _read(file)
    if current is None:
        return [], []
    if sha256(current) != record.get("sha256"):
        return [], [f"{file} was changed by hand; left in place"]
    try:
        file.unlink()
        file.parent.rmdir()  # only when memgit's file was all it held
    except OSError as e:
        if file.exists():
            return [], [f"cannot delete {file}: {e.strerror or e}"]
    return [f"removed {file}"], []


def first_missing(folder: Path) -> Path | None:
    """The outermost folder of `folder`'s path that does not exist yet (what publishing will create)."""
    missing = None
    for path in (folder, *folder.parents):
        if path.exists():
            return missing
        missing = path
    return missing


def remove_created(folder: Path, created: str | None) -> list[str]:
    """Delete the folders memgit created for the skills (`folder` up to `created`), those left empty."""
    if not created or not (folder == Path(created) or Path(created) in folder.parents):
        return []
    removed = []
    for path in (folder, *folder.parents):
        try:
            path.rmdir()
        except OSError:  # a person's files in it, or gone already: it stays as it is
            break
        removed.append(f"removed the empty folder {path}")
        if path == Path(created):
            break
    return removed


def _read(file: Path) -> bytes | None:
    try:
        return file.read_bytes()
    except OSError:
        return None
