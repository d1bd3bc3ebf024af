"""Pulumi and Kueue share the JobSet (issue 13): queued TrainJobs against the real Kueue v0.17.0 of the
local cluster (tools/localcluster/components/kueue.py), deployed by the real Pulumi engine.

The queues are this module's (Kueue's part of `tools/cluster up` creates none): a ResourceFlavor
whose nodeLabels and tolerations name a pool of test-made kwok nodes (label and NoSchedule taint
POOL_KEY=kueue), a ClusterQueue with 4 CPUs of that flavor, a LocalQueue in `default` and a
WorkloadPriorityClass. The runtime's Pods select and tolerate nothing: they reach the pool only
through what Kueue injects on admission. Each TrainJob asks for exactly the whole quota (2 nodes x
2 CPUs), so a second one waits for the first. The pool has no node at first: the first TrainJob is
admitted and started, and its Pods wait for a node, holding the quota while the second is checked.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from pulumi_kubeflow_trainer import TrainingRuntime, TrainJob
from tests.toolchain import TOOLS

from .conftest import Cluster
from .test_trainjob import IMAGE, KWOK_RUNTIME, NAMESPACE, Inline, condition

sys.path.insert(0, str(TOOLS))
try:
    from localcluster import nodes as cluster_nodes
finally:
    sys.path.remove(str(TOOLS))

pytestmark = pytest.mark.cluster
POOL_KEY = "kwok.kubeflow-trainer.test/pool"
POOL = "kueue"
FLAVOR, CLUSTER_QUEUE, LOCAL_QUEUE, PRIORITY = "it-kwok-pool", "it-cq", "it-lq", "it-high"
JOBSET = "jobsets.jobset.x-k8s.io"
WORKLOAD = "workloads.v1beta2.kueue.x-k8s.io"
TOLERATION = {"key": POOL_KEY, "operator": "Equal", "value": POOL, "effect": "NoSchedule"}
QUEUES: list[dict[str, Any]] = [
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": FLAVOR},
     "spec": {"nodeLabels": {POOL_KEY: POOL}, "tolerations": [TOLERATION]}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": CLUSTER_QUEUE},
     "spec": {"namespaceSelector": {}, "resourceGroups": [{
         "coveredResources": ["cpu"],
         "flavors": [{"name": FLAVOR, "resources": [{"name": "cpu", "nominalQuota": "4"}]}]}]}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
     "metadata": {"name": LOCAL_QUEUE, "namespace": NAMESPACE}, "spec": {"clusterQueue": CLUSTER_QUEUE}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": PRIORITY},
     "value": 1000, "description": "cluster tests"},
]


@pytest.fixture(autouse=True)
def _kubeconfig_in_this_process(monkeypatch: pytest.MonkeyPatch, cluster: Cluster) -> None:
    monkeypatch.setenv("KUBECONFIG", str(cluster.kubeconfig))


@pytest.fixture
def queues(cluster: Cluster):
    """The module docstring's queues; the pool's nodes are deleted afterwards."""
    cluster.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": QUEUES}))
    cluster.wait("the ClusterQueue to be active", lambda: kueue_condition(
        cluster.get("clusterqueues.v1beta2.kueue.x-k8s.io", CLUSTER_QUEUE, None), "Active"))
    try:
        yield
    finally:
        cluster.kubectl("delete", "node", "-l", f"{POOL_KEY}={POOL}", "--wait=true", check=False)
        for item in reversed(QUEUES):
            kind = f"{item['kind'].lower()}s.v1beta2.kueue.x-k8s.io"
            namespace = ["-n", NAMESPACE] if item["kind"] == "LocalQueue" else []
            # Bounded: after a failed test a ClusterQueue keeps its finalizer while Workloads are left.
            cluster.kubectl("delete", kind, item["metadata"]["name"], *namespace, "--wait=true", "--timeout=60s", check=False)


def add_pool_node(cluster: Cluster) -> None:
    node = cluster_nodes.node(f"{POOL}-pool-0")
    node["metadata"]["labels"][POOL_KEY] = POOL
    node["spec"]["taints"] = [{"key": POOL_KEY, "value": POOL, "effect": "NoSchedule"}]
    cluster.kubectl("apply", "-f", "-", stdin=json.dumps(node))
    cluster.kubectl("wait", "--for=condition=Ready", "node", node["metadata"]["name"], "--timeout=60s")


def kueue_condition(obj: dict[str, Any] | None, kind: str, status: str = "True") -> dict[str, Any] | None:
    for cond in ((obj or {}).get("status") or {}).get("conditions") or []:
        if cond.get("type") == kind and cond.get("status") == status:
            return cond
    return None


def workload_of(cluster: Cluster, jobset: dict[str, Any]) -> dict[str, Any] | None:
    uid = jobset["metadata"]["uid"]
    found = cluster.list(WORKLOAD, selector=f"kueue.x-k8s.io/job-uid={uid}")
    return found[0] if found else None


def pod_specs(jobset: dict[str, Any]) -> list[dict[str, Any]]:
    return [job["template"]["spec"]["template"]["spec"] for job in jobset["spec"]["replicatedJobs"]]


def owners(jobset: dict[str, Any]) -> dict[str, set[str]]:
    """Field manager -> the fields Kueue changes that it owns (suspend, nodeSelector keys, tolerations)."""
    owned: dict[str, set[str]] = {}
    for entry in jobset["metadata"].get("managedFields") or []:
        text = json.dumps(entry.get("fieldsV1") or {})
        fields = {field for field in ("f:suspend", f"f:{POOL_KEY}", "f:tolerations") if f'"{field}"' in text}
        if fields:
            owned.setdefault(f"{entry['manager']} ({entry['operation']})", set()).update(fields)
    return owned


def queued_stack(name: str, cluster: Cluster, env, engine_bin, tmp_path, **settings: Any) -> Inline:
    def build(provider: k8s.Provider, s: dict[str, Any]) -> TrainJob:
        options = pulumi.ResourceOptions(provider=provider)
        runtime = TrainingRuntime(f"{name}-rt", {**KWOK_RUNTIME, "metadata": {**KWOK_RUNTIME["metadata"], "name": f"{name}-rt"}},
                                  opts=options)
        labels = {"kueue.x-k8s.io/priority-class": PRIORITY} if s.get("priority") else {}
        return TrainJob(name, {"metadata": {"name": name, "namespace": NAMESPACE, "labels": labels}}, runtime=runtime,
                        trainer={"image": IMAGE, "command": ["python", "train.py"],
                                 "resourcesPerNode": {"requests": {"cpu": "2"}}},
                        queue_name=LOCAL_QUEUE, suspend=s.get("suspend"), wait_for=s.get("wait_for", "none"),
                        wait_timeout_seconds=240, opts=options)

    (tmp_path / name).mkdir()
    return Inline(name, build, env, engine_bin, cluster, tmp_path / name, **settings)


def no_changes(stack: Inline) -> dict[str, int]:
    """The preview's change summary; only `same` steps when nothing would change."""
    result = stack.stack.preview(on_output=stack.out, color="never")
    return {op: count for op, count in (result.change_summary or {}).items() if op != "same" and count}


