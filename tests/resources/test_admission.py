"""resources/admission.py: the `admission` state from Workloads recorded from Kueue v0.17.0
(kueue_workloads.json), and the Output of TrainJobs with and without a queue under Pulumi mocks
(tests/cluster/test_kueue_admission.py reads it live)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pulumi
import pytest

from pulumi_kubeflow_trainer import TrainJob
from pulumi_kubeflow_trainer.resources.admission import KEYS, NOT_QUEUED, admission_state

from .conftest import settled

RECORDED: dict[str, Any] = json.loads((Path(__file__).parent / "kueue_workloads.json").read_text())
PREEMPTING_QUEUE = "it-cq-preempting"


def recorded(name: str, **changes: Any) -> dict[str, Any]:
    workload = copy.deepcopy(RECORDED[name])
    workload["spec"].update(changes.pop("spec", {}))
    workload["status"].update(changes)
    return workload


def evicted(reason: str, message: str, active: bool = True) -> dict[str, Any]:
    """An admitted Workload that Kueue evicted (suspend=True: reason Deactivated, spec.active false)."""
    workload = recorded("admitted", spec={"active": active})
    workload["status"]["conditions"].append({"type": "Evicted", "status": "True", "reason": reason, "message": message})
    return workload


def checks_pending() -> dict[str, Any]:
    """Quota reserved, an admission check (e.g. MultiKueue's) not yet Ready: Admitted is False."""
    workload = recorded("admitted")
    admitted = next(cond for cond in workload["status"]["conditions"] if cond["type"] == "Admitted")
    admitted.update(status="False", reason="NoChecks", message="The workload has not all checks ready")
    return workload


CASES = [  # (case, workload, cluster queue of its LocalQueue, expected state, reason, message part, cluster queue, flavors)
    ("an admitted workload names its ClusterQueue and flavor per pod set", RECORDED["admitted"], None,
     "admitted", "Admitted", "admitted", PREEMPTING_QUEUE, {"node": {"cpu": "it-kwok-pool"}}),
    ("a pending workload gives Kueue's reason and the ClusterQueue it waits in", RECORDED["pending"], "it-cq",
     "pending", "Pending", "insufficient unused quota for cpu", "it-cq", {}),
    ("a preempted workload gives the Preempted condition's reason", RECORDED["preempted"], PREEMPTING_QUEUE,
     "preempted", "InClusterQueue", "due to prioritization in the ClusterQueue", PREEMPTING_QUEUE, {}),
    ("a finished workload says how it finished", RECORDED["finished"], None,
     "finished", "Succeeded", "completed successfully", PREEMPTING_QUEUE, {"node": {"cpu": "it-kwok-pool"}}),
    ("an evicted workload that is not preempted gives the Evicted reason",
     evicted("ClusterQueueStopped", "The ClusterQueue is stopped"), None,
     "evicted", "ClusterQueueStopped", "is stopped", PREEMPTING_QUEUE, {"node": {"cpu": "it-kwok-pool"}}),
    ("a deactivated workload is inactive, with Kueue's eviction reason",
     evicted("Deactivated", "The workload is deactivated", active=False), None,
     "inactive", "Deactivated", "is deactivated", PREEMPTING_QUEUE, {"node": {"cpu": "it-kwok-pool"}}),
    ("quota reserved with checks pending is quota-reserved", checks_pending(), None,
     "quota-reserved", "NoChecks", "not all checks ready", PREEMPTING_QUEUE, {"node": {"cpu": "it-kwok-pool"}}),
    ("a deactivated workload never admitted is inactive", recorded("pending", conditions=[], spec={"active": False}), "it-cq",
     "inactive", "Inactive", "spec.active is false", "it-cq", {}),
    ("a workload Kueue's scheduler has not considered is pending", recorded("pending", conditions=[]), "it-cq",
     "pending", "Pending", "not yet considered", "it-cq", {}),
    ("no workload is no-workload", None, None, "no-workload", None, "no Workload", None, {}),
]


@pytest.mark.parametrize(("workload", "cluster_queue", "state", "reason", "message", "queue", "flavors"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_state_of_a_workload(workload, cluster_queue, state, reason, message, queue, flavors):
    admission = admission_state(workload, cluster_queue)
    assert tuple(admission) == KEYS, "every key, always"
    assert (admission["state"], admission["reason"], admission["clusterQueue"], admission["flavors"]) == (state, reason, queue, flavors)
    assert message in admission["message"]
    if workload is not None:
        assert admission["workload"] == workload["metadata"]["name"] and admission["queue"] == workload["spec"]["queueName"]
        assert admission["priority"] == workload["spec"]["priority"]


@pulumi.runtime.test
def test_a_trainjob_without_a_queue_is_not_queued_and_reads_nothing(mocks):
    job = TrainJob("plain", runtime_ref="torch-distributed")

    def check(values):
        admission, _ = values
        assert admission == NOT_QUEUED and admission["state"] == "not-queued"
        assert own(mocks) == ["plain", "plain-jobset", "plain-jobset-render", "plain-runtime"], "no resource is added for the output"

    return pulumi.Output.all(job.admission, settled(job)).apply(check)


def own(mocks) -> list[str]:
    """The TrainJob's resources: what mocks registered but the text of the runtime's revision, which is
    the program's (one per runtime revision, not per TrainJob)."""
    return sorted(name for name in mocks.types() if not name.startswith("clustertrainingruntime-"))


@pulumi.runtime.test
def test_reading_the_admission_adds_no_resource(mocks):
    job = TrainJob("queued", runtime_ref="torch-distributed", queue_name="team-queue")

    def check(values):
        admission, _ = values
        # Under mocks the JobSet has no uid, so nothing is read; live, the Workload is (tests/cluster).
        assert admission["state"] == "unknown" and "no uid" in admission["message"]
        assert own(mocks) == ["queued", "queued-jobset", "queued-jobset-render", "queued-runtime"], "the output is no resource"

    return pulumi.Output.all(job.admission, settled(job)).apply(check)
