"""The house keeps its plan (DESIGN §7): dependencies point one way, each adapter has one home.

    entry -> cli, hook, mcp -> verbs -> sources, extract, consolidate, store, llm -> models -> core
                                                        and everything -> errors, config, resources

`core` is the floor: pure values and rules, no git, no LLM, no CLI. `store` sits on it (every write
passes core's redaction) and is the only code that imports dulwich; only `llm.py` imports litellm;
only `cli/` imports click;
only `mcp/` imports the MCP SDK. No module outside `sources/` knows an agent's file format.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memgit"
MAX_LINES = 400

# The floor each part of the package stands on: a module may import its own part and lower ones.
LEVELS = {
    "errors": 0, "resources": 0, "config": 0, "locate": 0,
    "core": 1,
    "sources": 2, "extract": 2, "consolidate": 2, "store": 2, "llm": 2, "prompts": 2, "models": 2,
    "verbs": 3,
    "cli": 4, "hook": 4, "mcp": 4,
    "entry": 5, "__main__": 5,
}
# Families on one floor that must not lean on each other.
APART = {"sources": {"extract", "consolidate", "store", "llm", "prompts"},
         "extract": {"sources", "store"},
         "consolidate": {"sources", "store"},
         "store": {"sources", "extract", "consolidate", "llm", "prompts", "models"},
         # the agent CLIs as models (and the day's budget) sit under llm: they never call back up
         "models": {"sources", "extract", "consolidate", "store", "llm", "prompts"}}

# Field names and record types of the agents' transcript files: only their reader may spell them.
AGENT_FORMAT_WORDS = {
    # Claude Code
    "isSidechain", "toolUseResult", "parentUuid", "isMeta", "isCompactSummary", "tool_use_id", "gitBranch",
    # Codex
    "response_item", "function_call_output", "turn_context", "session_meta", "event_msg", "call_id",
    # Gemini CLI
    "projectHash", "toolCalls", "$rewindTo", "$set", "startTime", "lastUpdated",
}


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(("memgit",) + parts)] = path
    return found


MODULES = modules()


def part_of(module: str) -> str:
    return module.split(".")[1] if "." in module else "memgit"


def imports(path: Path) -> dict[str, int]:
    """Every memgit module or outside package `path` imports (top-level names for outside ones), with a line."""
    found = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.setdefault(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.level == 0, f"{path}: relative import (write memgit.… in full)"
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                found.setdefault(name if name in MODULES else node.module, node.lineno)
    return found


def memgit_imports(path: Path) -> set[str]:
    return {name for name in imports(path) if name == "memgit" or name.startswith("memgit.")}


def outside_imports(path: Path) -> set[str]:
    return {name.split(".")[0] for name in imports(path) if not name.startswith("memgit")}


def test_every_module_knows_its_floor():
    for module in MODULES:
        if module != "memgit":
            assert part_of(module) in LEVELS, f"{module}: a part of the package that LEVELS does not place"


def test_dependencies_point_down():
    wrong = []
    for module, path in MODULES.items():
        if module == "memgit":
            continue
        mine = part_of(module)
        for target in memgit_imports(path):
            theirs = part_of(target)
            if target == "memgit" or theirs == mine:
                continue
            if LEVELS[theirs] > LEVELS[mine] or theirs in APART.get(mine, ()):
                wrong.append(f"{module} -> {target}")
    assert not wrong, "imports against the layering:\n" + "\n".join(sorted(wrong))


def test_no_import_cycles():
    graph = {m: {t for t in memgit_imports(p) if t in MODULES and t != m and not m.startswith(t + ".")}
             for m, p in MODULES.items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(trail[trail.index(nxt):] + [nxt]) if nxt in trail else f"{node} -> {nxt}")
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_adapters_have_one_home_each():
    for module, path in MODULES.items():
        outside = outside_imports(path)
        part = part_of(module)
        if part != "store":
            assert "dulwich" not in outside, f"{module} imports dulwich: only memgit.store may"
        if module != "memgit.llm":
            assert "litellm" not in outside, f"{module} imports litellm: only memgit.llm may"
        if part != "cli":
            assert "click" not in outside, f"{module} imports click: only memgit.cli may"
        if part != "mcp":
            assert not outside & {"mcp", "mcp_types"}, f"{module} imports the MCP SDK: only memgit.mcp may"
        if part == "core":
            assert not outside & {"subprocess", "sqlite3", "socket"}, f"{module}: the core does no I/O of that kind"
        if module.startswith(("memgit.extract.heuristic", "memgit.consolidate.heuristic")):
            assert not outside & {"subprocess", "socket"}, f"{module}: the offline learners run no programs"


def test_only_sources_know_agent_file_formats():
    wrong = []
    for module, path in MODULES.items():
        if part_of(module) == "sources":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in AGENT_FORMAT_WORDS:
                wrong.append(f"{module}:{node.lineno} spells {node.value!r}")
    assert not wrong, "\n".join(wrong)


def test_modules_stay_small():
    big = []
    for module, path in MODULES.items():
        lines = path.read_text().count("\n")
        if lines > MAX_LINES:
            big.append(f"{module}: {lines} lines")
    assert not big, f"modules over {MAX_LINES} lines (split by job):\n" + "\n".join(sorted(big))


def test_one_slugify_and_one_spelling_of_main():
    defs, mains = [], []
    for module, path in MODULES.items():
        text = path.read_text()
        defs += [module for _ in re.finditer(r"^def (slugify|_slug|slug)\(", text, re.M)]
        if module != "memgit.core.vocab" and part_of(module) != "sources":  # a source's "main" is the user's git branch
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.Constant) and node.value in ("main", "projects/"):
                    mains.append(f"{module}:{node.lineno} {node.value!r}")
    assert len(defs) == 1, f"slugify defined in {defs}"
    assert not mains, "branch names spelled outside core/vocab.py:\n" + "\n".join(mains)
