"""A runtime edit under a running TrainJob, on the local cluster: the running TrainJob's JobSet and Pods
are left as they are (same uid, same generation, still running its old image), while a TrainJob added
in the same update runs the new runtime; a second preview is empty."""

from __future__ import annotations

import copy
from typing import Any

import pulumi
import pytest

from pulumi_kubeflow_trainer import TrainerArgs, TrainingRuntime, TrainJob
from tests.engine.inline import InlineStack

from .conftest import Cluster
from .test_trainjob import KWOK_RUNTIME, NAMESPACE

pytestmark = pytest.mark.cluster
IMAGE_V1, IMAGE_V2 = "registry.local/train:1", "registry.local/train:2"


def runtime_with(image: str) -> dict[str, Any]:
    runtime = copy.deepcopy(KWOK_RUNTIME)
    runtime["metadata"]["name"] = "kwok-lifecycle"
    pod = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod["containers"][0]["image"] = image
    return runtime


def program(opts: pulumi.ResourceOptions, settings: dict[str, Any]) -> None:
    runtime = TrainingRuntime("kwok-lifecycle", runtime_with(settings["image"]), opts=opts)
    # KWOK_KEEP_RUNNING: kwok keeps this TrainJob's Pods running (tools/localcluster/files/kwok.yaml).
    TrainJob("running", runtime=runtime, namespace=NAMESPACE, trainer=TrainerArgs(env={"KWOK_KEEP_RUNNING": "1"}), opts=opts)
    if settings.get("added"):
        TrainJob("added", runtime=runtime, namespace=NAMESPACE, opts=opts)


def pods_of(cluster: Cluster, jobset: str) -> list[dict[str, Any]]:
    return cluster.list("pods", NAMESPACE, selector=f"jobset.sigs.k8s.io/jobset-name={jobset}")


def test_a_runtime_edit_leaves_a_running_trainjob_alone_and_reaches_a_new_one(cluster: Cluster, cluster_env, engine_bin, tmp_path):
    stack = InlineStack("lifecycle", program, cluster_env, engine_bin, tmp_path, kubeconfig=cluster.kubeconfig)
    stack.settings["image"] = IMAGE_V1
    try:
        stack.up()
        running = cluster.wait("the running TrainJob's two Pods to run", lambda: [
            pod for pod in pods_of(cluster, "running") if pod["status"].get("phase") == "Running"] or None)
        assert len(running) == 2
        before = cluster.get("jobsets.jobset.x-k8s.io", "running", NAMESPACE)

        stack.settings.update(image=IMAGE_V2, added=True)
        steps, printed = stack.steps("preview")
        changed = {name: op for name, op in steps.items() if op != "same"}
        texts = {name: op for name, op in changed.items() if name.startswith("trainingruntime-default-kwok-lifecycle-")}
        assert list(texts.values()) == ["create"], "the new revision's text is kept once, for the TrainJobs that use it"
        assert {name: op for name, op in changed.items() if name not in texts} == {
            "added": "create", "added-runtime": "create", "added-jobset": "create", "added-jobset-render": "create"}
        assert "TrainingRuntime default/kwok-lifecycle is at revision" in printed and "(running)" in printed
        stack.up()

        after = cluster.get("jobsets.jobset.x-k8s.io", "running", NAMESPACE)
        assert after["metadata"]["uid"] == before["metadata"]["uid"], "not replaced"
        assert after["metadata"]["generation"] == before["metadata"]["generation"], "not updated"
        assert {pod["metadata"]["uid"] for pod in pods_of(cluster, "running")} == {pod["metadata"]["uid"] for pod in running}
        assert all(pod["status"]["phase"] == "Running" for pod in pods_of(cluster, "running")), "still running"
        assert all(pod["spec"]["containers"][0]["image"] == IMAGE_V1 for pod in pods_of(cluster, "running"))
        cluster.wait("the added TrainJob to complete", lambda: cluster.jobset_condition("added", "Completed", NAMESPACE))
        assert {pod["spec"]["containers"][0]["image"] for pod in pods_of(cluster, "added")} == {IMAGE_V2}

        steps, _ = stack.steps("preview")
        assert {name: op for name, op in steps.items() if op != "same"} == {}, "a second preview is empty"
    finally:
        stack.destroy()
