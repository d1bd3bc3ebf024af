"""watch/trainjobs.py and pods.py: which objects are TrainJobs, their state and their Pods' steps, from
objects served by a loopback API server (recorded_api.py)."""

from __future__ import annotations

import pytest
import yaml

from pulumi_kubeflow_trainer.watch.kubeclient import KubeAPI, KubeAPIError
from pulumi_kubeflow_trainer.watch.pods import pods_of
from pulumi_kubeflow_trainer.watch.trainjobs import find, find_all

from .objects import PENDING_PODS, RUNNING, finished, jobset, listed, pod, replicated_job
from .recorded_api import kubeconfig_for, serving

JOBSETS = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/team-a/jobsets"
TRAINJOBS = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs"


def pods_path(name: str) -> str:
    return f"/api/v1/namespaces/team-a/pods?labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3D{name}"


def api_for(url: str) -> KubeAPI:
    return KubeAPI(kubeconfig=yaml.safe_dump(kubeconfig_for(url)))


CONTROLLER_TRAINJOB = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                       "metadata": {"name": "ctl", "namespace": "team-a", "creationTimestamp": "2026-12-01T00:00:00Z"},
                       "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 3}},
                       "status": {"conditions": [{"type": "Complete", "status": "True", "reason": "JobsCompleted"}]}}


def test_list_finds_jobsets_made_here_and_trainjob_objects_and_nothing_else():
    served = [jobset("made-here"), jobset("ctl", owner="ctl"), jobset("plain", jobs=[replicated_job("workers", ancestor=None)])]
    with serving({JOBSETS: listed(*served), TRAINJOBS: listed(CONTROLLER_TRAINJOB)}) as server:
        found = find_all(api_for(server.url), "team-a")
    assert [(job.name, job.mode, job.state, job.nodes) for job in found] == [
        ("ctl", "controller", "Complete", 2), ("made-here", "rendered", "Created", 2)]


@pytest.mark.parametrize(("served", "state"), [
    (jobset("j"), "Created"),
    (jobset("j", status=RUNNING), "Running"),
    (jobset("j", status=PENDING_PODS), "Created"),
    (jobset("j", status=finished("Completed", "AllJobsCompleted", "jobset completed successfully")), "Complete"),
    (jobset("j", status=finished("Failed", "FailedJobs", "jobset failed due to one or more job failures")), "Failed"),
    (jobset("j", suspend=True), "Suspended"),
    (jobset("j", suspend=True, queue="team-q"), "Queued"),
], ids=["a JobSet whose jobs have not started is Created", "one whose trainer job is ready is Running",
        "one whose trainer Pods are active but not ready (pending an image, a node) is Created",
        "a Completed JobSet is Complete", "a Failed JobSet is Failed", "a suspended one is Suspended",
        "a suspended one with a queue is Queued (Kueue holds it)"])
def test_the_state_follows_the_jobset(served, state):
    with serving({f"{JOBSETS}/j": (200, served)}) as server:
        assert find(api_for(server.url), "team-a", "j").state == state


def test_a_name_that_is_no_trainjob_is_an_error_naming_the_cluster():
    with serving({}) as server:
        with pytest.raises(KubeAPIError, match=rf"no TrainJob team-a/ghost: .* \(on {server.url}, context here\)"):
            find(api_for(server.url), "team-a", "ghost")


@pytest.mark.parametrize(("jobs", "pods", "steps"), [
    ([replicated_job("node", 2)], [pod("j", "node", 1), pod("j", "node", 0)], ["node-0", "node-1"]),
    ([replicated_job("node", 2, ancestor=None), replicated_job("launcher", 1)],
     [pod("j", "node", 0), pod("j", "node", 1), pod("j", "launcher", 0)], ["node-0", "node-1", "node-2"]),
    ([replicated_job("dataset-initializer", ancestor="dataset-initializer"), replicated_job("node", 1)],
     [pod("j", "dataset-initializer", 0), pod("j", "node", 0)], ["node-0", "dataset-initializer"]),
], ids=["torch: a node's rank is its completion index", "MPI: the launcher is node-0, the nodes follow",
        "an initializer is a step of its own name"])
def test_pods_are_named_by_step_as_the_sdk_names_them(jobs, pods, steps):
    with serving({f"{JOBSETS}/j": (200, jobset("j", jobs=jobs)), pods_path("j"): listed(*pods)}) as server:
        api = api_for(server.url)
        found = pods_of(api, find(api, "team-a", "j"))
    assert [step.step for step in found] == steps
    assert all(step.container == "node" for step in found)
