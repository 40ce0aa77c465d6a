"""Which repository a transcript names as its project's own (memgit.core.evidence): the rule and its refusals.

Transcripts are built as values here (the sources' parsing is tested elsewhere); the integration tests
read the same cases from synthetic Claude Code files.
"""

from __future__ import annotations

from collections import Counter

import pytest

from memgit.core import evidence
from memgit.core.model import ToolCall, Transcript, Turn

CWD = "/Users/ana/prg/cc-backend"
GO_TEST = "ok  \tgithub.com/ClusterCockpit/cc-backend/internal/repository\t0.820s\n"
DEPENDENCY = '\t"github.com/ClusterCockpit/cc-lib/schema"\n\tcclog "github.com/ClusterCockpit/cc-lib/ccLogger"\n'


def shell(command: str, output: str, *, error: bool = False) -> ToolCall:
    return ToolCall(id=command[:8], name="Bash", input={"command": command}, output=output, kind="shell",
                    is_error=error, answered=True)


def read(path: str, output: str, **extra) -> ToolCall:
    return ToolCall(id=path[-8:], name="Read", input={"file_path": path, **extra}, output=output, kind="read",
                    answered=True)


def transcript(*calls: ToolCall, cwd: str = CWD, turns: tuple[Turn, ...] = ()) -> Transcript:
    return Transcript("s1", "claude-code", "/x.jsonl", cwd=cwd,
                      turns=[*turns, Turn("assistant", "working", tool_calls=list(calls))])


def found(t: Transcript, name: str = "cc-backend") -> str | None:
    f = evidence.repository(t, name)
    return f.remote if f else None


# ---- what is accepted ---------------------------------------------------------------------------


@pytest.mark.parametrize("call", [
    shell("go test ./internal/repository/...", GO_TEST),
    shell("git push origin main", "To github.com:ClusterCockpit/cc-backend.git\n   1a2b3c4..5d6e7f8  main -> main\n"),
    shell("git fetch", "From https://github.com/ClusterCockpit/cc-backend\n * branch main -> FETCH_HEAD\n"),
    shell("git remote -v", "origin\tgit@github.com:ClusterCockpit/cc-backend.git (fetch)\n"
                           "origin\tgit@github.com:ClusterCockpit/cc-backend.git (push)\n"),
    shell("git remote get-url origin", "https://github.com/ClusterCockpit/cc-backend.git\n"),
    shell("git log --oneline -3", "df2a13de Merge branch 'hotfix' of github.com:ClusterCockpit/cc-backend into hotfix\n"),
    shell("gh pr create --fill", "https://github.com/ClusterCockpit/cc-backend/pull/1234\n"),
    shell(f"head -5 {CWD}/go.mod", "module github.com/ClusterCockpit/cc-backend\n\ngo 1.25.0\n"),
    read(f"{CWD}/go.mod", "     1→module github.com/ClusterCockpit/cc-backend\n     2→\n     3→go 1.25.0\n"),
    read(f"{CWD}/package.json", '1\t{\n2\t  "name": "cc-backend",\n3\t  "repository": "https://github.com/ClusterCockpit/cc-backend"\n'),
    read(f"{CWD}/.goreleaser.yaml", "Please check out the [Release Notes](https://github.com/ClusterCockpit/cc-backend/blob/master/ReleaseNotes.md)"),
])
def test_the_project_own_repository_is_found_in_tool_output(call):
    assert found(transcript(call)) == "github.com/clustercockpit/cc-backend"


def test_import_paths_of_the_project_count_when_there_are_two():
    one = read(f"{CWD}/pkg/x.go", '\t"github.com/ClusterCockpit/cc-backend/internal/config"\n')
    assert found(transcript(one)) is None  # one mention alone says too little
    assert found(transcript(one, one)) == "github.com/clustercockpit/cc-backend"


def test_the_reason_says_which_evidence_was_counted():
    f = evidence.repository(transcript(shell("go test ./...", GO_TEST * 3)), "cc-backend")
    assert f is not None and f.why == "`go test` package lines (3)"


def test_a_worktree_checkout_is_compared_by_the_repository_name_not_the_folder_case():
    assert found(transcript(shell("go test ./...", GO_TEST), cwd="/Users/ana/CC-Backend"), "CC-Backend") == \
        "github.com/clustercockpit/cc-backend"


def test_a_fork_pushed_to_outweighs_the_upstream_it_pulls_from():
    t = transcript(*[shell("git push", "To github.com:ana/cc-backend.git\n")] * 3,
                   shell("git pull upstream main", "From github.com:ClusterCockpit/cc-backend\n"))
    assert found(t) == "github.com/ana/cc-backend"


