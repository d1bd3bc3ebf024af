"""The `admission` output of a TrainJob: the state of the Workload Kueue made for its JobSet (issue 13).

The Workload is read by the program itself (watch/kubeclient.py, through the JobSet's kubernetes provider:
cluster_access.py), in an apply on the JobSet's live metadata (its uid names the Workload,
kueue.workload_name), off the event loop. So it is no resource: nothing is added to the state or
the program's resources, nothing of it can show as a diff, and it is read again on every preview
and up that reads the Output (at preview from the JobSet's uid in the state, one read; at `up`,
right after the JobSet is created or updated, waiting up to WORKLOAD_WAIT_SECONDS for Kueue to
make the Workload). A TrainJob without a queue reads nothing: its state is "not-queued".

The state itself (what each one means, the output's keys) is watch/kueue_state.py's, which `trainjob
get` and the failure hints share.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pulumi

from ..watch.kubeclient import KubeAPIError, KubeconfigSettings
from ..watch.kueue_state import KEYS, NOT_QUEUED, QUEUED_STATES, admission_state, read_workload_state, shape, workload_name
from .cluster_access import provider_settings
from .kueue import WORKLOAD_WAIT_SECONDS

__all__ = ["KEYS", "NOT_QUEUED", "QUEUED_STATES", "admission_output", "admission_state", "read_admission", "read_jobset_admission"]

JOBSET_API_VERSION = "jobset.x-k8s.io/v1alpha2"


def read_admission(settings: KubeconfigSettings, namespace: str, jobset: str, uid: str, wait_seconds: float) -> dict[str, Any]:
    """The state of the JobSet's Workload, waiting up to `wait_seconds` for Kueue to make it."""
    try:
        api = settings.api()
    except KubeAPIError as error:
        return shape("unknown", message=f"cannot read Kueue's Workload: {error}")
    return read_workload_state(api, namespace, workload_name(jobset, uid), wait_seconds)


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
