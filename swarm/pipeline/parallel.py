"""Running independent calls a few at a time with their results in input order (the end of a run's sandbox
executions: the ensemble members' refits)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def run_parallel(
    items: Sequence[T], fn: Callable[[T], R], workers: int, name: str = "parallel"
) -> Iterator[R]:
    """Yield `fn(item)` for each item, in the order of `items`, running up to `workers` calls at once.

    Why: the calls are sandbox executions that each hold their own slot of the machine, so running them
    `search.parallel` at a time uses the machine as the steps do instead of one execution after another.

    With `workers <= 1` (or a single item) each call runs in the caller's thread only when its result is asked
    for, exactly as a plain loop would, so a consumer that stops early starts nothing more. With more workers
    every call is submitted at once to a pool of `min(workers, len(items))` threads named `name`; when the
    consumer stops early (or the iterator is closed), calls not yet started are cancelled and those running
    are waited for. An exception from `fn` is raised when its result is reached, as in the plain loop. Close
    the iterator (`contextlib.closing`) when you may stop before its end.
    """
    if workers <= 1 or len(items) <= 1:
        for item in items:
            yield fn(item)
        return
    pool = ThreadPoolExecutor(max_workers=min(workers, len(items)), thread_name_prefix=name)
    try:
        futures = [pool.submit(fn, item) for item in items]
        for future in futures:
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