def admitted(cluster: Cluster, name: str) -> dict[str, Any] | None:
    """The live JobSet once Kueue admitted its Workload and unsuspended it."""
    jobset = cluster.get(JOBSET, name)
    if not jobset or jobset["spec"].get("suspend"):
        return None
    workload = workload_of(cluster, jobset)
    return jobset if kueue_condition(workload, "Admitted") else None


def destroy_queued(stack: Inline, cluster: Cluster, name: str) -> None:
    """destroy_and_check, and the JobSet's Workload gone too (Kueue's; deleted with the JobSet, so
    it may outlive the patch of its `spec.active` by a moment)."""
    uid = cluster.get(JOBSET, name)["metadata"]["uid"]
    objects = [obj for obj in stack.kubernetes_objects() if obj["kind"] != "Workload"]
    stack.stack.destroy(on_output=stack.out, color="never")
    for obj in objects:
        group, _, version = obj["apiVersion"].rpartition("/")
        kind = f"{obj['kind'].lower()}.{version}.{group}" if group else obj["kind"].lower()
        assert cluster.get(kind, obj["metadata"]["name"], obj["metadata"].get("namespace")) is None, f"destroy removes {obj}"
    selector = f"jobset.sigs.k8s.io/jobset-name={name}"
    cluster.wait("the Jobs, Pods and the Workload to be deleted", lambda: not cluster.list("jobs", selector=selector) and not
                 cluster.list("pods", selector=selector) and not cluster.list(WORKLOAD, selector=f"kueue.x-k8s.io/job-uid={uid}"))
    stack.stack.workspace.remove_stack(stack.stack.name)


