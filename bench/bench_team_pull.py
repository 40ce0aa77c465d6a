"""`memgit pull <team>` of a team of 10 people with 1,000 session notes each in one shared project.

Each person's memory comes from bench/generate.py `make_note_repo` (projects/app, identity
github.com/acme/app, 1,000 notes of their own seed); each joins the team `acme` (a bare repository on
disk), shares app and pushes. A reader with 1,000 notes of their own then pulls. Timed, as a person
runs it (memgit.verbs.team.pull: the fetch into quarantine, the secret scan of what arrived, the refs,
and the consolidation of the shared project over 11,000 notes, committed):

- the first pull (every teammate's history);
- one teammate's new session, pushed, then a second pull (what a pull after a day costs).

The team repository is served by `git daemon` on localhost (as a host serves it: git packs what is
fetched), or with `--path` reached as a path (dulwich's local transport packs it in Python). The host's
packing runs on the same 2 cores: it is timed again alone after the pulls (`git pack-objects` of every
person's ref, what `git daemon` ran for the first pull). With `--repacked` the team repository is
repacked with a bitmap before the pull, as a host's maintenance leaves it (git then sends the pack as it
is instead of searching 10,000 objects for deltas). With `--review none` the reader trusts the team, so
the pull also indexes the teammates' notes for search and the prompt hook.

Target (issue 22): the first pull <= 5 s on the 2-core machine.

    python bench/bench_team_pull.py [--quick] [--people 10] [--notes 1000] [--path] [--repacked] [--review none]
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from _common import Rows, Spy, arg_parser
from bench_push import one_session
from generate import make_note_repo

TARGET_S = 5.0


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=10)
    parser.add_argument("--notes", type=int, default=1_000)
    parser.add_argument("--path", action="store_true", help="reach the team repository as a path, not git daemon")
    parser.add_argument("--repacked", action="store_true", help="repack the team repository (bitmap) before the pull")
    parser.add_argument("--review", choices=("new", "none"), default="new", help="the reader's [team] review")
    args = parser.parse_args()
    if args.quick:
        args.people, args.notes = 3, 300

    from memgit.config import Config
    from memgit.store.repo import MemoryRepo
    from memgit.verbs import team

    rows = Rows("team pull")
    work = Path(tempfile.mkdtemp(prefix="memgit-bench-team-"))
    daemon = None
    try:
        bare = work / "team.git"
        subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
        url = str(bare)
        if not args.path:
            from tests.servers import GitDaemon

            daemon = GitDaemon(work).__enter__()
            url = daemon.url("team.git")
        print(f"team repository: {url}", flush=True)
        t0 = time.perf_counter()
        people = []
        for i in range(args.people + 1):  # the last one reads
            path = work / f"person{i}"
            make_note_repo(path, args.notes, args.notes, slug="app", seed=100 + i)
            cfg = Config(repo_path=path)
            team.add(cfg, "acme", url, f"person{i}")
            team.share(cfg, "app", "acme")
            people.append(cfg)
        print(f"built {args.people + 1} memories of {args.notes} notes in {time.perf_counter() - t0:.1f} s", flush=True)
        t0 = time.perf_counter()
        for cfg in people[:-1]:
            team.push(cfg, "acme")
        print(f"{args.people} pushes in {time.perf_counter() - t0:.1f} s", flush=True)

        reader = Config(repo_path=people[-1].repo_path, team_review=args.review)
        if args.repacked:
            subprocess.run(["git", "-C", str(bare), "repack", "-a", "-d", "-b", "-q"], check=True)
        parts = {"fetch": "memgit.store.team:fetch", "scan": "memgit.store.scan:scan_objects",
                 "consolidate": "memgit.verbs.consolidate:run"}
        with Spy(parts) as spy:
            t0, cpu0 = time.perf_counter(), time.process_time()
            first = team.pull(reader, "acme")
            first_s, first_cpu = time.perf_counter() - t0, time.process_time() - cpu0
        target = TARGET_S if (args.people, args.notes) == (10, 1000) else None
        rows.add(f"first pull: {args.people} people x {args.notes} notes", first_s, "s", target,
                 note=f"{first.fetched} objects, consolidated {', '.join(first.consolidated) or 'nothing'}")
        rows.add("  its CPU in this process (git's processes not counted)", first_cpu, "s",
                 note="less moved by the machine's other work than the wall time")
        rows.add("  of which the fetch (quarantine, secret scan, refs)", spy.seconds["fetch"], "s", target,
                 note=f"scan {spy.seconds['scan']:.2f} s")
        rows.add("  of which the first consolidation over every note", spy.seconds["consolidate"], "s",
                 note=f"{args.notes * (args.people + 1)} notes, built once, then cached under .git/memgit/")

        with MemoryRepo.open(people[0].repo_path) as repo:
            one_session(repo, "projects/app")
        team.push(people[0], "acme")
        t0 = time.perf_counter()
        second = team.pull(reader, "acme")
        rows.add("pull after one teammate's session", (time.perf_counter() - t0), "s", target,
                 note=f"{second.fetched} objects, consolidated incrementally")
        host_s = _host_packing(bare)
        rows.add("the host's packing of the first pull, alone (git pack-objects)", host_s, "s",
                 note="in the first pull's fetch when served by git daemon on this machine")
        memory = subprocess.run(["git", "-C", str(reader.repo_path), "show", "projects/app:MEMORY.md"],
                                capture_output=True, text=True, check=True).stdout
        print("MEMORY.md: " + memory.splitlines()[2][:160], flush=True)
        fsck = subprocess.run(["git", "-C", str(reader.repo_path), "fsck", "--strict"], capture_output=True, text=True)
        print(f"reader: git fsck --strict exit {fsck.returncode}", flush=True)
    finally:
        if daemon is not None:
            daemon.__exit__(None, None, None)
        shutil.rmtree(work, ignore_errors=True)
    rows.write(args.rows)


def _host_packing(bare: Path) -> float:
    """Seconds `git pack-objects` takes to pack every person's ref of the team repository (to /dev/null)."""
    refs = subprocess.run(["git", "-C", str(bare), "for-each-ref", "--format=%(objectname)", "refs/heads/people/"],
                          capture_output=True, check=True).stdout
    t0 = time.perf_counter()
    subprocess.run(["git", "-C", str(bare), "pack-objects", "--revs", "--stdout", "-q"], input=refs,
                   stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
