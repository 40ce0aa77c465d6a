"""Import direction: the pure core stays free of git, the LLM, the CLI and subprocesses."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memgit"
CORE = ["model.py", "notes.py", "redact.py", "ledger.py", "selection.py", "synthetic.py",
        *sorted(p.relative_to(PACKAGE).as_posix() for family in ("extract", "consolidate")
                for p in (PACKAGE / family / "heuristic").glob("*.py")),
        *sorted(p.relative_to(PACKAGE).as_posix() for p in (PACKAGE / "core").rglob("*.py"))]
FORBIDDEN = {"dulwich", "litellm", "click", "subprocess"}


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_core_modules_import_no_adapters():
    for rel in CORE:
        bad = imported_modules(PACKAGE / rel) & FORBIDDEN
        assert not bad, f"{rel} imports {bad}"


def test_only_repo_imports_dulwich_and_only_llm_imports_litellm():
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        mods = imported_modules(path)
        if rel not in ("repo.py", "worktree.py"):
            assert "dulwich" not in mods, rel
        if rel != "llm.py":
            assert "litellm" not in mods, rel
