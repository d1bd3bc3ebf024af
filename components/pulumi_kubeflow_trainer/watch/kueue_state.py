"""The state of the Workload Kueue made for a JobSet (issue 13): the TrainJob component's `admission`
output and what `trainjob get` and the failure hints say of a queued TrainJob.

The state follows Kueue v0.17 (pkg/workload.Status, and the Evicted/Preempted conditions, which
stay True until the Workload next reserves quota): "finished", "preempted" / "evicted" (evicted
and not admitted since), "admitted", "quota-reserved" (admission checks pending, e.g. MultiKueue),
"inactive" (spec.active false: suspend=True; Kueue evicts it, reason Deactivated), "pending";
"no-workload" (Kueue made none in time), "unknown" (the cluster could not be asked: why is in
`message`). Every key is always present (`shape`), None when it does not apply.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from .kubeclient import KubeAPI, KubeAPIError

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
WORKLOAD_API_VERSION = "kueue.x-k8s.io/v1beta2"
KEYS = ("state", "reason", "message", "workload", "queue", "clusterQueue", "flavors", "priority")
QUEUED_STATES = ("pending", "inactive", "quota-reserved", "evicted", "preempted", "no-workload")
POLL_SECONDS = 0.5
# Kueue v0.17 jobframework/workload_names.go: "<kind>-<owner name>" truncated, "-", 5 hex of a sha1.
_WORKLOAD_NAME_MAX, _HASH_LENGTH = 253, 5


def workload_name(owner_name: str, uid: str, kind: str = "JobSet", group: str = "jobset.x-k8s.io") -> str:
    """The name Kueue gives the Workload of a JobSet, or of a TrainJob in controller mode
    (GetWorkloadNameForOwnerWithGVK, long names)."""
    digest = hashlib.sha1(f"{kind}\n{group}\n{owner_name}\n{uid}".encode()).hexdigest()
    prefix = f"{kind.lower()}-{owner_name}"[: _WORKLOAD_NAME_MAX - 1 - _HASH_LENGTH]
    return f"{prefix}-{digest[:_HASH_LENGTH]}"


def shape(state: str, **values: Any) -> dict[str, Any]:
    """The output's shape: `flavors` is {pod set: {resource: flavor}}, empty until admitted."""
    return {key: values.get(key) for key in KEYS} | {"state": state, "flavors": values.get("flavors") or {}}


NOT_QUEUED = shape("not-queued", message="no kueue.x-k8s.io/queue-name: Kueue does not queue this TrainJob")


def admission_state(workload: dict[str, Any] | None, cluster_queue: str | None = None) -> dict[str, Any]:
    """The state of a Workload as Kueue v0.17 reports it; `cluster_queue` is the LocalQueue's, for a
    Workload that has no admission (the ClusterQueue it waits in)."""
    if workload is None:
        return shape("no-workload", message="Kueue has made no Workload for the JobSet")
    spec, status = workload.get("spec") or {}, workload.get("status") or {}
    admission = status.get("admission") or {}
    found = {cond.get("type"): cond for cond in status.get("conditions") or []}
    true = {kind: cond for kind, cond in found.items() if cond.get("status") == "True"}
    flavors = {assignment.get("name"): assignment.get("flavors") or {} for assignment in admission.get("podSetAssignments") or []}
    common = {"workload": (workload.get("metadata") or {}).get("name"), "queue": spec.get("queueName"),
              "clusterQueue": admission.get("clusterQueue") or cluster_queue, "flavors": flavors, "priority": spec.get("priority")}
    state, cause = _state(spec, found, true)
    return shape(state, reason=(cause or {}).get("reason"), message=(cause or {}).get("message"), **common)


def _state(spec: dict[str, Any], found: dict[str, Any], true: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """The state and the condition that says why."""
    if "Finished" in true:
        return "finished", true["Finished"]
    if spec.get("active") is False:  # Kueue evicts it too (reason Deactivated), admitted or not
        return "inactive", true.get("Evicted") or {"reason": "Inactive", "message": "the Workload's spec.active is false"}
    if "Evicted" in true:
        evicted = true["Evicted"]
        if evicted.get("reason") == "Preempted":
            return "preempted", true.get("Preempted") or evicted
        return "evicted", evicted
    if "Admitted" in true:
        return "admitted", true["Admitted"]
    if "QuotaReserved" in true:
        return "quota-reserved", found.get("Admitted") or true["QuotaReserved"]
    waiting = found.get("QuotaReserved") or found.get("Admitted")
    return "pending", waiting or {"reason": "Pending", "message": "not yet considered by Kueue's scheduler"}


def read_workload_state(api: KubeAPI, namespace: str, name: str, wait_seconds: float = 0) -> dict[str, Any]:
    """The state of the Workload `namespace/name`, waiting up to `wait_seconds` for Kueue to make it;
    "unknown" when the cluster cannot be asked."""
    try:
        deadline = time.monotonic() + wait_seconds
        while (workload := api.get(WORKLOAD_API_VERSION, "Workload", namespace, name)) is None and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
        queue = ((workload or {}).get("spec") or {}).get("queueName")
        cluster_queue = None
        if queue and not ((workload or {}).get("status") or {}).get("admission"):
            local_queue = api.get(WORKLOAD_API_VERSION, "LocalQueue", namespace, queue)
            cluster_queue = ((local_queue or {}).get("spec") or {}).get("clusterQueue")
        return admission_state(workload, cluster_queue)
    except KubeAPIError as error:
        return shape("unknown", message=f"cannot read Kueue's Workload: {error}")


def owner_admission(api: KubeAPI, owner: dict[str, Any]) -> dict[str, Any]:
    """The state of the Workload of a live JobSet or TrainJob (its uid names the Workload); NOT_QUEUED
    for one without a queue label."""
    metadata = owner.get("metadata") or {}
    if not (metadata.get("labels") or {}).get(QUEUE_LABEL):
        return NOT_QUEUED
    group = str(owner.get("apiVersion", "")).rpartition("/")[0]
    name = workload_name(metadata["name"], metadata.get("uid", ""), owner.get("kind", "JobSet"), group)
    return read_workload_state(api, metadata.get("namespace") or api.namespace, name)
