"""litellm (2-3 s to import) stays off every path that does not call a model: the CLI, --help, the heuristic sync."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from click.testing import CliRunner
import memgit.cli.commands, memgit.verbs.sync, memgit.llm, memgit.prompts, memgit.extract.llm, memgit.consolidate.llm
from memgit.sources.claude_code.synthetic import demo_sessions
from pathlib import Path
import os, time
seen = {"import": "litellm" in sys.modules}
for session in demo_sessions():  # something for the heuristic sync to extract
    path = session.write(Path(os.environ["HOME"]) / ".claude" / "projects")
    os.utime(path, (time.time() - 7200, time.time() - 7200))
runner = CliRunner()
for args in (["--help"], ["sync", "--help"], ["sync", "--json"], ["status", "--json"]):
    result = runner.invoke(memgit.cli.commands.cli, args)
    assert result.exit_code == 0, (args, result.output)
    if args[0] == "sync" and len(args) > 1 and args[1] == "--json":
        assert json.loads(result.output)["extracted"] >= 3
    seen[" ".join(args)] = "litellm" in sys.modules
print(json.dumps(seen))
"""


def test_the_cli_help_and_a_heuristic_sync_never_import_litellm(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MEMGIT_", "CLAUDE_", "CODEX_", "GEMINI_", "XDG_"))}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(ROOT), GIT_CONFIG_NOSYSTEM="1")
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen == {"import": False, "--help": False, "sync --help": False, "sync --json": False,
                    "status --json": False}


def test_python_c_import_memgit_cli_does_not_import_litellm(tmp_path):
    code = "import sys, memgit.cli.commands; print('litellm' in sys.modules, 'openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "False"], out.stderr
