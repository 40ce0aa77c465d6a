"""Planted secrets of every kind, in every place a session carries text, never reach git, the caches,
the logs, memgit's own output or a model.

The kinds: one true positive of every rule in gitleaks' own test table (tests/data/gitleaks, drawn at
test time) and memgit's own planted set (test_secrets.planted). The places: what the person typed,
a tool's input, a tool's output past its first few KB (inside the part that is kept, and across the
cut), what the agent wrote, the session's git branch, and the project folder's name. Everything is
then searched: every object (`git cat-file --batch-all-objects`), every ref name, every file under
.git (reflogs, caches, sync.log), the JSON of `sync` and `status`, and every request the fake model
received.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from memgit.core.redact import find_secrets
from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, fsck
from tests.fake_llm import Reply
from tests.integration.test_secrets import planted
from tests.unit.test_redact_rules import EXCUSED, TABLE, texts

FILLER = "".join(f"line {i}: nothing to see here, all good\n" for i in range(120))  # ~4 KB


def kinds() -> dict[str, tuple[str, str]]:
    """kind -> (a text holding the secret, the secret itself): 200+ kinds."""
    out = {f"memgit:{kind}": pair for kind, pair in planted().items()}
    for rule_id, entry in TABLE["rules"].items():
        for index in range(len(entry["tps"])):
            if (rule_id, "tps", index) in EXCUSED:
                continue
            samples, secret = texts(rule_id, "tps", index)
            text = samples[0]
            if secret is None:  # a literal sample: the secret is what the redaction finds in it
                found = find_secrets(text)
                if not found:
                    continue
                secret = max((text[f.start:f.end] for f in found), key=len)
            if len(secret) >= 12 and "\n" not in secret and secret not in {v for _, v in out.values()}:
                out[f"gitleaks:{rule_id}"] = (text, secret)
                break
    return out


def plant(projects: Path, kind: str, text: str, secret: str, i: int) -> None:
    """One idle session carrying the secret in every place. A name (the git branch, the folder) holds
    only the value, with nothing around it to say what it is: only a value that gives itself away
    (a known prefix or shape: ghp_, AKIA, xoxb-, a PEM block...) can be found there, so only those
    are planted in names; any random string could be a folder's name."""
    named = bool(find_secrets(secret))
    w = SessionWriter(session_id(f"planted-{kind}"), "/home/demo/dev/vault",
                      git_branch=f"feature/{secret}" if named else "main")
    w.user(f"Always deploy with this config, never another one: {text}")
    w.bash(f"echo '{text}' > .env && uv run pytest -x tests/", "12 passed in 0.8s")
    w.bash("cat deploy.log", FILLER + f"config loaded: {text}\n" + FILLER[:900])  # kept: in the output's tail
    w.bash("cat big.log", FILLER[:1480] + text + FILLER)  # across the cut between the kept head and the rest
    w.assistant(f"Found the cause: the deploy reads `{text}` from .env, so the tests pass now.")
    path = w.write(projects)
    if named and "/" not in secret and "\\" not in secret:  # a folder name cannot hold a slash
        folder = projects / f"-home-demo-{secret}"
        folder.mkdir(exist_ok=True)
        path = path.rename(folder / path.name)
    age(path, 7200 - i)


def leaks(secrets: dict[str, tuple[str, str]], *haystacks: str) -> list[str]:
    hay = "\n".join(haystacks)
    low = hay.lower()
    return sorted(kind for kind, (_, secret) in secrets.items() if secret in hay or secret.lower() in low)


