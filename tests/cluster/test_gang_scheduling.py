"""Gang scheduling enforced: TrainJobs of a coscheduling runtime are scheduled by the scheduler-plugins
scheduler that tools/cluster runs (profile `scheduler-plugins-scheduler`, Coscheduling plugin), so
their Pods are bound as a whole PodGroup or not at all.

Every test gets its own pool of kwok nodes (label and NoSchedule taint POOL_KEY=<pool>; 8 GPUs each,
as the default nodes) and a runtime whose Pods select and tolerate only that pool and ask for a whole
node (nvidia.com/gpu: 8), so "N nodes' worth of capacity" is exactly N pool nodes. The PodGroup's
minResources check (PreFilter) sums the free resources of every node, the default ones too, so these
gangs pass it and are refused where the capacity really is missing: at Filter, for the Pod that finds
no node, with PostFilter and Permit deciding for the rest of the group.

The scheduler does not write the PodGroup's status (the scheduler-plugins controller does, and it does
not run here): why a gang waits is in the Pods' PodScheduled condition and the scheduler's events."""

from __future__ import annotations

import json
import re
import sys
import time
from datetime import datetime
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from pulumi_kubeflow_trainer import TrainingRuntime, TrainJob
from pulumi_kubeflow_trainer.watch import TrainerClient
from tests.toolchain import TOOLS

from .conftest import Cluster
from .test_trainjob import IMAGE, NAMESPACE, Inline, condition

sys.path.insert(0, str(TOOLS))
try:
    from localcluster import nodes as cluster_nodes
    from localcluster.components.scheduler_plugins import SCHEDULER_NAME
finally:
    sys.path.remove(str(TOOLS))

pytestmark = pytest.mark.cluster
POOL_KEY = "kwok.kubeflow-trainer.test/pool"
GPUS = cluster_nodes.NODE_CAPACITY["nvidia.com/gpu"]  # a Pod asks for a whole node's GPUs


@pytest.fixture(autouse=True)
def _kubeconfig_in_this_process(monkeypatch: pytest.MonkeyPatch, cluster: Cluster) -> None:
    """Inline programs run in the test process, where the SDK reads $KUBECONFIG."""
    monkeypatch.setenv("KUBECONFIG", str(cluster.kubeconfig))


class Pool:
    """kwok nodes of one test, `<pool>-0..`: only the test's Pods select and tolerate them."""

    def __init__(self, cluster: Cluster, name: str) -> None:
        self.cluster, self.name, self.count = cluster, name, 0

    def add(self, count: int = 1) -> None:
        items = []
        for index in range(self.count, self.count + count):
            node = cluster_nodes.node(f"{self.name}-{index}")
            node["metadata"]["labels"][POOL_KEY] = self.name
            node["spec"]["taints"] = [{"key": POOL_KEY, "value": self.name, "effect": "NoSchedule"}]
            items.append(node)
        self.count += count
        self.cluster.kubectl("apply", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
        self.cluster.kubectl("wait", "--for=condition=Ready", "node", "-l", f"{POOL_KEY}={self.name}", "--timeout=60s")

    def delete(self) -> None:
        self.cluster.kubectl("delete", "node", "-l", f"{POOL_KEY}={self.name}", "--wait=true", check=False)


@pytest.fixture
def pool(cluster: Cluster, request: pytest.FixtureRequest):
    made = Pool(cluster, f"gang-{request.node.name.removeprefix('test_')[:20].replace('_', '-').rstrip('-')}")
    try:
        yield made
    finally:
        made.delete()


def gang_runtime(name: str, nodes: int, pool: str, timeout: int) -> dict[str, Any]:
    """A torch runtime of `nodes` nodes with a coscheduling PodGroup; every Pod needs a whole pool node."""
    requests = {"nvidia.com/gpu": GPUS}
    pod_spec = {
        "schedulerName": SCHEDULER_NAME,  # as runtimes/torch-distributed-coscheduling.yaml
        "nodeSelector": {POOL_KEY: pool},
        "tolerations": [{"key": POOL_KEY, "operator": "Equal", "value": pool, "effect": "NoSchedule"}],
        "containers": [{"name": "node", "image": IMAGE, "resources": {"requests": requests, "limits": requests}}],
    }
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainingRuntime",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "mlPolicy": {"numNodes": nodes, "torch": {}},
            "podGroupPolicy": {"coscheduling": {"scheduleTimeoutSeconds": timeout}},
            "template": {"spec": {"replicatedJobs": [{
                "name": "node",
                "template": {
                    "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                    "spec": {"backoffLimit": 0, "template": {"spec": pod_spec}},
                },
            }]}},
        },
    }