def test_queued_trainjobs_wait_for_quota_and_pulumi_keeps_kueues_changes(
        cluster: Cluster, cluster_env, engine_bin, tmp_path, queues):
    first = queued_stack("kq-first", cluster, cluster_env, engine_bin, tmp_path, priority=True)
    first.up()

    # Admitted: Kueue unsuspended the JobSet and injected the flavor's node labels and tolerations.
    live = cluster.wait("the first TrainJob to be admitted", lambda: admitted(cluster, "kq-first"))
    workload = workload_of(cluster, live)
    assert workload["spec"]["queueName"] == LOCAL_QUEUE
    assert workload["spec"].get("priorityClassRef", {}).get("name", workload["spec"].get("priorityClassName")) == PRIORITY, workload["spec"]
    assert workload["spec"]["priority"] == 1000, "the priority-class label reached Kueue"
    flavors = workload["status"]["admission"]["podSetAssignments"][0]["flavors"]
    assert flavors == {"cpu": FLAVOR}, workload["status"]["admission"]
    for spec in pod_specs(live):
        assert spec["nodeSelector"] == {POOL_KEY: POOL}
        assert TOLERATION in spec["tolerations"]
    before = owners(live)
    assert not any(manager.startswith("pulumi-kubernetes") for manager in before), (
        f"Pulumi owns none of the fields Kueue changes: {before}")

    # Pulumi neither shows nor makes a change: the JobSet is not even written (same resourceVersion).
    assert no_changes(first) == {}, "a preview after admission shows no changes"
    first.up()
    after = cluster.get(JOBSET, "kq-first")
    assert after["metadata"]["resourceVersion"] == live["metadata"]["resourceVersion"], "the second up wrote nothing"
    assert after["spec"].get("suspend") is False and pod_specs(after) == pod_specs(live)
    assert owners(after) == before

    # The second one exceeds what is left of the quota: it stays suspended, its Workload pending.
    second = queued_stack("kq-second", cluster, cluster_env, engine_bin, tmp_path)
    second.up()
    waiting = cluster.wait("the second Workload to be pending", lambda: kueue_condition(
        workload_of(cluster, cluster.get(JOBSET, "kq-second")), "QuotaReserved", "False"))
    assert "insufficient unused quota" in waiting["message"] or "insufficient quota" in waiting["message"], waiting
    # Checked after the preview, not after a fixed sleep: Kueue has decided (QuotaReserved False), and the
    # JobSet is still suspended, with no Pods, once a whole engine run later.
    assert no_changes(second) == {}, "a preview of the waiting TrainJob shows no changes either"
    jobset = cluster.get(JOBSET, "kq-second")
    assert jobset["spec"]["suspend"] is True, "a queued JobSet stays suspended until admitted"
    assert cluster.list("pods", selector="jobset.sigs.k8s.io/jobset-name=kq-second") == []

    # Capacity for the first: it runs to Complete, frees the quota, and the second starts and completes.
    add_pool_node(cluster)
    cluster.wait("the first JobSet to complete", lambda: cluster.jobset_condition("kq-first", "Completed"), timeout=180)
    cluster.wait("the second TrainJob to be admitted", lambda: admitted(cluster, "kq-second"), timeout=120)
    cluster.wait("the second JobSet to complete", lambda: cluster.jobset_condition("kq-second", "Completed"), timeout=180)
    pods = cluster.list("pods", selector="jobset.sigs.k8s.io/jobset-name=kq-second")
    assert pods and {pod["spec"]["nodeName"] for pod in pods} == {f"{POOL}-pool-0"}, "on the flavor's nodes only"
    assert no_changes(second) == {} and no_changes(first) == {}

    # After a refresh (the state now holds Kueue's fields too), an up still writes nothing.
    first.stack.refresh(on_output=first.out, color="never")
    version = cluster.get(JOBSET, "kq-first")["metadata"]["resourceVersion"]
    first.up()
    assert cluster.get(JOBSET, "kq-first")["metadata"]["resourceVersion"] == version
    assert condition(first.outputs()["conditions"], "Complete") is not None
    destroy_queued(second, cluster, "kq-second")
    destroy_queued(first, cluster, "kq-first")


