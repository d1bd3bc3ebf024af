"""MultiKueue, live (issue 13): the session cluster is the manager, a second local cluster started here
is the worker, Kueue v0.17.0 runs in both (tools/cluster always starts it).

The manager's ClusterQueue carries a MultiKueue admission check whose MultiKueueConfig names the
worker, reached through its kubeconfig (certificates embedded: Kueue refuses file paths) in a Secret
of kueue-system. A TrainJob deployed to the manager with `managed_by="kueue.x-k8s.io/multikueue"`
renders a JobSet with that `spec.managedBy`: the manager's JobSet controller leaves it alone, the
manager's Kueue admits its Workload and copies the JobSet to the worker, whose Kueue admits it and
whose kwok runs it to Complete; MultiKueue copies the worker's status back onto the manager's JobSet,
which is all the component reads. Nothing in the component knows about the worker.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from pulumi_kubeflow_trainer import TrainingRuntime, TrainJob

from .conftest import Cluster, start_cluster, stop_cluster
from .test_trainjob import IMAGE, KWOK_RUNTIME, NAMESPACE, Inline, condition

pytestmark = pytest.mark.cluster
MULTIKUEUE = "kueue.x-k8s.io/multikueue"
KUEUE = "kueue.x-k8s.io/v1beta2"
JOBSET = "jobsets.jobset.x-k8s.io"
WORKLOAD = "workloads.v1beta2.kueue.x-k8s.io"
WORKER, CONFIG, CHECK = "mk-worker", "mk-config", "mk-check"
FLAVOR, CLUSTER_QUEUE, LOCAL_QUEUE = "mk-flavor", "mk-cq", "mk-lq"


def queues(admission_check: str | None) -> list[dict[str, Any]]:
    """The same queue names on both clusters; the manager's ClusterQueue runs the MultiKueue check."""
    checks = {"admissionChecksStrategy": {"admissionChecks": [{"name": admission_check}]}} if admission_check else {}
    return [
        {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": FLAVOR}},
        {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": CLUSTER_QUEUE},
         "spec": {"namespaceSelector": {}, **checks, "resourceGroups": [{
             "coveredResources": ["cpu"], "flavors": [{"name": FLAVOR, "resources": [{"name": "cpu", "nominalQuota": "8"}]}]}]}},
        {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": LOCAL_QUEUE, "namespace": NAMESPACE},
         "spec": {"clusterQueue": CLUSTER_QUEUE}},
    ]


def multikueue_objects(worker_kubeconfig: str) -> list[dict[str, Any]]:
    secret = f"{WORKER}-kubeconfig"
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kueue-system"}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": secret, "namespace": "kueue-system"},
         "stringData": {"kubeconfig": worker_kubeconfig}},
        {"apiVersion": KUEUE, "kind": "MultiKueueCluster", "metadata": {"name": WORKER},
         "spec": {"clusterSource": {"kubeConfig": {"locationType": "Secret", "location": secret}}}},
        {"apiVersion": KUEUE, "kind": "MultiKueueConfig", "metadata": {"name": CONFIG}, "spec": {"clusters": [WORKER]}},
        {"apiVersion": KUEUE, "kind": "AdmissionCheck", "metadata": {"name": CHECK},
         "spec": {"controllerName": MULTIKUEUE, "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": CONFIG}}},
    ]


def apply(cluster: Cluster, objects: list[dict[str, Any]]) -> None:
    cluster.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))


def delete(cluster: Cluster, objects: list[dict[str, Any]]) -> None:
    for obj in reversed(objects):
        if obj["kind"] == "Namespace":
            continue  # kueue-system may be the cluster's own
        group, _, version = obj["apiVersion"].rpartition("/")
        kind = f"{obj['kind'].lower()}s.{version}.{group}" if group else obj["kind"].lower()
        namespace = ["-n", obj["metadata"]["namespace"]] if "namespace" in obj["metadata"] else []
        cluster.kubectl("delete", kind, obj["metadata"]["name"], *namespace, "--wait=true", "--ignore-not-found", check=False)


def active(cluster: Cluster, kind: str, name: str) -> bool:
    conditions = ((cluster.get(f"{kind}.v1beta2.kueue.x-k8s.io", name, None) or {}).get("status") or {}).get("conditions") or []
    return condition(conditions, "Active") is not None


@pytest.fixture(scope="module")
def worker(cluster_bin: Path, engine_bin: Path, reference: Path, tmp_path_factory: pytest.TempPathFactory):
    worker = start_cluster(tmp_path_factory.mktemp("worker"), cluster_bin, reference)
    try:
        yield worker
    finally:
        stop_cluster(worker)