def gang_stack(name: str, nodes: int, pool: Pool, timeout: int, cluster: Cluster, env, engine_bin, tmp_path) -> Inline:
    runtime_manifest = gang_runtime(f"{name}-rt", nodes, pool.name, timeout)

    def build(provider: k8s.Provider, _settings: dict[str, Any]) -> TrainJob:
        options = pulumi.ResourceOptions(provider=provider)
        runtime = TrainingRuntime(runtime_manifest["metadata"]["name"], runtime_manifest, opts=options)
        return TrainJob(name, {"metadata": {"name": name, "namespace": NAMESPACE}}, runtime=runtime,
                        trainer={"image": IMAGE, "command": ["python", "train.py"]}, opts=options)

    return Inline(name, build, env, engine_bin, cluster, tmp_path)


def pods_of(cluster: Cluster, name: str) -> list[dict[str, Any]]:
    return cluster.list("pods", selector=f"jobset.sigs.k8s.io/jobset-name={name}")


def bound(pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [pod for pod in pods if pod["spec"].get("nodeName")]


def scheduled_condition(pod: dict[str, Any]) -> dict[str, Any] | None:
    return next((c for c in (pod.get("status") or {}).get("conditions") or [] if c["type"] == "PodScheduled"), None)


def all_refused(cluster: Cluster, name: str, count: int) -> list[dict[str, Any]] | None:
    """The `count` Pods once each has been tried and refused (PodScheduled False, Unschedulable)."""
    pods = pods_of(cluster, name)
    refused = [pod for pod in pods if (scheduled_condition(pod) or {}).get("reason") == "Unschedulable"]
    return pods if len(pods) == count and len(refused) == count else None


def scheduler_events(cluster: Cluster, name: str) -> list[dict[str, Any]]:
    """The events the coscheduling scheduler reported about the TrainJob's Pods."""
    return [event for event in cluster.list("events")
            if event["involvedObject"].get("kind") == "Pod" and event["involvedObject"]["name"].startswith(f"{name}-")
            and SCHEDULER_NAME in (event.get("reportingComponent"), (event.get("source") or {}).get("component"))]


def stays_unbound(cluster: Cluster, name: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert bound(pods_of(cluster, name)) == [], f"a Pod of the gang was bound alone\n{cluster.diagnostics()}"
        time.sleep(1)


def bound_together(cluster: Cluster, name: str, count: int, after: float) -> list[dict[str, Any]]:
    """All `count` Pods bound, each after `after` (epoch seconds), within 2 s of one another."""
    # Under a minute even when no Pod is requeued by the new node (see UNSCHEDULABLE_RETRY).
    pods = cluster.wait(f"all {count} Pods of {name} bound",
                        lambda: (lambda pods: pods if len(bound(pods)) == count else None)(pods_of(cluster, name)),
                        timeout=120)
    times = [datetime.fromisoformat(scheduled_condition(pod)["lastTransitionTime"].replace("Z", "+00:00")).timestamp()
             for pod in pods]
    assert min(times) >= int(after), f"no Pod was bound before the capacity existed: {times} vs {after}"
    assert max(times) - min(times) <= 2, f"the gang is bound in one go: {sorted(times)}"
    assert {pod["spec"]["schedulerName"] for pod in pods} == {SCHEDULER_NAME}
    assert {pod["spec"]["nodeName"].rsplit("-", 1)[0] for pod in pods} == {name_of_pool(pods)}
    assert len({pod["spec"]["nodeName"] for pod in pods}) == count, "one Pod per pool node"
    return pods


def name_of_pool(pods: list[dict[str, Any]]) -> str:
    return pods[0]["spec"]["nodeSelector"][POOL_KEY]


def timeouts(cluster: Cluster, name: str) -> list[str]:
    """How long the Pods waited at Permit before they were rejected, as the scheduler's events say."""
    return [wait for event in scheduler_events(cluster, name)
            for wait in re.findall(r"rejected due to timeout after waiting (\S+) at plugin Coscheduling", event["message"])]


def test_an_unsatisfiable_pod_group_binds_no_pod_and_says_why(cluster: Cluster, cluster_env, engine_bin, tmp_path, pool):
    name = "it-gang-short"
    pool.add(3)  # 3 nodes' worth of capacity for a gang of 4
    stack = gang_stack(name, 4, pool, 60, cluster, cluster_env, engine_bin, tmp_path)
    stack.up()

    pod_group = cluster.get("podgroups.scheduling.x-k8s.io", name)
    assert pod_group["spec"]["minMember"] == 4 and pod_group["spec"]["minResources"]["nvidia.com/gpu"] == str(4 * int(GPUS))
    pods = cluster.wait("the scheduler to refuse every Pod of the gang", lambda: all_refused(cluster, name, 4))
    assert {pod["spec"]["schedulerName"] for pod in pods} == {SCHEDULER_NAME}
    stays_unbound(cluster, name, 15)  # several scheduling attempts of the whole group

    # Why, where kubectl shows it: the Pod that finds no node says so, and that its PodGroup is rejected;
    # the others were waiting at Permit for it and are rejected with the group.
    messages = [scheduled_condition(pod)["message"] for pod in pods_of(cluster, name)]
    events = [event["message"] for event in scheduler_events(cluster, name)]
    assert all(event["reason"] == "FailedScheduling" for event in scheduler_events(cluster, name))
    text = "\n".join(messages + events)
    assert "Insufficient nvidia.com/gpu" in text, text
    assert f"PodGroup {NAMESPACE}/{name} gets rejected due to Pod" in text, text
    assert "optimistic rejection in PostFilter" in text, text
    assert condition(stack.outputs()["conditions"], "Complete") is None
    # `trainjob get` names it (watch/hints.py): one hint for the gang, with the PodGroup and the scheduler's message.
    hints = TrainerClient(kubeconfig=str(cluster.kubeconfig)).get_job(name).hints
    assert len(hints) == 1 and hints[0].startswith(f"GangUnschedulable: PodGroup {name}: needs all 4 Pods at once"), hints
    assert "Insufficient nvidia.com/gpu" in hints[0] and f"PodGroup {NAMESPACE}/{name} gets rejected due to Pod" in hints[0], hints

    stack.destroy_and_check(cluster, name)


def test_added_capacity_binds_the_whole_gang_at_once(cluster: Cluster, cluster_env, engine_bin, tmp_path, pool):
    name = "it-gang-grow"
    pool.add(3)
    stack = gang_stack(name, 4, pool, 60, cluster, cluster_env, engine_bin, tmp_path)
    stack.up()
    cluster.wait("the scheduler to refuse every Pod of the gang", lambda: all_refused(cluster, name, 4))
    assert bound(pods_of(cluster, name)) == []

    added = time.time()
    pool.add(1)  # the fourth node: now the PodGroup fits
    bound_together(cluster, name, 4, added)
    cluster.wait(f"JobSet {name} to complete", lambda: cluster.jobset_condition(name, "Completed"), timeout=120)

    stack.destroy_and_check(cluster, name)


def test_schedule_timeout_seconds_bounds_the_wait_at_permit(cluster: Cluster, cluster_env, engine_bin, tmp_path, pool):
    """scheduleTimeoutSeconds: "the maximal time of members/tasks to wait before run the pod group"
    (the PodGroup API); Pods that passed Permit wait that long for the rest of their group, then the
    whole group is rejected (KEP 42, Permit). A gang of 10 on 9 nodes: the Pod left over is 10% of
    minMember, not more than podGroupRejectPercentage (10, the default), so PostFilter does not
    reject the 9 at once, and they wait at Permit until the timeout (5 s, not the plugin's 60 s).
    (PostFilter does reject partial groups at times: while the Job controller is still creating the
    Pods, and while a rejected group's Pods are being unreserved but still occupy their nodes.)

    No node is added afterwards: the test above covers added capacity."""
    name, timeout = "it-gang-timeout", 5
    pool.add(9)
    stack = gang_stack(name, 10, pool, timeout, cluster, cluster_env, engine_bin, tmp_path)
    stack.up()

    cluster.wait("the waiting Pods' timeout", lambda: timeouts(cluster, name), timeout=90)
    assert bound(pods_of(cluster, name)) == [], "the Pods that waited were not bound"
    stays_unbound(cluster, name, 2 * timeout)
    assert set(timeouts(cluster, name)) == {f"{timeout}s"}, "the PodGroup's timeout, not permitWaitingTimeSeconds (60 s)"

    stack.destroy_and_check(cluster, name)
