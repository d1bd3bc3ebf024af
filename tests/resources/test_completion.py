"""resources/completion: the TrainJob status the component reports from its JobSet's live status, what
a failed wait says in either mode, and what a queued wait that timed out says."""

from __future__ import annotations

import asyncio

import pulumi
import pytest

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.resources import completion
from pulumi_kubeflow_trainer.resources.completion import (
    CompletionWatch,
    fail_if_failed,
    failed_condition,
    own_status,
    queued_message,
    status_from_jobset,
    trainjob_status,
)
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
    hook = CompletionWatch("mnist", 600)
    hook.resource = object()  # type: ignore[assignment]  # only handed to provider_settings, patched below
    monkeypatch.setattr(completion, "provider_settings", lambda _resource: pulumi.Output.from_input(KubeconfigSettings(context="gpu")))
    assert asyncio.run(hook(hook_args(error))) is False, "never a retry: the timeout stands"
    assert logged == ([said] if said else [])
    assert read == ([(KubeconfigSettings(context="gpu"), "team-a", "mnist")] if error == TIMED_OUT else [])


def test_the_queued_message_names_the_cluster_queue_when_known():
    assert queued_message("x", 60, {"state": "inactive", "clusterQueue": "cq", "reason": "Inactive", "message": None}) == (
        "TrainJob x: still queued after 60 s: Workload inactive in ClusterQueue cq: Inactive")


TRAINJOB_FAILED = {"conditions": [{"type": "Failed", "status": "True", "reason": "FailedJobs", "message": "jobset failed"}]}
TRAINJOB_COMPLETE = {"conditions": [{"type": "Complete", "status": "True", "reason": "JobsCompleted", "message": "done"}]}


@pytest.mark.parametrize(("status_of", "status", "raised"), [
    (status_from_jobset(lambda: make_trainjob("team-a", "mnist").runtime_ref("rt").obj()), FAILED,
     "TrainJob mnist failed: FailedJobs: jobset failed\nOOMKilled: node-0 was killed"),
    (status_from_jobset(lambda: make_trainjob("team-a", "mnist").runtime_ref("rt").obj()), COMPLETED, None),
    (own_status, TRAINJOB_FAILED, "TrainJob mnist failed: FailedJobs: jobset failed\nOOMKilled: node-0 was killed"),
    (own_status, TRAINJOB_COMPLETE, None),
], ids=["a failed JobSet fails the up with the causes read from its cluster",
        "a completed JobSet passes and reads nothing",
        "in controller mode, a TrainJob object the controller marked Failed fails it with the same causes",
        "in controller mode, a complete TrainJob object passes"])
def test_the_resource_waited_for_fails_the_up_with_its_causes_when_its_trainjob_failed(status_of, status, raised, monkeypatch):
    read: list[tuple[object, ...]] = []
    monkeypatch.setattr(completion, "failure_hints", lambda *args: read.append(args) or ["OOMKilled: node-0 was killed"])
    monkeypatch.setattr(completion, "provider_settings", lambda _resource: pulumi.Output.from_input(KubeconfigSettings(context="gpu")))
    watch = CompletionWatch("mnist", 600, queued=False)
    watch.resource = object()  # type: ignore[assignment]  # only handed to provider_settings, patched above
    hook = fail_if_failed("mnist", status_of, watch)
    args = pulumi.ResourceHookArgs("urn", "id", "mnist", "kubernetes:...", new_inputs={"metadata": {"name": "mnist", "namespace": "team-a"}},
                                   new_outputs={"status": status})
    if raised is None:
        asyncio.run(hook(args))
        assert read == []
        return
    with pytest.raises(RuntimeError) as failed:
        asyncio.run(hook(args))
    assert str(failed.value) == raised
    assert read == [(KubeconfigSettings(context="gpu"), "team-a", "mnist")], "the JobSet's (same name) Pods, on the provider's cluster"
