"""What `trainjob list` and `trainjob get` print, as plain data (the `-o json|yaml` shapes).

`summary`: one row of `list` (name, namespace, mode, state, nodes, queue, runtime, created, age).
`details`: `get`: the summary, the TrainJob's conditions and per-job status (status.compute_status's
`jobsStatus`), Kueue's admission state (watch/kueue_state.py), the Pods by step, and the hints.
"""

from __future__ import annotations

from typing import Any

from ..status import COMPLETE
from .hints import hints_for
from .kubeclient import KubeAPI
from .kueue_state import NOT_QUEUED, owner_admission
from .pods import PodStep, pods_of
from .trainjobs import LiveTrainJob, age

SUMMARY_KEYS = ("namespace", "name", "mode", "state", "nodes", "queue", "runtime", "age", "created")


def summary(job: LiveTrainJob) -> dict[str, Any]:
    return {"namespace": job.namespace, "name": job.name, "mode": job.mode, "state": job.state, "nodes": job.nodes,
            "queue": job.queue, "runtime": job.runtime, "age": age(job.created), "created": job.created}


def details(api: KubeAPI, job: LiveTrainJob, *, with_logs: bool = True) -> dict[str, Any]:
    steps = pods_of(api, job)
    owner = job.queue_owner
    admission = owner_admission(api, owner) if (owner is not None and job.queue) else NOT_QUEUED
    hints = [] if job.state == COMPLETE else hints_for(api, owner, steps, with_logs=with_logs)
    return {**summary(job), "conditions": job.status.get("conditions") or [], "jobsStatus": job.status.get("jobsStatus") or [],
            "admission": admission, "pods": [pod_row(step) for step in steps], "hints": [hint.as_dict() for hint in hints]}


def pod_row(step: PodStep) -> dict[str, Any]:
    status = step.pod.get("status") or {}
    restarts = sum(int(c.get("restartCount") or 0) for c in status.get("containerStatuses") or [])
    return {"step": step.step, "pod": step.name, "phase": step.phase, "node": (step.pod.get("spec") or {}).get("nodeName"),
            "restarts": restarts, "container": step.container}
