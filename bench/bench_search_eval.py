"""Search relevance on ../shared/eval (issue 12: for >= 80% of the labelled facts memgit stored, a
query made from the fact's own words finds a note of its session in the top 5; issue 17: still so
with a hundred sessions of one project, `--scale`).

Lays the fixtures out as ../shared/eval/run.sh does (with `--scale`, the 82 cc-backend sessions of
../shared/fixtures/scale as bench_scale.py does, scored with scale_labels.json), runs this checkout's
`memgit sync --all` offline in a throw-away HOME, asks score.py which facts the note written for
their session holds (`--scope session`: those are the facts memgit stored, and where), then searches
for each one's statement with `memgit.verbs.search.search` (every scope alike, `--all-projects`; and
again from the session's own project, as an agent working there would) and looks for a hit whose
session is the fact's among the first five.

    python bench/bench_search_eval.py [--quick] [-v] [--scale]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from _common import PYTHON, ROOT, Rows, arg_parser, lay_out_eval, user_env
from bench_scale import SCALE, lay_out_scale

EVAL = ROOT.parent / "shared" / "eval"
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"
SCALE_LABELS = EVAL / "scale_labels.json"
TOP = 5
TARGET = 0.8


def found(hits, session_id: str) -> int | None:
    """The rank (1-based) of the first hit from the session's own note, or None."""
    for rank, hit in enumerate(hits, 1):
        if hit.session.split("/", 1)[-1] == session_id or session_id[:8] in hit.path:
            return rank
    return None


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="print every fact and where it ranked")
    parser.add_argument("--scale", action="store_true", help="the cc-backend sessions of ../shared/fixtures/scale "
                        "(one project, 82 sessions) and scale_labels.json instead of the small fixtures")
    args = parser.parse_args()
    rows = Rows("search_eval_scale" if args.scale else "search_eval")
    wanted = (SCALE, SCALE_LABELS) if args.scale else (EVAL, FIXTURES)
    if not all(p.exists() for p in wanted):
        print(f"skipped: {' or '.join(str(p) for p in wanted)} is not there")
        rows.write(args.rows)
        return
    tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-search-eval-"))
    try:
        home, repo = tmp / "home", tmp / "mem"
        if args.scale:
            lay_out_scale(home)
        else:
            lay_out_eval(home, EVAL, FIXTURES)
        env = {**user_env(home), "MEMGIT_HOME": str(repo)}
        done = subprocess.run([PYTHON, "-m", "memgit.cli.commands", "sync", "--all", "--json"], env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"sync failed:\n{done.stderr[-2000:]}")
        out = tmp / "score.json"
        labels = [str(SCALE_LABELS)] if args.scale else []
        subprocess.run([PYTHON, str(EVAL / "score.py"), str(repo), *labels, "--scope", "session", "--json", str(out)],
                       check=True, capture_output=True)
        score = json.loads(out.read_text())

        os.environ.update(env)  # the search below reads this HOME's config and repository
        from memgit import config
        from memgit.verbs.search import search

        cfg = config.load()
        cwds = _session_cwds(repo)
        groups = {f["id"]: f["match"] for s in json.loads((SCALE_LABELS if args.scale else EVAL / "labels.json")
                                                          .read_text())["sessions"] for f in s["facts"]}
        stored = [(s, f) for s in score["sessions"] for f in s["facts"] if f["session"]]
        alike = own = first = keyed = hooked = 0
        for s, f in stored:
            hits = search(cfg, f["statement"], all_projects=True, limit=TOP)
            here = search(cfg, f["statement"], limit=TOP, cwd=cwds.get(s["session_id"], str(tmp)))
            # The fact's key words: the first alternative of each group a paraphrase must hold (labels' `match`).
            words = " ".join(g[0].strip() for g in groups.get(f["id"], []) if g)
            short = search(cfg, words, limit=TOP, cwd=cwds.get(s["session_id"], str(tmp))) if words.strip() else []
            r1, r2, r3 = found(hits, s["session_id"]), found(here, s["session_id"]), found(short, s["session_id"])
            alike += r1 is not None
            first += r1 == 1
            own += r2 is not None
            keyed += r3 is not None
            ranked = subjects_ranked(str(repo), cwds.get(s["session_id"], str(tmp)), f["statement"])
            r4 = next((i for i, path in enumerate(ranked[:TOP], 1) if s["session_id"][:8] in path), None)
            hooked += r4 is not None
            if args.verbose or r1 is None or r3 is None:
                print(f"  {'miss' if r1 is None else f'#{r1}':>4} {'miss' if r2 is None else f'#{r2}':>4} "
                      f"{'miss' if r3 is None else f'#{r3}':>4} {'miss' if r4 is None else f'#{r4}':>4}  "
                      f"[{f['type']}] {f['statement'][:80]} | {words[:50]}")
        n = len(stored)
        print(f"\nfacts labelled: {sum(len(s['facts']) for s in score['sessions'])}; stored in their session's note: {n}")
        print(f"top-{TOP} finds a note of the fact's session: every scope alike {alike}/{n} = {alike / max(n, 1):.2f}; "
              f"from the session's project {own}/{n} = {own / max(n, 1):.2f}; first hit {first}/{n}; "
              f"by its key words only {keyed}/{n} = {keyed / max(n, 1):.2f}; the prompt hook's ranking of subjects "
              f"(its bar aside) from the session's project {hooked}/{n} = {hooked / max(n, 1):.2f}")
        which = " (scale: one project, 82 sessions)" if args.scale else ""
        rows.add(f"search relevance{which}: stored facts whose session's note is in the top {TOP} (every scope alike)",
                 alike / max(n, 1), "", TARGET, higher_is_better=True, note=f"{alike}/{n} facts")
        rows.add(f"search relevance{which}, from the session's own project (current project first)",
                 own / max(n, 1), "", TARGET, higher_is_better=True, note=f"{own}/{n} facts")
        rows.add(f"search relevance{which}: the session's note is the first hit (every scope alike)",
                 first / max(n, 1), "", note=f"{first}/{n} facts")
        rows.add(f"search relevance{which}: the fact's key words alone (labels' match groups) find its session in the "
                 f"top {TOP}", keyed / max(n, 1), "", note=f"{keyed}/{n} facts")
        rows.add(f"prompt hook's ranking{which}: the statement typed in the session's project ranks its note in the "
                 f"top {TOP} subjects (the bar aside)", hooked / max(n, 1), "", note=f"{hooked}/{n} facts")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows.write(args.rows)