@pytest.fixture(scope="module")
def wired(cluster: Cluster, worker: Cluster):
    """The worker's queues, then the manager's MultiKueue objects and queues, all Active."""
    embedded = worker.kubectl("config", "view", "--raw", "--flatten", "--minify").stdout
    manager_objects = [*multikueue_objects(embedded), *queues(CHECK)]
    apply(worker, queues(None))
    apply(cluster, manager_objects)
    try:
        worker.wait("the worker's ClusterQueue to be active", lambda: active(worker, "clusterqueues", CLUSTER_QUEUE))
        cluster.wait("the worker to be connected (MultiKueueCluster Active)", lambda: active(cluster, "multikueueclusters", WORKER))
        cluster.wait("the MultiKueue admission check to be active", lambda: active(cluster, "admissionchecks", CHECK))
        cluster.wait("the manager's ClusterQueue to be active", lambda: active(cluster, "clusterqueues", CLUSTER_QUEUE))
        yield
    finally:
        delete(cluster, manager_objects)
        delete(worker, queues(None))


@pytest.fixture(autouse=True)
def _kubeconfig_in_this_process(monkeypatch: pytest.MonkeyPatch, cluster: Cluster) -> None:
    monkeypatch.setenv("KUBECONFIG", str(cluster.kubeconfig))


def dispatched_stack(name: str, cluster: Cluster, env: dict[str, str], engine_bin: Path, tmp_path: Path) -> Inline:
    def build(provider: k8s.Provider, settings: dict[str, Any]) -> TrainJob:
        options = pulumi.ResourceOptions(provider=provider)
        runtime = TrainingRuntime(f"{name}-rt", {**KWOK_RUNTIME, "metadata": {**KWOK_RUNTIME["metadata"], "name": f"{name}-rt"}},
                                  opts=options)
        return TrainJob(name, {"metadata": {"name": name, "namespace": NAMESPACE}}, runtime=runtime,
                        trainer={"image": IMAGE, "command": ["python", "train.py"], "resourcesPerNode": {"requests": {"cpu": "1"}}},
                        queue_name=LOCAL_QUEUE, managed_by=MULTIKUEUE, wait_for="completed", wait_timeout_seconds=240,
                        opts=options)

    return Inline(name, build, env, engine_bin, cluster, tmp_path)


class Watch:
    """The last state of a JobSet a cluster reported while the block ran, through the API server's watch:
    MultiKueue deletes the worker's copy right after it finished, sooner than polling every half
    second may see (it missed the Completed state once under load), while a watch gets every change."""

    def __init__(self, cluster: Cluster, name: str, namespace: str = "default") -> None:
        self.cluster, self.name, self.namespace = cluster, name, namespace
        self.last: dict[str, Any] | None = None
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.follow, daemon=True)

    def follow(self) -> None:
        from kubernetes import client, config, watch

        with config.new_client_from_config(config_file=str(self.cluster.kubeconfig)) as api_client:
            api = client.CustomObjectsApi(api_client)
            version: str | None = None  # each stream goes on from the last change seen: none is missed between two
            while not self.stopped.is_set():
                options = {"resource_version": version} if version else {}
                for event in watch.Watch().stream(api.list_namespaced_custom_object, "jobset.x-k8s.io", "v1alpha2", self.namespace,
                                                  "jobsets", field_selector=f"metadata.name={self.name}", timeout_seconds=2, **options):
                    seen = event["object"]
                    version = seen["metadata"]["resourceVersion"]
                    if event["type"] in ("ADDED", "MODIFIED"):
                        self.last = seen

    def __enter__(self) -> Watch:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join()


def jobset_condition(jobset: dict[str, Any] | None, kind: str) -> dict[str, Any] | None:
    return condition(((jobset or {}).get("status") or {}).get("conditions") or [], kind)


def test_a_trainjob_managed_by_multikueue_runs_on_the_worker_and_reports_complete_on_the_manager(
    cluster: Cluster, worker: Cluster, wired: None, cluster_env: dict[str, str], engine_bin: Path, tmp_path: Path
) -> None:
    name = "mk-job"
    stack = dispatched_stack(name, cluster, cluster_env, engine_bin, tmp_path)
    selector = f"jobset.sigs.k8s.io/jobset-name={name}"
    try:
        with Watch(worker, name) as seen_on_worker:  # MultiKueue deletes the worker's copy once it finished
            stack.up()
        here = cluster.get(JOBSET, name)
        assert condition(stack.outputs()["conditions"], "Complete"), stack.outputs()["conditions"]
        assert here["spec"]["managedBy"] == MULTIKUEUE and jobset_condition(here, "Completed")
        assert not cluster.list("jobs", selector=selector), "the manager's JobSet controller leaves a MultiKueue JobSet alone"
        there = seen_on_worker.last
        assert there is not None and jobset_condition(there, "Completed"), "the worker ran it to Complete"
        assert "managedBy" not in there["spec"], "the worker's copy is its own JobSet controller's"
        assert there["spec"]["replicatedJobs"] == here["spec"]["replicatedJobs"]
        [workload] = cluster.list(WORKLOAD, selector=f"kueue.x-k8s.io/job-uid={here['metadata']['uid']}")
        assert workload["status"]["clusterName"] == WORKER
        preview = stack.stack.preview(on_output=stack.out, color="never")
        assert {op: n for op, n in (preview.change_summary or {}).items() if op != "same" and n} == {}
    finally:
        stack.stack.destroy(on_output=stack.out, color="never")
    assert cluster.get(JOBSET, name) is None
    worker.wait("MultiKueue to delete the worker's copy", lambda: worker.get(JOBSET, name) is None, timeout=120)