def test_user_suspend_and_resume_go_through_kueue(cluster: Cluster, cluster_env, engine_bin, tmp_path, queues):
    name = "kq-suspend"
    stack = queued_stack(name, cluster, cluster_env, engine_bin, tmp_path, suspend=False)
    stack.up()
    running = cluster.wait("the TrainJob to be admitted", lambda: admitted(cluster, name))
    uid = running["metadata"]["uid"]
    assert workload_of(cluster, running)["spec"]["active"] is True

    # suspend: Kueue deactivates the Workload, evicts it and suspends the JobSet (its Pods go).
    stack.settings["suspend"] = True
    stack.up()
    workload = cluster.wait("the Workload to be evicted as deactivated", lambda: (lambda wl: wl if kueue_condition(
        wl, "Evicted") else None)(workload_of(cluster, running)))
    assert workload["spec"]["active"] is False
    assert kueue_condition(workload, "Evicted")["reason"] in ("Deactivated", "InactiveWorkload"), workload["status"]
    suspended = cluster.wait("the JobSet to be suspended", lambda: (lambda js: js if js["spec"].get("suspend") else None)(
        cluster.get(JOBSET, name)))
    assert suspended["metadata"]["uid"] == uid, "the same JobSet, suspended in place"
    assert all(POOL_KEY not in (spec.get("nodeSelector") or {}) for spec in pod_specs(suspended)), "Kueue restored the templates"
    cluster.wait("the Pods to go", lambda: not cluster.list("pods", selector=f"jobset.sigs.k8s.io/jobset-name={name}"))
    assert no_changes(stack) == {}
    assert cluster.get(JOBSET, name)["spec"]["suspend"] is True, "stays suspended (a preview later): Kueue does not readmit it"

    # resume: active again, queued, admitted, unsuspended by Kueue; with a node it runs to Complete.
    stack.settings["suspend"] = False
    stack.up()
    resumed = cluster.wait("the resumed TrainJob to be admitted", lambda: admitted(cluster, name))
    assert resumed["metadata"]["uid"] == uid
    add_pool_node(cluster)
    cluster.wait("the resumed JobSet to complete", lambda: cluster.jobset_condition(name, "Completed"), timeout=180)
    assert no_changes(stack) == {}
    destroy_queued(stack, cluster, name)


def test_wait_for_completed_waits_through_the_queue(cluster: Cluster, cluster_env, engine_bin, tmp_path, queues):
    holder = queued_stack("kq-holder", cluster, cluster_env, engine_bin, tmp_path)
    holder.up()
    cluster.wait("the first TrainJob to be admitted (its Pods wait for a pool node)", lambda: admitted(cluster, "kq-holder"))

    waiter = queued_stack("kq-waiter", cluster, cluster_env, engine_bin, tmp_path, wait_for="completed")
    done: dict[str, Any] = {}

    def up_and_wait() -> None:
        try:
            done["result"] = waiter.up()
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            done["error"] = error

    thread = threading.Thread(target=up_and_wait)
    thread.start()
    cluster.wait("the waiting Workload to be pending", lambda: (lambda js: js and kueue_condition(
        workload_of(cluster, js), "QuotaReserved", "False"))(cluster.get(JOBSET, "kq-waiter")))
    thread.join(timeout=5)
    assert thread.is_alive(), f"`pulumi up` still waits while the TrainJob is queued: {done}"

    add_pool_node(cluster)
    thread.join(timeout=240)
    assert not thread.is_alive() and "error" not in done, done.get("error")
    assert cluster.jobset_condition("kq-holder", "Completed") and cluster.jobset_condition("kq-waiter", "Completed")
    assert condition(waiter.outputs()["conditions"], "Complete") is not None
    destroy_queued(waiter, cluster, "kq-waiter")
    destroy_queued(holder, cluster, "kq-holder")


def test_a_trainjob_created_suspended_waits_deactivated(cluster: Cluster, cluster_env, engine_bin, tmp_path, queues):
    name = "kq-created-suspended"
    stack = queued_stack(name, cluster, cluster_env, engine_bin, tmp_path, suspend=True)
    stack.up()  # the Workload patch is applied right after the JobSet exists: Kueue has made the Workload by then
    jobset = cluster.get(JOBSET, name)
    workload = cluster.wait("the Workload", lambda: workload_of(cluster, jobset))
    assert workload["spec"]["active"] is False
    assert no_changes(stack) == {}
    assert cluster.get(JOBSET, name)["spec"]["suspend"] is True, "it stays suspended (a preview later)"
    assert not kueue_condition(workload_of(cluster, jobset), "Admitted")

    stack.settings["suspend"] = False
    stack.up()
    cluster.wait("the resumed TrainJob to be admitted", lambda: admitted(cluster, name))
    add_pool_node(cluster)
    cluster.wait("the JobSet to complete", lambda: cluster.jobset_condition(name, "Completed"), timeout=180)
    destroy_queued(stack, cluster, name)
