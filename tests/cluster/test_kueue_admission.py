"""The `admission` output and wait_for="completed" through the queue (issue 13 part 4), against the
real Kueue v0.17.0 of the local cluster, with test_kueue.py's queues (a flavor naming a pool of
test-made kwok nodes, a ClusterQueue of 4 CPUs, a LocalQueue) and, for preemption, a ClusterQueue
of this module's that preempts lower priorities. Each TrainJob asks for the whole quota (2 x 2
CPUs); the pool has no node, so an admitted TrainJob holds the quota while its Pods wait.

The test process's $KUBECONFIG names no file: what the program reads of the cluster (the Workload
for `admission`, the timeout's message) goes through the kubernetes provider's own `kubeconfig`.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi.automation as auto
import pulumi_kubernetes as k8s
import pytest

from pulumi_kubeflow_trainer import TrainingRuntime, TrainJob

from .conftest import Cluster
from .test_kueue import (  # noqa: F401 - `queues` is a fixture
    CLUSTER_QUEUE,
    FLAVOR,
    JOBSET,
    LOCAL_QUEUE,
    PRIORITY,
    destroy_queued,
    kueue_condition,
    no_changes,
    queues,
    workload_of,
)
from .test_trainjob import IMAGE, KWOK_RUNTIME, NAMESPACE, Inline

pytestmark = pytest.mark.cluster
PREEMPTING_QUEUE, PREEMPTING_LOCAL_QUEUE, LOW = "it-cq-preempting", "it-lq-preempting", "it-low"
PREEMPTING: list[dict[str, Any]] = [
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": PREEMPTING_QUEUE},
     "spec": {"namespaceSelector": {}, "preemption": {"withinClusterQueue": "LowerPriority"}, "resourceGroups": [{
         "coveredResources": ["cpu"],
         "flavors": [{"name": FLAVOR, "resources": [{"name": "cpu", "nominalQuota": "4"}]}]}]}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
     "metadata": {"name": PREEMPTING_LOCAL_QUEUE, "namespace": NAMESPACE}, "spec": {"clusterQueue": PREEMPTING_QUEUE}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": LOW},
     "value": 10, "description": "cluster tests"},
]


@pytest.fixture(autouse=True)
def _no_kubeconfig_in_this_process(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "no-such-kubeconfig"))


@pytest.fixture
def preempting(cluster: Cluster, queues):  # noqa: F811 - the fixture imported above
    cluster.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": PREEMPTING}))
    cluster.wait("the preempting ClusterQueue to be active", lambda: kueue_condition(
        cluster.get("clusterqueues.v1beta2.kueue.x-k8s.io", PREEMPTING_QUEUE, None), "Active"))
    try:
        yield
    finally:
        for item in reversed(PREEMPTING):
            kind = f"{item['kind'].lower()}s.v1beta2.kueue.x-k8s.io"
            namespace = ["-n", NAMESPACE] if item["kind"] == "LocalQueue" else []
            cluster.kubectl("delete", kind, item["metadata"]["name"], *namespace, "--wait=true", "--timeout=60s", check=False)


def admission_stack(name: str, cluster: Cluster, env, engine_bin, tmp_path, **settings: Any) -> Inline:
    """A queued TrainJob (settings: queue, priority, suspend, wait_for, timeout) that exports `admission`."""
    def build(provider: k8s.Provider, s: dict[str, Any]) -> TrainJob:
        options = pulumi.ResourceOptions(provider=provider)
        runtime = TrainingRuntime(f"{name}-rt", {**KWOK_RUNTIME, "metadata": {**KWOK_RUNTIME["metadata"], "name": f"{name}-rt"}},
                                  opts=options)
        labels = {"kueue.x-k8s.io/priority-class": s["priority"]} if s.get("priority") else {}
        job = TrainJob(name, {"metadata": {"name": name, "namespace": NAMESPACE, "labels": labels}}, runtime=runtime,
                       trainer={"image": IMAGE, "command": ["python", "train.py"], "resourcesPerNode": {"requests": {"cpu": "2"}}},
                       queue_name=s.get("queue", LOCAL_QUEUE), suspend=s.get("suspend"), wait_for=s.get("wait_for", "none"),
                       wait_timeout_seconds=s.get("timeout", 240), opts=options)
        pulumi.export("admission", job.admission)
        return job

    (tmp_path / name).mkdir()
    return Inline(name, build, env, engine_bin, cluster, tmp_path / name, **settings)


def admission_after_up(stack: Inline) -> dict[str, Any]:
    """`admission` as an `up` with nothing to change reads it again."""
    stack.up()
    return stack.outputs()["admission"]


def workload_state(cluster: Cluster, name: str, kind: str, status: str = "True") -> dict[str, Any] | None:
    jobset = cluster.get(JOBSET, name)
    return kueue_condition(workload_of(cluster, jobset), kind, status) if jobset else None


def test_admission_says_admitted_with_flavor_pending_with_kueues_reason_and_the_wait_times_out_queued(
        cluster: Cluster, cluster_env, engine_bin, tmp_path, queues):  # noqa: F811
    holder = admission_stack("ka-holder", cluster, cluster_env, engine_bin, tmp_path, priority=PRIORITY)
    holder.up()
    cluster.wait("the holder to be admitted", lambda: workload_state(cluster, "ka-holder", "Admitted"))
    admitted = admission_after_up(holder)
    assert admitted["state"] == "admitted", admitted
    assert admitted["clusterQueue"] == CLUSTER_QUEUE and admitted["queue"] == LOCAL_QUEUE
    assert admitted["flavors"] == {"node": {"cpu": FLAVOR}} and admitted["priority"] == 1000, admitted
    assert admitted["workload"] == workload_of(cluster, cluster.get(JOBSET, "ka-holder"))["metadata"]["name"]

    second = admission_stack("ka-second", cluster, cluster_env, engine_bin, tmp_path)
    second.up()
    cluster.wait("the second Workload to be pending", lambda: workload_state(cluster, "ka-second", "QuotaReserved", "False"))
    pending = admission_after_up(second)
    assert pending["state"] == "pending" and pending["clusterQueue"] == CLUSTER_QUEUE and pending["flavors"] == {}, pending
    assert "insufficient" in pending["message"] and pending["reason"] == "Pending", pending
    assert no_changes(second) == {} and no_changes(holder) == {}, "a second preview shows no changes"

    # wait_for="completed" while the quota is held: the up that waited fails saying it is still queued.
    waiter = admission_stack("ka-waiter", cluster, cluster_env, engine_bin, tmp_path, wait_for="completed", timeout=20)
    with pytest.raises(auto.CommandError) as raised:
        waiter.up()
    text = str(raised.value)
    assert f"TrainJob ka-waiter: still queued after 20 s: Workload pending in ClusterQueue {CLUSTER_QUEUE}: " in text, text[-3000:]
    assert "insufficient" in text.split("still queued after 20 s", 1)[1], text[-3000:]
    assert cluster.get(JOBSET, "ka-waiter")["spec"]["suspend"] is True
    destroy_queued(waiter, cluster, "ka-waiter")
    destroy_queued(second, cluster, "ka-second")
    destroy_queued(holder, cluster, "ka-holder")


def test_admission_says_preempted_when_a_higher_priority_trainjob_takes_the_quota(
        cluster: Cluster, cluster_env, engine_bin, tmp_path, preempting):
    low = admission_stack("ka-low", cluster, cluster_env, engine_bin, tmp_path, queue=PREEMPTING_LOCAL_QUEUE, priority=LOW)
    low.up()
    cluster.wait("the low-priority TrainJob to be admitted", lambda: workload_state(cluster, "ka-low", "Admitted"))

    high = admission_stack("ka-high", cluster, cluster_env, engine_bin, tmp_path, queue=PREEMPTING_LOCAL_QUEUE, priority=PRIORITY)
    high.up()
    cluster.wait("the high-priority TrainJob to be admitted", lambda: workload_state(cluster, "ka-high", "Admitted"), timeout=120)
    preempted = admission_after_up(low)
    assert preempted["state"] == "preempted" and preempted["reason"] == "InClusterQueue", preempted
    assert preempted["priority"] == 10 and preempted["flavors"] == {}, preempted
    assert cluster.get(JOBSET, "ka-low")["spec"]["suspend"] is True, "Kueue suspended the preempted JobSet"
    assert admission_after_up(high)["state"] == "admitted"
    assert no_changes(low) == {} and no_changes(high) == {}
    destroy_queued(high, cluster, "ka-high")
    destroy_queued(low, cluster, "ka-low")


def test_a_trainjob_created_suspended_is_inactive_and_its_workload_wait_reads_the_provider_s_cluster(
        cluster: Cluster, cluster_env, engine_bin, tmp_path, queues):  # noqa: F811
    stack = admission_stack("ka-inactive", cluster, cluster_env, engine_bin, tmp_path, suspend=True)
    stack.up()  # the Workload patch's hook waits for Kueue's Workload, reading the cluster of the provider
    log = (tmp_path / "ka-inactive" / "pulumi.log").read_text()
    assert "cannot wait for Kueue's Workload" not in log, "the hook reached the cluster without $KUBECONFIG"
    workload = workload_of(cluster, cluster.get(JOBSET, "ka-inactive"))
    assert workload["spec"]["active"] is False
    inactive = admission_after_up(stack)
    assert inactive["state"] == "inactive" and inactive["clusterQueue"] == CLUSTER_QUEUE, inactive
    destroy_queued(stack, cluster, "ka-inactive")
