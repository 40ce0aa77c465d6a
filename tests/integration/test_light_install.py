"""The default install carries no litellm (issue 21): a provider/model string without the `llm` extra
fails with the line naming it; the agent CLIs and the offline path need nothing more.
(The wheel's metadata is checked in test_wheel.py, on the wheel that test builds.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCKER = '''
import sys
class _NoLitellm:  # litellm "not installed": every import of it fails as a missing package does
    def find_spec(self, name, path=None, target=None):
        if name == "litellm" or name.startswith("litellm."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NoLitellm())
'''


def run_memgit(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "site").mkdir(exist_ok=True)
    (tmp_path / "site" / "sitecustomize.py").write_text(BLOCKER)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MEMGIT_", "CLAUDE", "CODEX_", "GEMINI_",
                                                                     "XDG_", "OPENAI_", "ANTHROPIC_"))}
    env.update(HOME=str(tmp_path / "home"), PYTHONPATH=f"{tmp_path / 'site'}{os.pathsep}{ROOT}", GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run([sys.executable, "-m", "memgit.cli.commands", *args], env=env, capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)


def test_a_provider_model_without_the_llm_extra_is_one_line_naming_it(tmp_path):
    probe = run_memgit(tmp_path, "--help")  # the blocker is in place, and memgit runs without litellm
    assert probe.returncode == 0, probe.stderr
    out = run_memgit(tmp_path, "sync", "--model", "anthropic/claude-haiku-4-5")
    assert out.returncode == 8, out.stderr
    assert out.stderr.strip() == ("Error: anthropic/claude-haiku-4-5: a provider/model string needs litellm, which "
                                  "the default install leaves out: pip install 'memgit[llm]' (or use an agent CLI you "
                                  "have: claude-code/haiku, codex/<model>, gemini-cli/<model>)")
    assert not (tmp_path / "home" / ".local" / "share" / "memgit").exists()  # nothing created, nothing recorded
