"""The `admission` output of a TrainJob: the state of the Workload Kueue made for its JobSet (issue 13).

The Workload is read by the program itself (kubeapi.py, through the JobSet's kubernetes provider:
cluster_access.py), in an apply on the JobSet's live metadata (its uid names the Workload,
kueue.workload_name), off the event loop. So it is no resource: nothing is added to the state or
the program's resources, nothing of it can show as a diff, and it is read again on every preview
and up that reads the Output (at preview from the JobSet's uid in the state, one read; at `up`,
right after the JobSet is created or updated, waiting up to WORKLOAD_WAIT_SECONDS for Kueue to
make the Workload). A TrainJob without a queue reads nothing: its state is "not-queued".

The state follows Kueue v0.17 (pkg/workload.Status, and the Evicted/Preempted conditions, which
stay True until the Workload next reserves quota): "finished", "preempted" / "evicted" (evicted
and not admitted since), "admitted", "quota-reserved" (admission checks pending, e.g. MultiKueue),
"inactive" (spec.active false: suspend=True; Kueue evicts it, reason Deactivated), "pending"; "no-workload" (Kueue made none in time),
"unknown" (the cluster could not be asked: why is in `message`). Every key is always present
(`shape`), None when it does not apply.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pulumi

from .cluster_access import provider_settings
from .kubeapi import KubeAPIError, KubeconfigSettings
from .kueue import WORKLOAD_API_VERSION, WORKLOAD_WAIT_SECONDS, workload_name

KEYS = ("state", "reason", "message", "workload", "queue", "clusterQueue", "flavors", "priority")
QUEUED_STATES = ("pending", "inactive", "quota-reserved", "evicted", "preempted", "no-workload")
POLL_SECONDS = 0.5
JOBSET_API_VERSION = "jobset.x-k8s.io/v1alpha2"


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


def read_admission(settings: KubeconfigSettings, namespace: str, jobset: str, uid: str, wait_seconds: float) -> dict[str, Any]:
    """The state of the JobSet's Workload, waiting up to `wait_seconds` for Kueue to make it."""
    try:
        api = settings.api()
        name, deadline = workload_name(jobset, uid), time.monotonic() + wait_seconds
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


def read_jobset_admission(settings: KubeconfigSettings, namespace: str | None, jobset: str) -> dict[str, Any]:
    """The state of the Workload of the live JobSet `namespace/jobset` (its uid names the Workload)."""
    try:
        api = settings.api()
        namespace = namespace or api.namespace
        live = api.get(JOBSET_API_VERSION, "JobSet", namespace, jobset)
    except KubeAPIError as error:
        return shape("unknown", message=f"cannot read the JobSet: {error}")
    if live is None:
        return shape("unknown", message=f"no JobSet {namespace}/{jobset}")
    return read_admission(settings, namespace, jobset, live["metadata"]["uid"], 0)


def admission_output(jobset: pulumi.CustomResource, queue: str | None) -> pulumi.Output[dict[str, Any]]:
    """The `admission` Output of a TrainJob whose JobSet is `jobset` (the module docstring)."""
    if queue is None:
        return pulumi.Output.from_input(NOT_QUEUED)
    wait = 0.0 if pulumi.runtime.is_dry_run() else float(WORKLOAD_WAIT_SECONDS)
    metadata: pulumi.Output[Any] = jobset.metadata  # type: ignore[attr-defined]  # an output property the SDK sets

    def read(values: list[Any]) -> Any:
        live, settings = values
        live = live or {}
        if not live.get("uid"):  # under unit-test mocks, or a JobSet the state does not know
            return shape("unknown", message="the JobSet has no uid yet")
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(None, read_admission, settings, live.get("namespace") or "default",
                                    live["name"], live["uid"], wait)

    # Not secret: the provider's kubeconfig (perhaps secret) only chose the cluster.
    return pulumi.Output.unsecret(pulumi.Output.all(metadata, provider_settings(jobset)).apply(read))
