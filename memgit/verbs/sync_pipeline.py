"""The order a sync run's sessions go through (memgit.verbs.sync_session): one after another; with a model,
its calls in threads; with the heuristic, the reading and extraction in forked workers (memgit.verbs.sync_fork),
CPU-bound Python that threads cannot spread over cores. Commits are always made here, in the sessions' order."""

from __future__ import annotations

import logging
from collections import deque
from typing import Callable

from memgit.verbs import sync_fork
from memgit.verbs.selection import Work
from memgit.verbs.sync_result import SessionResult
from memgit.verbs.sync_session import SyncRun, short_id

log = logging.getLogger("memgit.verbs.sync")


def process_all(run: SyncRun, work: list[Work], on_progress: Callable[[int, int, str], None] | None,
                concurrency: int, processes: int = 0) -> list[SessionResult]:
    """Process sessions in order, up to `concurrency` extractions at once (threads, for a model's
    calls) or in `processes` forked workers (the heuristic); commits stay in order, here."""
    if processes >= 2 and not any(item.why == "redo" for item in work):  # a redo reads the repo first
        log.info("%d sessions read and extracted by %d worker processes", len(work), processes)
        results = []
        for i, prep in sync_fork.ordered(run.read_and_extract, work, processes):
            if on_progress:
                on_progress(i, len(work), short_id(prep.work.file))
            results.append(run.finish(prep, run.placed_outcome(prep)))
        return results
    if concurrency <= 1 or len(work) <= 1:
        results = []
        for i, item in enumerate(work):
            if on_progress:
                on_progress(i, len(work), short_id(item.file))
            results.append(run.process(item))
        return results
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    results, queue = [], deque()  # queue: (prepared, future or None), in the sessions' order
    items = iter(enumerate(work))
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="memgit-extract")
    try:
        while True:
            running = [f for _, f in queue if f is not None and not f.done()]
            while len(running) < concurrency and len(queue) < 2 * concurrency:
                nxt = next(items, None)
                if nxt is None:
                    break
                i, item = nxt
                if on_progress:
                    on_progress(i, len(work), short_id(item.file))
                prep = run.begin(item)
                future = pool.submit(run.run_extractor, prep) if prep.ready else None
                queue.append((prep, future))
                if future is not None:
                    running.append(future)
            if not queue:
                return results
            while queue and (queue[0][1] is None or queue[0][1].done()):
                prep, future = queue.popleft()
                results.append(run.finish(prep, future.result() if future is not None else None))
            if queue and queue[0][1] is not None and not queue[0][1].done():
                wait([f for _, f in queue if f is not None and not f.done()], return_when=FIRST_COMPLETED)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