def subjects_ranked(repo: str, cwd: str, prompt: str) -> list[str]:
    """The paths of the subjects the prompt hook weighs for `prompt` typed in `cwd`, best first, its bar
    aside: the current scope's subjects holding enough of the words, by their evidence."""
    from memgit.core import recall as rules
    from memgit.core.vocab import MAIN
    from memgit.hook.prompt import current_branch
    from memgit.store.search_reader import Reader

    words = rules.terms(prompt)
    with Reader.open(os.path.join(repo, ".git", "memgit")) as reader:
        total = reader.subjects()
        postings = {w: reader.holding(w) for w in words}
        held = rules.held_words(postings)
        branch = current_branch(repo, cwd, [])
        here = {branch, MAIN} if branch else {MAIN}
        of = reader.branches(list(held))
        counts = {w: len(ids) for w, ids in postings.items()}
        score = {f: rules.evidence(ws, counts, total) for f, ws in held.items() if of.get(f) in here}
        best = sorted(score, key=lambda f: -score[f])[:TOP]
        paths = dict(reader._db.execute(f"SELECT id, path FROM subjects WHERE id IN ({','.join('?' * len(best))})",
                                        best)) if best else {}
    return [paths[f] for f in best]


def _session_cwds(repo: Path) -> dict[str, str]:
    """Each session's cwd, from the front matter of its note (where an agent would search from)."""
    cwds = {}
    branches = subprocess.run(["git", "-C", str(repo), "branch", "--format=%(refname:short)"], capture_output=True,
                              text=True, check=True).stdout.split()
    for branch in branches:
        paths = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", branch, "sessions"],
                               capture_output=True, text=True, check=True).stdout.split()
        for path in paths:
            text = subprocess.run(["git", "-C", str(repo), "show", f"{branch}:{path}"], capture_output=True,
                                  text=True, check=True).stdout
            meta = dict(line.split(": ", 1) for line in text.split("\n---", 1)[0].splitlines() if ": " in line)
            if "session" in meta and "cwd" in meta:
                # As the note keeps it: "~/..." is the home of whoever worked there, not this bench's
                # temporary HOME (memgit resolves "~/x" and /home/<name>/x alike).
                cwds[meta["session"].split("/", 1)[-1]] = meta["cwd"].strip("'\"")
    return cwds


if __name__ == "__main__":
    main()