def everything_in(memory: Path) -> str:
    objects = subprocess.run(["git", "-C", str(memory), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout.decode("utf-8", "replace")
    refs = subprocess.run(["git", "-C", str(memory), "for-each-ref", "--format=%(refname)"],
                          capture_output=True, check=True, text=True).stdout
    files = [p for p in (memory / ".git").rglob("*") if p.is_file()]
    return "\n".join([objects, refs, *map(str, files), *(p.read_bytes().decode("utf-8", "replace") for p in files)])


def test_no_planted_secret_of_any_kind_in_any_place_reaches_git_caches_logs_or_output(
        claude_projects, memory_path, memgit_cli):
    secrets = kinds()
    assert len(secrets) >= 70 and sum(bool(find_secrets(v)) for _, v in secrets.values()) >= 70
    for i, (kind, (text, secret)) in enumerate(sorted(secrets.items())):
        plant(claude_projects, kind, text, secret, i)
    result = memgit_cli("sync", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["read"] == len(secrets) and summary["extracted"] > len(secrets) // 2
    status = memgit_cli("status", "--json")
    assert status.exit_code == 0
    assert leaks(secrets, everything_in(memory_path), result.output, status.output) == []
    assert "[REDACTED:" in everything_in(memory_path)  # redacted, and the notes still kept
    scan = memgit_cli("scan")
    assert scan.exit_code == 0, scan.output
    fsck(memory_path)


def test_no_planted_secret_reaches_the_model_or_survives_its_answer(claude_projects, memory_path, memgit_cli,
                                                                   fake_llm):
    secrets = kinds()
    items = sorted(secrets.items())
    for n in range(0, len(items), 25):  # a handful of sessions, each carrying 25 kinds everywhere
        w = SessionWriter(session_id(f"llm-planted-{n}"), "/home/demo/dev/vault")
        for kind, (text, _secret) in items[n:n + 25]:
            w.user(f"Use this: {text}")
            w.bash(f"deploy --config '{text}'", FILLER + text + FILLER[:500])
            w.assistant(f"Deployed with {text}.")
        age(w.write(claude_projects), 7200 - n)
    # A model that writes secrets into its answer anyway (from its training, say): those that give
    # themselves away must still be caught after it. (A bare random string it never saw, it cannot write.)
    echoed = [secret for _, (_, secret) in items if find_secrets(secret)][:40]
    fake_llm.default = Reply.json({
        "keep": True, "reason": "", "title": "Deploy", "summary": f"Deployed with {echoed[0]}.", "outcome": "success",
        "learnings": [{"type": "fact", "text": f"The deploy key is {secret}."} for secret in echoed],
        "keywords": ["deploy"]})
    result = memgit_cli("sync", "--model", "openai/fake-model", "--api-base", fake_llm.api_base, "--json")
    assert result.exit_code == 0, result.output
    sent = "\n".join(r["raw"] if isinstance(r.get("raw"), str) else json.dumps(r) for r in fake_llm.requests)
    if leaks(secrets, sent):
        _debug_where(fake_llm, secrets)
    assert fake_llm.requests and leaks(secrets, sent) == []
    assert leaks(secrets, everything_in(memory_path), result.output) == []


def _debug_where(fake_llm, secrets):  # pragma: no cover - kept for diagnosing a failure
    for n, r in enumerate(fake_llm.requests):
        for kind, (_, secret) in secrets.items():
            i = r["raw"].find(secret)
            if i >= 0:
                roles = [(m["role"], str(m["content"])[:60]) for m in r["body"]["messages"]]
                print(n, kind, roles)


# ---- the wide set: the families issue 18 found leaking, in every place a session carries text ----

WIDE_SEED = "memgit/test_planted/wide"


def write_wide(projects: Path, secrets: dict[str, tuple[str, str]], per_session: int = 7) -> None:
    """Sessions carrying each secret in every place: the prompt, a command, a short and a very long
    output (the value past the kept head), a Write, an Edit, a Read, the agent's text, a compaction
    summary, and a subagent's own transcript (its task and its command)."""
    items = sorted(secrets.items())
    for n in range(0, len(items), per_session):
        sid = session_id(f"wide-{n}")
        w = SessionWriter(sid, "/home/demo/dev/vault")
        sub = SessionWriter(sid, "/home/demo/dev/vault")
        w.user(f"This session is being continued from a previous conversation that ran out of context. "
               f"Summary: we configured the deploy with {items[n][1][0]}.", isCompactSummary=True)
        for _kind, (text, _secret) in items[n:n + per_session]:
            w.user(f"Always deploy with this config, never another one: {text}")
            w.bash(f"echo '{text}' > .env && uv run pytest -x tests/", "12 passed in 0.8s")
            w.bash("uv run pytest -x tests/", f"E   ConnectionError: could not connect with {text}", error=True)
            w.bash("uv run pytest -x tests/", "12 passed in 0.9s")
            w.bash("cat big.log", FILLER * 3 + text + "\n" + FILLER)  # far past what a source keeps
            w.tool("Write", {"file_path": "/home/demo/dev/vault/config.env", "content": f"# deploy\n{text}\n"},
                   "File created successfully at: /home/demo/dev/vault/config.env")
            w.edit("/home/demo/dev/vault/settings.py", "CONFIG = None", f"CONFIG = {text!r}")
            w.tool("Read", {"file_path": "/home/demo/dev/vault/notes.md"}, f"     1\t# Notes\n     2\t{text}\n")
            w.assistant(f"Done: the deploy now reads {text} as you asked.")
            sub.user(f"Find where the deploy reads {text} and check it works.")
            sub.bash(f"grep -rn '{text}' deploy/", f"deploy/run.sh:3:{text}")
        w.tool("Task", {"description": "check the deploy", "prompt": "Check the deploy config.",
                        "subagent_type": "general-purpose"}, "The deploy config is read in deploy/run.sh.")
        path = w.write(projects)
        for record in sub.records:
            record["isSidechain"], record["agentId"] = True, "a1b2c3"
        (path.parent / sid / "subagents").mkdir(parents=True, exist_ok=True)
        (path.parent / sid / "subagents" / "agent-a1b2c3.jsonl").write_text(sub.lines())
        age(path, 7200 - n)


def wide_secrets() -> dict[str, tuple[str, str]]:
    import random

    from tests.planted_kinds import wide
    return wide(random.Random(WIDE_SEED))


def test_the_wide_set_reaches_no_git_object_cache_or_output(claude_projects, memory_path, memgit_cli, hermetic_env):
    secrets = wide_secrets()
    write_wide(claude_projects, secrets)
    result = memgit_cli("sync", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["extracted"] >= 1
    search = memgit_cli("search", "deploy config", "--json")  # builds the search index from the notes
    assert search.exit_code == 0, search.output
    written = [p for p in hermetic_env.rglob("*") if p.is_file() and ".claude" not in p.parts]  # config, caches
    assert any(p.name == "search.sqlite" for p in written)
    assert leaks(secrets, everything_in(memory_path), result.output, search.output,
                 *(p.read_bytes().decode("utf-8", "replace") for p in written)) == []
    assert memgit_cli("scan").exit_code == 0
    fsck(memory_path)


def test_the_wide_set_reaches_no_request_to_the_model(claude_projects, memory_path, memgit_cli, fake_llm):
    secrets = wide_secrets()
    write_wide(claude_projects, secrets)
    result = memgit_cli("sync", "--model", "openai/fake-model", "--api-base", fake_llm.api_base, "--json")
    assert result.exit_code == 0, result.output
    bodies = [r["raw"] if isinstance(r.get("raw"), str) else json.dumps(r) for r in fake_llm.requests]
    assert len(bodies) >= 3  # every session went to the model
    sent = "\n".join(bodies)
    assert "subagent" in sent and "Find where the deploy reads" in sent  # the subagent's transcript was sent
    assert leaks(secrets, sent) == []
    assert leaks(secrets, everything_in(memory_path), result.output) == []
