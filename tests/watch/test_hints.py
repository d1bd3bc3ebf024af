"""watch/hints.py: the cause a failed or waiting TrainJob's Pods, events, Workload and PodGroup name,
from objects shaped as the kubelet, the schedulers and Kueue v0.17 write them, served by a loopback
API server (recorded_api.py)."""

from __future__ import annotations

import pytest

from pulumi_kubeflow_trainer.watch.hints import hints_for
from pulumi_kubeflow_trainer.watch.kueue_state import workload_name
from pulumi_kubeflow_trainer.watch.pods import pods_of
from pulumi_kubeflow_trainer.watch.trainjobs import find

from .objects import jobset, listed, pod, terminated, waiting
from .recorded_api import serving
from .test_trainjobs import JOBSETS, api_for, pods_path

UNSCHEDULABLE = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                 "message": "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are available"}
REJECTED_WITH_GROUP = {**UNSCHEDULABLE, "message": "0/1 nodes are available: 1 optimistic rejection in PostFilter."}
REJECTED_IN_UNRESERVE = {**UNSCHEDULABLE, "message": "0/1 nodes are available: 1 rejection in Unreserve."}
LOG = "/api/v1/namespaces/team-a/pods/j-node-0-0-x/log"
WORKLOAD = workload_name("j", "uid-1")
PENDING_WORKLOAD = {"metadata": {"name": WORKLOAD}, "spec": {"queueName": "team-q"}, "status": {"conditions": [
    {"type": "QuotaReserved", "status": "False", "reason": "Pending",
     "message": "couldn't assign flavors to pod set node: insufficient unused quota for cpu in flavor default, 4 more needed"}]}}
GANG_POD = {"scheduling.x-k8s.io/pod-group": "j"}
POD_GROUP = {"metadata": {"name": "j"}, "spec": {"minMember": 4, "minResources": {"nvidia.com/gpu": "32"}}, "status": {}}

def scheduling_event(pod_name: str, message: str, at: str) -> dict[str, object]:
    return {"metadata": {"name": f"{pod_name}.{at}", "namespace": "team-a"}, "reason": "FailedScheduling", "type": "Warning",
            "involvedObject": {"kind": "Pod", "name": pod_name, "namespace": "team-a"}, "message": message, "lastTimestamp": at}


CASES = [  # (case, pods, other answers, queue, expected hint lines)
    ("a container killed for memory is OOMKilled, with its limit",
     [pod("j", "node", 0, phase="Failed", memory="8Gi", statuses=[terminated("OOMKilled", 137)])], {}, None,
     ["OOMKilled: Pod j-node-0-0-x (node-0): container node was killed for using more memory than its limit (8Gi): exit code 137"]),
    ("an image that cannot be pulled names the image and the kubelet's message",
     [pod("j", "node", 0, phase="Pending", statuses=[waiting("ImagePullBackOff", 'Back-off pulling image "pytorch/pytorch:2"')])], {}, None,
     ['ImagePullFailed: Pod j-node-0-0-x (node-0): container node: ImagePullBackOff for image pytorch/pytorch:2: '
      'Back-off pulling image "pytorch/pytorch:2"']),
    ("a crash loop gives the restarts and the previous run's last lines",
     [pod("j", "node", 0, statuses=[terminated("Error", 1, last=True)])],
     {f"{LOG}?container=node&follow=False&previous=True&tailLines=10": (200, "Traceback (most recent call last):\nKeyError: 'lr'\n")}, None,
     ["CrashLoopBackOff: Pod j-node-0-0-x (node-0): container node restarted 3 times: back-off 40s",
      "  last log lines:", "    Traceback (most recent call last):", "    KeyError: 'lr'"]),
    ("a failed container gives its exit code and last lines; Pods failing alike are one hint",
     [pod("j", "node", 0, phase="Failed", statuses=[terminated("Error", 2, "bad args")]),
      pod("j", "node", 1, phase="Failed", statuses=[terminated("Error", 2, "bad args")])],
     {f"{LOG}?container=node&follow=False&previous=False&tailLines=10": (200, "usage: train.py [-h]\n")}, None,
     ["Error: 2 Pods: Pod j-node-0-0-x (node-0), Pod j-node-0-1-x (node-1): container node exited with code 2 (Error: bad args)",
      "  last log lines:", "    usage: train.py [-h]"]),
    ("an unschedulable Pod gives the scheduler's message",
     [pod("j", "node", 0, phase="Pending", conditions=[UNSCHEDULABLE])], {}, None,
     [f"Unschedulable: Pod j-node-0-0-x (node-0): {UNSCHEDULABLE['message']}"]),
    ("a gang that cannot be placed names its PodGroup, minMember and the scheduler's messages, the cause first",
     [pod("j", "node", 0, phase="Pending", labels=GANG_POD, conditions=[REJECTED_WITH_GROUP]),
      *(pod("j", "node", i, phase="Pending", labels=GANG_POD, conditions=[UNSCHEDULABLE]) for i in (1, 2))],
     {"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/team-a/podgroups/j": (200, POD_GROUP)}, None,
     ["GangUnschedulable: PodGroup j: needs all 4 Pods at once (minResources {'nvidia.com/gpu': '32'}), phase no phase "
      f"(no PodGroup controller wrote its status); {UNSCHEDULABLE['message']}; {REJECTED_WITH_GROUP['message']}"]),
    ("a gang whose cause is only in an earlier event (every Pod's condition now says the group was rejected) names it first",
     [pod("j", "node", i, phase="Pending", labels=GANG_POD, conditions=[REJECTED_IN_UNRESERVE]) for i in (0, 1)],
     {"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/team-a/podgroups/j": (200, POD_GROUP),
      "/api/v1/namespaces/team-a/events": listed(
          scheduling_event("j-node-0-0-x", UNSCHEDULABLE["message"], "2026-12-05T06:00:00Z"),
          scheduling_event("j-node-0-0-x", REJECTED_IN_UNRESERVE["message"], "2026-12-05T06:00:05Z"))}, None,
     ["GangUnschedulable: PodGroup j: needs all 4 Pods at once (minResources {'nvidia.com/gpu': '32'}), phase no phase "
      f"(no PodGroup controller wrote its status); {UNSCHEDULABLE['message']}; {REJECTED_IN_UNRESERVE['message']}"]),
    ("a TrainJob Kueue holds gives Kueue's reason and the ClusterQueue",
     [], {f"/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/{WORKLOAD}": (200, PENDING_WORKLOAD),
          "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/localqueues/team-q": (200, {"spec": {"clusterQueue": "team-cq"}})}, "team-q",
     [f"Queued: Workload team-a/{WORKLOAD}: pending in ClusterQueue team-cq: Pending: {PENDING_WORKLOAD['status']['conditions'][0]['message']}"]),
    ("a running TrainJob has nothing to say", [pod("j", "node", 0)], {}, None, []),
]


@pytest.mark.parametrize(("pods", "answers", "queue", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_hint_names_the_cause(pods, answers, queue, expected):
    with serving({f"{JOBSETS}/j": (200, jobset("j", queue=queue)), pods_path("j"): listed(*pods), **answers}) as server:
        api = api_for(server.url)
        job = find(api, "team-a", "j")
        hints = hints_for(api, job.queue_owner, pods_of(api, job))
    assert "\n".join(str(hint) for hint in hints).splitlines() == expected
