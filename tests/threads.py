"""Real concurrency in tests: jobs started in threads at the same moment."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence


def at_once(jobs: Sequence[Callable[[], object]]) -> list:
    """Run each job in its own thread, all released together by one barrier; what
    each returned, or the exception it raised, in the jobs' order."""
    barrier, outcomes = threading.Barrier(len(jobs)), [None] * len(jobs)

    def run(index: int) -> None:
        barrier.wait()
        try:
            outcomes[index] = jobs[index]()
        except BaseException as exc:  # noqa: BLE001 - returned to the test, which checks it
            outcomes[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def split(outcomes: list) -> tuple[list, list[BaseException]]:
    """The results and the exceptions among `at_once`'s outcomes."""
    errors = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    return [outcome for outcome in outcomes if not isinstance(outcome, BaseException)], errors