# ---- what is refused ----------------------------------------------------------------------------


def test_a_dependency_never_wins():
    t = transcript(read(f"{CWD}/internal/api/rest.go", DEPENDENCY * 20),
                   shell("go get github.com/ClusterCockpit/cc-lib@v1.0.0", "go: upgraded github.com/ClusterCockpit/cc-lib v0.9.0 => v1.0.0\n"))
    assert found(t) is None


def test_a_repository_of_another_name_is_refused_even_when_strong():
    t = transcript(shell("git push", "To github.com:ClusterCockpit/cc-lib.git\n"),
                   shell("go test ./...", "ok  \tgithub.com/ClusterCockpit/cc-lib/schema\t0.1s\n"))
    assert found(t) is None


def test_two_competing_repositories_of_one_name_are_refused():
    t = transcript(shell("git push", "To github.com:ana/cc-backend.git\n"),
                   shell("git fetch upstream", "From github.com:ClusterCockpit/cc-backend\n"))
    assert found(t) is None


def test_git_remote_naming_another_repository_overrules_weaker_evidence():
    t = transcript(shell("git remote -v", "origin\tgit@github.com:ana/backend-fork.git (fetch)\n"),
                   shell("go test ./...", GO_TEST * 5))
    assert found(t) is None


def test_two_origins_are_refused():
    t = transcript(shell("git remote -v", "origin\tgit@github.com:ana/cc-backend.git (fetch)\n"),
                   shell("git remote get-url origin", "git@github.com:ClusterCockpit/cc-backend.git\n"))
    assert found(t) is None


@pytest.mark.parametrize("command", ["cd ../other/cc-backend && git push", "git -C /tmp/cc-backend push"])
def test_a_command_run_in_another_directory_says_nothing_about_the_project(command):
    assert found(transcript(shell(command, "To github.com:ClusterCockpit/cc-backend.git\n"))) is None


def test_a_command_that_changes_to_the_project_itself_still_counts():
    t = transcript(shell(f"cd {CWD} && go test ./...", GO_TEST))
    assert found(t) == "github.com/clustercockpit/cc-backend"


def test_failed_calls_and_the_person_s_own_text_are_not_evidence():
    t = transcript(shell("git push", "To github.com:ClusterCockpit/cc-backend.git\n", error=True),
                   turns=(Turn("user", "clone github.com/ClusterCockpit/cc-backend and github.com/ClusterCockpit/cc-backend"),))
    assert found(t) is None


def test_decide_needs_dominance_within_the_deciding_tier():
    both = Counter({(evidence.PACKAGE, "github.com/a/x"): 2, (evidence.PACKAGE, "github.com/b/x"): 1})
    assert evidence.decide(both, "x") is None  # 8 against 4: not three times
    lopsided = Counter({(evidence.PACKAGE, "github.com/a/x"): 3, (evidence.PACKAGE, "github.com/b/x"): 1,
                        (evidence.MENTION, "github.com/b/x"): 40})
    f = evidence.decide(lopsided, "x")
    assert f is not None and f.remote == "github.com/a/x"  # strong evidence is not outvoted by mentions


# ---- the project's own files, as the session read them -------------------------------------------

README = "     1→# Lantern\n     2→\n     3→Lantern is a static site generator for field notes.\n     4→\n     5→## Install\n"


def test_project_files_are_the_reads_of_the_root_files_from_their_first_line():
    t = transcript(read(f"{CWD}/README.md", README),
                   read(f"{CWD}/CLAUDE.md", "200→late line", offset=200),
                   read(f"{CWD}/docs/AGENTS.md", "1→# Not the root"),
                   shell("cat AGENTS.md", "# Agents\n\nRules."),
                   turns=(Turn("user", "# global rules\n--- project-doc ---\nThe project doc.", kind="instructions"),))
    files = evidence.project_files(t, roots=[CWD])
    assert files == {"README.md": README, "AGENTS.md": "# Agents\n\nRules.",
                     "instructions": "The project doc."}


@pytest.mark.parametrize(("cut", "kept"), [
    ("5\tSecond is cut mid", ""),
    ("5\tSecond says more. And then it is cut mid", "\n4\t\n5\tSecond says more."),
])
def test_a_trimmed_read_keeps_the_head_and_the_whole_sentences_of_its_cut_paragraph(cut, kept):
    out = f"1\t# Title\n2\t\n3\tFirst paragraph says what it is.\n4\t\n{cut}\n…[9000 chars trimmed]…\nend of file"
    files = evidence.project_files(transcript(read(f"{CWD}/README.md", out)), roots=[CWD])
    assert files["README.md"] == "1\t# Title\n2\t\n3\tFirst paragraph says what it is." + kept
