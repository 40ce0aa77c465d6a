"""The built wheel carries prompts/, templates/, hooks/, skills/ and the vendored secret rules: `memgit demo`
works from an installed wheel."""

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def assert_litellm_only_in_the_llm_extra(wheel: Path) -> None:
    """The default install needs no litellm: the wheel requires it only for the `llm` extra."""
    import re
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        [meta] = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        requires = [line.split(":", 1)[1].strip() for line in z.read(meta).decode().splitlines()
                    if line.startswith("Requires-Dist:")]
    default = [r for r in requires if "extra ==" not in r]
    assert default and not [r for r in default if re.match(r"(litellm|memgit)\b", r, re.I)], default
    litellm = {r.split("extra ==")[1].strip(" '\"") for r in requires if r.lower().startswith("litellm")}
    assert litellm == {"llm", "test"}, litellm  # the test extra pulls the llm one: the tests run the model path


def test_wheel_installs_and_runs_demo_outside_the_source_tree(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist)], check=True, capture_output=True)
    [wheel] = dist.glob("memgit-*.whl")
    assert_litellm_only_in_the_llm_extra(wheel)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # Install the wheel alone into the fresh venv (pip of this interpreter, --target its site-packages);
    # its dependencies come from this environment, appended after the venv's own site-packages so the
    # wheel's memgit, not the source tree's, is the one imported.
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", purelib, str(wheel)],
                   check=True, capture_output=True)
    outer = [p for p in site.getsitepackages() + [sysconfig.get_paths()["purelib"]] if Path(p).is_dir()]
    (Path(purelib) / "outer-deps.pth").write_text("\n".join(dict.fromkeys(outer)) + "\n")

    where = subprocess.run([python, "-c", "import memgit, memgit.resources as r; print(memgit.__file__); "
                            "print(r.data_dir('templates'))"], capture_output=True, text=True, check=True,
                           cwd=tmp_path).stdout.split()
    assert where[0].startswith(purelib) and where[1].startswith(purelib), where
    # the vendored gitleaks rules (data files of memgit.core.secret_rules) are in the wheel and load
    kind = subprocess.run([python, "-c", "from memgit.core.secret_rules import gitleaks; "
                           "from memgit.core.redact import find_secrets; assert gitleaks.VENDORED.startswith(%r); "
                           "print(find_secrets('lin_api_' + 'Zx9Qw3Er7Ty1Ui5Op2As6Df0Gh4Jk8Lm3Nb7VcX1')[0].kind)"
                           % purelib], capture_output=True, text=True, check=True, cwd=tmp_path).stdout.strip()
    assert kind == "linear_api_key"
    # memgit's own skill, which install publishes into the agents' skills folders
    skill = subprocess.run([python, "-c", "from memgit.resources import data_dir; "
                            "print(data_dir('skills') / 'memgit-recall' / 'SKILL.md')"],
                           capture_output=True, text=True, check=True, cwd=tmp_path).stdout.strip()
    assert skill.startswith(purelib) and Path(skill).read_text().startswith("---\nname: memgit-recall\n")
    # the hooks' launcher, which the hook commands `memgit install` writes run with this interpreter
    command = subprocess.run([python, "-c", "from memgit.verbs.install import memgit_command; print(memgit_command())"],
                             capture_output=True, text=True, check=True, cwd=tmp_path).stdout.strip()
    assert command == f"{python} -S {purelib}/memgit/hook/memgit", command
    started = subprocess.run(f"{command} hook session-start", shell=True, input=b"{}", capture_output=True, cwd=tmp_path,
                             env={**os.environ, "HOME": str(tmp_path)})
    assert started.returncode == 0 and started.stdout == b"", started.stderr
    demo = subprocess.run([python, "-m", "memgit.cli.commands", "demo", "--keep", str(tmp_path / "demo")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert "## Learnings" in demo.stdout and "extract(" in demo.stdout
    # The hooks as installed run without site (-S): dulwich, reached through a .pth file here, is found once
    # site is set up on demand, when the context cache is gone; the answer is the one a full start gives.
    memory = tmp_path / "demo" / "memory"
    hook_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    hook_env.update(HOME=str(tmp_path), MEMGIT_HOME=str(memory))
    stdin = b'{"cwd": "%s", "session_id": "0b1d2c3e-0000-4000-8000-000000000001"}' % str(tmp_path).encode()
    answers = []
    for run in (f"{command} hook session-start", f"{python} -m memgit.entry hook session-start"):
        shutil.rmtree(memory / ".git" / "memgit" / "context", ignore_errors=True)
        told = subprocess.run(run, shell=True, input=stdin, capture_output=True, cwd=tmp_path, env=hook_env)
        assert told.returncode == 0 and b"<memgit-context" in told.stdout, told.stderr
        answers.append(told.stdout)
    assert answers[0] == answers[1] and not (memory / ".git" / "memgit" / "hook.log").exists()
    readme = subprocess.run(["git", "-C", str(tmp_path / "demo" / "memory"), "show", "main:README.md"],
                            capture_output=True, text=True, check=True).stdout
    assert "Memory repository (memgit)" in readme
