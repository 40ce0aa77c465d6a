"""`memgit gc`: pack a repository's loose objects (a memgit older than packs wrote one file per
object) and merge its packs into one, under the sync lock; unreachable objects are kept."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from memgit.config import Config
from memgit.errors import NotARepo


@dataclass(slots=True)
class GcResult:
    repo: str
    before: dict[str, int]  # {"loose": objects, "packs": packs}
    after: dict[str, int]
    packed: int  # loose objects now in the pack
    merged: int  # packs merged into it

    def as_dict(self) -> dict:
        return {"ok": True, **asdict(self)}


def run(cfg: Config, *, wait: bool = True) -> GcResult:
    """Pack every object of the repository into one pack and remove the loose copies and old packs.

    Raises:
        NotARepo: there is no memory repository.
        LockHeld: a sync is running and `wait` is false.
    """
    from memgit.store.bootstrap import has_main
    from memgit.store.lock import sync_lock
    from memgit.store.repo import MemoryRepo

    if not has_main(cfg.repo_path):
        raise NotARepo(f"no memory repository at {cfg.repo_path}; run `memgit init` or `memgit sync` to create it")
    with sync_lock(cfg.state_dir, wait=wait), MemoryRepo.open(cfg.repo_path, author=cfg.author) as repo:
        before = repo.object_counts()
        packed, merged = repo.pack_objects()
        return GcResult(str(cfg.repo_path), before, repo.object_counts(), packed, merged)
