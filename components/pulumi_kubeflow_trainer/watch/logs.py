"""The logs of a TrainJob's Pods: rank 0 by default, one node, or every Pod prefixed by its step.

Followed logs of several Pods are read side by side (one thread each) and printed as their lines
come. With `follow`, a Pod that does not exist yet or has not started is waited for (the TrainJob
may still be queued); without it, that is an error saying the TrainJob's state.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator

from .kubeclient import KubeAPI, KubeAPIError
from .pods import PodStep, node, pods_of
from .trainjobs import LiveTrainJob, find

POLL_SECONDS = 1.0
_DONE = object()


def log_lines(api: KubeAPI, job: LiveTrainJob, *, rank: int | None = 0, every_pod: bool = False, follow: bool = False,
              previous: bool = False, tail: int | None = None) -> Iterator[str]:
    """The log lines of node `rank` (its Pod's step container), or of every Pod prefixed `[step] `."""
    steps = _started(api, job, rank, every_pod, follow)
    if not every_pod:
        yield from api.pod_log(job.namespace, steps[0].name, steps[0].container, follow=follow, previous=previous, tail_lines=tail)
        return
    readers = [_reader(api, job.namespace, step, follow, previous, tail) for step in steps]
    if not follow:
        for read in readers:
            yield from read()
        return
    yield from _interleaved(readers)


def _started(api: KubeAPI, job: LiveTrainJob, rank: int | None, every_pod: bool, follow: bool) -> list[PodStep]:
    """The Pods to read, once they have started (waiting for them with `follow`)."""
    while True:
        steps = pods_of(api, job)
        wanted = steps if every_pod else [found] if (found := node(steps, rank or 0)) is not None else []
        newest: dict[str, PodStep] = {}
        for step in wanted:  # newest first: a retried step's latest Pod
            newest.setdefault(step.step, step)
        wanted = list(newest.values())
        if wanted and all(step.phase != "Pending" for step in wanted):
            return wanted
        if not follow:
            what = "no Pod" if not wanted else "its Pods have not started"
            target = "the TrainJob" if every_pod else f"node {rank or 0}"
            raise KubeAPIError(f"TrainJob {job.namespace}/{job.name} ({job.state}): {what} for {target} yet; "
                               "`trainjob get` says why, `-f` waits for it")
        time.sleep(POLL_SECONDS)
        job = find(api, job.namespace, job.name)


def _reader(api: KubeAPI, namespace: str, step: PodStep, follow: bool, previous: bool,
            tail: int | None) -> Callable[[], Iterator[str]]:
    def read() -> Iterator[str]:
        for line in api.pod_log(namespace, step.name, step.container, follow=follow, previous=previous, tail_lines=tail):
            yield f"[{step.step}] {line}"

    return read


def _interleaved(readers: list[Callable[[], Iterator[str]]]) -> Iterator[str]:
    lines: queue.Queue[object] = queue.Queue()

    def pump(read: Callable[[], Iterator[str]]) -> None:
        try:
            for line in read():
                lines.put(line)
        except KubeAPIError as error:
            lines.put(error)
        finally:
            lines.put(_DONE)

    for read in readers:
        threading.Thread(target=pump, args=(read,), daemon=True).start()
    running = len(readers)
    while running:
        item = lines.get()
        if item is _DONE:
            running -= 1
        elif isinstance(item, KubeAPIError):
            raise item
        else:
            yield str(item)
