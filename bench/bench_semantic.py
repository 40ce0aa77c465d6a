"""The `semantic` extra measured: install size, load time, embedding throughput, search latency with
and without it, and its gain over BM25 alone on ../shared/eval (top 5, RRF k=60).

Gain: for each labelled fact memgit stored (score.py, session scope), three queries, each asked of
`memgit.verbs.search.search` with --all-projects and limit 5, BM25 alone and fused: the fact's own
statement; the statement with its distinctive words dropped (every word of its `match` groups,
the ones a note must hold to count as having it); and ~20 hand-written paraphrases
(bench/semantic_paraphrases.json: session key, query sharing few words with a stored fact).
A query scores when a hit's path or session names the fact's session (first 8 characters).

    python bench/bench_semantic.py [--quick]     # skipped with a reason when the extra is absent
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import time
from importlib import metadata
from pathlib import Path

from _common import PYTHON, ROOT, Rows, arg_parser, median, python_pass_ms, user_env, wall_ms

EVAL = ROOT.parent / "shared" / "eval"
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"
PARAPHRASES = Path(__file__).with_name("semantic_paraphrases.json")
EXTRA = ("numpy", "wordllama", "safetensors", "toml")  # what the extra adds to the default install


def dist_mb(name: str) -> float:
    try:
        files = metadata.distribution(name).files or []
    except metadata.PackageNotFoundError:
        return 0.0
    return sum(f.size or 0 for f in files) / 1e6


def eval_repo(tmp: Path) -> tuple[Path, dict]:
    """The labelled fixtures synced into a fresh repo (as ../shared/eval/run.sh does); its score.py JSON."""
    home, repo = tmp / "home", tmp / "mem"
    (home / ".claude").mkdir(parents=True)
    subprocess.run([PYTHON, str(EVAL / "layout_claude.py"), str(FIXTURES / "claude"), str(home / ".claude/projects")],
                   check=True, capture_output=True)
    subprocess.run([PYTHON, str(EVAL / "layout_agents.py"), str(FIXTURES), str(home)], check=True, capture_output=True)
    old = time.time() - 3 * 3600
    for f in home.rglob("*"):
        if f.is_file():
            import os
            os.utime(f, (old, old))
    env = user_env(home) | {"MEMGIT_HOME": str(repo)}
    subprocess.run([PYTHON, "-m", "memgit.cli.commands", "sync", "--all"], env=env, check=True, capture_output=True)
    out = tmp / "score.json"
    subprocess.run([PYTHON, str(EVAL / "score.py"), str(repo), "--scope", "session", "--json", str(out)],
                   check=True, capture_output=True)
    return repo, json.loads(out.read_text())


def drop_distinctive(statement: str, groups: list[list[str]]) -> str:
    words = {w for group in groups for alt in group for w in re.findall(r"\w+", alt.lower())}
    kept = [w for w in re.findall(r"[\w'.-]+", statement) if not set(re.findall(r"\w+", w.lower())) & words]
    return " ".join(kept)


def gain(rows: Rows, repo: Path, score: dict) -> None:
    from memgit import config
    from memgit.verbs.search import search

    cfg = config.load({"MEMGIT_HOME": str(repo), "HOME": str(repo.parent)})
    labels = {f["id"]: f for s in json.loads((EVAL / "labels.json").read_text())["sessions"] for f in s["facts"]}
    stored = [(f["statement"], labels[f["id"]]["match"], s["session_id"][:8])
              for s in score["sessions"] for f in s["facts"] if f["session"]]
    sets = {"own words": [(st, key) for st, _, key in stored],
            "distinctive words dropped": [(drop_distinctive(st, m), key) for st, m, key in stored],
            "hand-written paraphrases": [(q, key) for key, q in json.loads(PARAPHRASES.read_text())]}
    search(cfg, "warm", all_projects=True, semantic=True)  # builds both caches
    for name, queries in sets.items():
        queries = [(q, key) for q, key in queries if q.strip()]
        found = {False: 0, True: 0}
        for q, key in queries:
            for semantic in (False, True):
                try:
                    hits = search(cfg, q, all_projects=True, limit=5, semantic=semantic)
                except Exception:  # a query with nothing searchable left
                    hits = []
                found[semantic] += any(key in h.path or key in h.session for h in hits)
        n = len(queries)
        rows.add(f"top-5 session hit, {name} (n={n}), BM25 alone", found[False] / n, "")
        rows.add(f"top-5 session hit, {name} (n={n}), BM25 + embeddings (RRF)", found[True] / n, "",
                 note=f"{found[True] - found[False]:+d} queries")


def speed(rows: Rows, runs: int, notes: int) -> None:
    from memgit.store import embedding, search_index, semantic_index
    from memgit.store.repo import MemoryRepo

    t0 = time.perf_counter()
    model = embedding.load()
    rows.add("model load (numpy + tokenizer + 16 MB weights, in process)", (time.perf_counter() - t0) * 1e3, "ms")
    tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-semantic-"))
    try:
        repo = tmp / "repo"
        subprocess.run([PYTHON, str(ROOT / "bench" / "generate.py"), "repo", str(repo), "--notes", str(notes)],
                       check=True, capture_output=True)
        state = repo / ".git" / "memgit"
        with MemoryRepo.open(repo, author="bench <b@x>") as r:
            search_index.update(r, state)
        t0 = time.perf_counter()
        counts = semantic_index.update(state, model)
        elapsed = time.perf_counter() - t0
        rows.add(f"embed every unit of {notes} notes ({counts['embedded']} distinct texts)",
                 counts["embedded"] / elapsed, "texts/s", higher_is_better=True)
        rows.add("semantic cache size", Path(semantic_index.path_of(state)).stat().st_size / 1e6, "MB")
        lat = []
        for _ in range(runs):
            t0 = time.perf_counter()
            semantic_index.query(state, model, "the invoice export is slow", limit=50)
            lat.append((time.perf_counter() - t0) * 1e3)
        rows.add(f"semantic query over {counts['docs']} units, in process (model loaded)", median(lat), "ms")
        home = tmp / "home"
        home.mkdir()
        env = user_env(home) | {"MEMGIT_HOME": str(repo)}
        base = median(python_pass_ms(runs, env))
        rows.baseline_ms = base
        cmd = [PYTHON, "-m", "memgit.cli.commands", "search", "invoice export slow", "--all-projects"]
        for flag in ("--no-semantic", "--semantic"):
            wall_ms(cmd + [flag], env=env)  # warm: caches built
            ms = median([wall_ms(cmd + [flag], env=env) for _ in range(runs)])
            rows.add(f"memgit search {flag}, {notes} notes, warm", ms, "ms", note=f"{ms / base:.1f}x python -c pass")
        numpy_ms = median([wall_ms([PYTHON, "-c", "import numpy"], env=env) for _ in range(runs)])
        rows.add("python -c 'import numpy' (the extra's floor)", numpy_ms, "ms",
                 note=f"{numpy_ms / base:.1f}x python -c pass; the prompt hook's budget is 3x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    args = arg_parser(__doc__.split("\n\n")[0]).parse_args()
    rows = Rows("semantic")
    from memgit.store import embedding

    reason = embedding.missing()
    if reason:
        print(f"skipped: {reason}")
        rows.write(args.rows)
        return
    sizes = {name: dist_mb(name) for name in EXTRA}
    rows.add("install size the extra adds (" + ", ".join(f"{k} {v:.0f}" for k, v in sizes.items()) + " MB)",
             sum(sizes.values()), "MB")
    speed(rows, runs=5 if args.quick else 11, notes=2_000 if args.quick else 10_000)
    if EVAL.is_dir():
        tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-semantic-eval-"))
        try:
            gain(rows, *eval_repo(tmp))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"gain skipped: {EVAL} is not there")
    rows.write(args.rows)


if __name__ == "__main__":
    main()
