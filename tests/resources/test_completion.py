"""resources/completion: the TrainJob status the component reports from its JobSet's live status, and
what a queued wait that timed out says."""

from __future__ import annotations

import asyncio

import pulumi
import pytest

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.resources import completion
from pulumi_kubeflow_trainer.resources.completion import QueuedTimeout, failed_condition, queued_message, trainjob_status
from pulumi_kubeflow_trainer.watch.kubeclient import KubeconfigSettings
from tests.builders import make_trainjob

COMPLETED = {"terminalState": "Completed", "conditions": [
    {"type": "Completed", "status": "True", "reason": "AllJobsCompleted", "message": "jobset completed successfully",
     "lastTransitionTime": "2026-12-01T00:00:00Z"}]}
FAILED = {"terminalState": "Failed", "conditions": [
    {"type": "Failed", "status": "True", "reason": "FailedJobs", "message": "jobset failed", "lastTransitionTime": "2026-12-01T00:00:00Z"}]}


@pytest.mark.parametrize("managed_by", [None, c.MANAGED_BY_TRAINER, c.MANAGED_BY_MULTIKUEUE])
def test_a_completed_jobset_completes_the_trainjob_whoever_manages_it(managed_by: str | None) -> None:
    trainjob = make_trainjob().runtime_ref("rt").obj()
    if managed_by:
        trainjob["spec"]["managedBy"] = managed_by
    status = trainjob_status(trainjob, COMPLETED)
    assert [(cond["type"], cond["status"]) for cond in status["conditions"] if cond["type"] == "Complete"] == [("Complete", "True")]


def test_a_failed_jobset_dispatched_by_multikueue_fails_the_trainjob() -> None:
    trainjob = make_trainjob().runtime_ref("rt").obj()
    trainjob["spec"]["managedBy"] = c.MANAGED_BY_MULTIKUEUE
    assert failed_condition(trainjob_status(trainjob, FAILED)) is not None


PENDING = {"state": "pending", "reason": "Pending", "clusterQueue": "cq", "message":
           "couldn't assign flavors to pod set node: insufficient unused quota for cpu in flavor gpu, 4 more needed"}
TIMED_OUT = ('resource "urn:...:JobSet::mnist-jobset" was successfully created, but the Kubernetes API server reported '
             "that it failed to fully initialize or become live: timed out waiting for the condition")


def hook_args(error: str) -> pulumi.ErrorHookArgs:
    return pulumi.ErrorHookArgs(urn="urn:...:JobSet::mnist-jobset", id="default/mnist", name="mnist-jobset",
                                type="kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", failed_operation="create",
                                new_inputs={"metadata": {"name": "mnist", "namespace": "team-a"}}, errors=[error])


@pytest.mark.parametrize(("error", "admission", "said"), [
    (TIMED_OUT, PENDING, "error: TrainJob mnist: still queued after 600 s: Workload pending in ClusterQueue cq: "
                         "couldn't assign flavors to pod set node: insufficient unused quota for cpu in flavor gpu, 4 more needed"),
    (TIMED_OUT, {"state": "preempted", "reason": "InClusterQueue", "clusterQueue": None, "message": None},
     "error: TrainJob mnist: still queued after 600 s: Workload preempted: InClusterQueue"),
    (TIMED_OUT, {"state": "admitted", "clusterQueue": "cq", "message": "The workload is admitted"}, ""),
    ("admission webhook denied the request", PENDING, ""),
], ids=["a wait that timed out while pending says so with Kueue's reason", "one preempted says so with the reason",
        "one admitted adds nothing: it was still running", "another error adds nothing: the provider's says it all"])
def test_a_queued_wait_that_times_out_says_whether_it_is_still_queued(error, admission, said, monkeypatch):
    read: list[tuple[object, ...]] = []
    logged: list[str] = []
    monkeypatch.setattr(pulumi.log, "error", lambda message, *_args, **_kwargs: logged.append(f"error: {message}"))
    monkeypatch.setattr(completion, "read_jobset_admission", lambda *args: read.append(args) or admission)
    hook = QueuedTimeout("mnist", 600)
    hook.jobset = object()  # type: ignore[assignment]  # only handed to provider_settings, patched below
    monkeypatch.setattr(completion, "provider_settings", lambda _jobset: pulumi.Output.from_input(KubeconfigSettings(context="gpu")))
    assert asyncio.run(hook(hook_args(error))) is False, "never a retry: the timeout stands"
    assert logged == ([said] if said else [])
    assert read == ([(KubeconfigSettings(context="gpu"), "team-a", "mnist")] if error == TIMED_OUT else [])


def test_the_queued_message_names_the_cluster_queue_when_known():
    assert queued_message("x", 60, {"state": "inactive", "clusterQueue": "cq", "reason": "Inactive", "message": None}) == (
        "TrainJob x: still queued after 60 s: Workload inactive in ClusterQueue cq: Inactive")
