"""Waiting for a TrainJob to reach a state (`trainjob wait`, `TrainerClient.wait_for_job_status`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection

from ..status import COMPLETE, FAILED
from .kubeclient import KubeAPI
from .trainjobs import LiveTrainJob, find

FINISHED = (COMPLETE, FAILED)


def wait_for_state(api: KubeAPI, namespace: str, name: str, states: Collection[str] = FINISHED, *, timeout: float,
                   poll_seconds: float = 2.0, on_poll: Callable[[LiveTrainJob], None] | None = None) -> tuple[LiveTrainJob, bool]:
    """The TrainJob once its state is one of `states` (True), or as it was when `timeout` seconds
    passed (False). A finished TrainJob (Complete, Failed) ends the wait whatever `states` says: it
    will not change."""
    deadline = time.monotonic() + timeout
    while True:
        job = find(api, namespace, name)
        if on_poll is not None:
            on_poll(job)
        if job.state in states or job.state in FINISHED:
            return job, job.state in states
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return job, False
        time.sleep(min(poll_seconds, remaining))
