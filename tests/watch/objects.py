"""Builders of the live objects the watch tests serve (shaped as the API server returns them)."""

from __future__ import annotations

import copy
from typing import Any

ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
CREATED = "2026-12-01T00:00:00Z"


def replicated_job(name: str, parallelism: int = 1, ancestor: str | None = "trainer", memory: str | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "node", "image": "pytorch/pytorch:2"}
    if memory:
        container["resources"] = {"limits": {"memory": memory}}
    metadata = {"labels": {ANCESTOR: ancestor}} if ancestor else {}
    return {"name": name, "replicas": 1, "template": {"metadata": metadata, "spec": {
        "parallelism": parallelism, "completions": parallelism, "template": {"spec": {"containers": [container]}}}}}


def jobset(name: str, namespace: str = "team-a", *, jobs: list[dict[str, Any]] | None = None, status: dict[str, Any] | None = None,
           suspend: bool = False, queue: str | None = None, owner: str | None = None, uid: str = "uid-1") -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "uid": uid, "creationTimestamp": CREATED}
    if queue:
        metadata["labels"] = {"kueue.x-k8s.io/queue-name": queue}
    if owner:
        metadata["ownerReferences"] = [{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "name": owner, "uid": "t"}]
    spec: dict[str, Any] = {"replicatedJobs": jobs if jobs is not None else [replicated_job("node", 2)]}
    if suspend:
        spec["suspend"] = True
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": metadata, "spec": spec, "status": status or {}}


def finished(kind: str, reason: str, message: str) -> dict[str, Any]:
    return {"terminalState": kind, "conditions": [{"type": kind, "status": "True", "reason": reason, "message": message}],
            "replicatedJobsStatus": [{"name": "node", "active": 0, "ready": 0, "succeeded": 1 if kind == "Completed" else 0,
                                      "failed": 1 if kind == "Failed" else 0, "suspended": 0}]}


RUNNING = {"replicatedJobsStatus": [{"name": "node", "active": 1, "ready": 1, "succeeded": 0, "failed": 0, "suspended": 0}]}
PENDING_PODS = {"replicatedJobsStatus": [{"name": "node", "active": 1, "ready": 0, "succeeded": 0, "failed": 0, "suspended": 0}]}


def pod(jobset_name: str, job: str, index: int, *, phase: str = "Running", statuses: list[dict[str, Any]] | None = None,
        conditions: list[dict[str, Any]] | None = None, labels: dict[str, str] | None = None, memory: str | None = None,
        namespace: str = "team-a") -> dict[str, Any]:
    container: dict[str, Any] = {"name": "node", "image": "pytorch/pytorch:2"}
    if memory:
        container["resources"] = {"limits": {"memory": memory}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{jobset_name}-{job}-0-{index}-x", "namespace": namespace, "creationTimestamp": CREATED,
                         "labels": {"jobset.sigs.k8s.io/jobset-name": jobset_name, "jobset.sigs.k8s.io/replicatedjob-name": job,
                                    "jobset.sigs.k8s.io/job-index": "0", "batch.kubernetes.io/job-completion-index": str(index),
                                    **(labels or {})}},
            "spec": {"containers": [container], "nodeName": "kwok-node-0"},
            "status": {"phase": phase, "containerStatuses": statuses or [], "conditions": conditions or []}}


def terminated(reason: str, exit_code: int, message: str | None = None, last: bool = False) -> dict[str, Any]:
    state = {"terminated": {"reason": reason, "exitCode": exit_code, **({"message": message} if message else {})}}
    if last:
        return {"name": "node", "restartCount": 3, "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}},
                "lastState": state}
    return {"name": "node", "restartCount": 0, "state": state}


def waiting(reason: str, message: str) -> dict[str, Any]:
    return {"name": "node", "restartCount": 0, "state": {"waiting": {"reason": reason, "message": message}}}


def listed(*items: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return 200, {"kind": "List", "items": [copy.deepcopy(item) for item in items]}
