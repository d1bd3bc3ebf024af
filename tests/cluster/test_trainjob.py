"""`pulumi_kubeflow_trainer.TrainJob` in inline Automation API programs against the local control
plane: outputs that report Complete (wait_for="completed"), a failing Pod that fails the TrainJob
with the JobSet's reason once (later previews and ups pass, the outputs still say Failed), suspend
and resume of the live JobSet, gang-scheduling PodGroups accepted by the API server, and destroy
removing every object.

kwok completes Pods about a second after they run; a Pod fails instead when a container has the
environment variable KWOK_FAIL (tools/cluster's kwok stages)."""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
import pulumi.automation as auto
import pulumi_kubernetes as k8s
import pytest

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainingRuntime, TrainJob
from tests.toolchain import inline_stack

from .conftest import Cluster

pytestmark = pytest.mark.cluster
NAMESPACE = "default"
IMAGE = "busybox:1.37"  # never pulled: kwok runs no containers

# A namespaced runtime for the tests: two torch nodes, no retries (a failed Pod fails the Job at once).
KWOK_RUNTIME: dict[str, Any] = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainingRuntime",
    "metadata": {"name": "kwok-torch", "namespace": NAMESPACE},
    "spec": {
        "mlPolicy": {"numNodes": 2, "torch": {}},
        "template": {"spec": {"replicatedJobs": [{
            "name": "node",
            "template": {
                "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                "spec": {"backoffLimit": 0, "template": {"spec": {"containers": [{"name": "node", "image": IMAGE}]}}},
            },
        }]}},
    },
}


def volcano_runtime() -> dict[str, Any]:
    runtime = copy.deepcopy(KWOK_RUNTIME)
    runtime["metadata"]["name"] = "kwok-torch-volcano"
    runtime["spec"]["podGroupPolicy"] = {"volcano": {}}
    pod_spec = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod_spec["schedulerName"] = "volcano"
    return runtime


class Inline:
    """An inline-program stack on the cluster; `settings` are read by the program on every run."""

    def __init__(self, name: str, build: Callable[[k8s.Provider, dict[str, Any]], TrainJob], env: dict[str, str],
                 engine_bin: Path, cluster: Cluster, tmp_path: Path, **settings: Any) -> None:
        self.settings = settings
        self.log = (tmp_path / "pulumi.log").open("w")

        def program() -> None:
            provider = k8s.Provider("cluster", kubeconfig=str(cluster.kubeconfig))
            job = build(provider, self.settings)
            pulumi.export("conditions", job.conditions)
            pulumi.export("jobs_status", job.jobs_status)
            pulumi.export("jobset_name", job.jobset_name)

        self.stack = inline_stack(name, "cluster-it", program, env, engine_bin)

    def out(self, line: str) -> None:
        self.log.write(line + "\n")
        self.log.flush()

    def up(self) -> auto.UpResult:
        return self.stack.up(on_output=self.out, color="never")

    def outputs(self) -> dict[str, Any]:
        return {key: value.value for key, value in self.stack.outputs().items()}

    def kubernetes_objects(self) -> list[dict[str, Any]]:
        return [
            resource["outputs"]
            for resource in self.stack.export_stack().deployment.get("resources") or []
            if resource["type"].startswith("kubernetes:") and resource.get("custom") and "outputs" in resource
        ]

    def destroy_and_check(self, cluster: Cluster, jobset: str) -> None:
        objects = self.kubernetes_objects()
        self.stack.destroy(on_output=self.out, color="never")
        for obj in objects:
            group, _, version = obj["apiVersion"].rpartition("/")
            kind = f"{obj['kind'].lower()}.{version}.{group}" if group else obj["kind"].lower()
            assert cluster.get(kind, obj["metadata"]["name"], obj["metadata"].get("namespace")) is None, (
                f"destroy removes {obj['kind']} {obj['metadata']['name']}"
            )
        selector = f"jobset.sigs.k8s.io/jobset-name={jobset}"
        cluster.wait("the Jobs and Pods to be garbage-collected",
                     lambda: not cluster.list("jobs", selector=selector) and not cluster.list("pods", selector=selector))
        self.stack.workspace.remove_stack(self.stack.name)


@pytest.fixture(autouse=True)
def _kubeconfig_in_this_process(monkeypatch: pytest.MonkeyPatch, cluster: Cluster) -> None:
    """Inline programs run in the test process, where the SDK reads $KUBECONFIG (restored afterwards,
    so render-mode tests that run later in the session never see it)."""
    monkeypatch.setenv("KUBECONFIG", str(cluster.kubeconfig))


def condition(conditions: list[dict[str, Any]], kind: str) -> dict[str, Any] | None:
    return next((c for c in conditions if c.get("type") == kind and c.get("status") == "True"), None)


def trainjob(name: str, provider: k8s.Provider, settings: dict[str, Any], runtime_manifest: dict[str, Any] | None = None,
             runtime: Any = None) -> TrainJob:
    options = pulumi.ResourceOptions(provider=provider)
    if runtime is None:
        runtime = TrainingRuntime(runtime_manifest["metadata"]["name"], runtime_manifest, opts=options)
    env = [{"name": "KWOK_FAIL", "value": "1"}] if settings.get("fail") else None
    return TrainJob(
        name,
        {"metadata": {"name": name, "namespace": NAMESPACE}},
        runtime=runtime,
        trainer={"image": IMAGE, "command": ["python", "train.py"], **({"env": env} if env else {})},
        suspend=settings.get("suspend"),
        wait_for=settings.get("wait_for", "none"),
        wait_timeout_seconds=240,
        opts=options,
    )


def test_wait_for_completed_reports_complete(cluster: Cluster, cluster_env, engine_bin, tmp_path):
    name = "it-complete"
    stack = Inline(name, lambda provider, s: trainjob(name, provider, s, KWOK_RUNTIME), cluster_env, engine_bin,
                   cluster, tmp_path, wait_for="completed")

    kubeconfig_copies_before = set(Path(tempfile.gettempdir()).glob("kubeconfig*"))
    stack.up()  # returns only once the JobSet has a terminal state

    # The provider copies its kubeconfig to $TMPDIR and never deletes it: the test's own (isolated_engine_env).
    assert list((tmp_path / "tmp").glob("kubeconfig*")), "the provider's kubeconfig copy is in the test's TMPDIR"
    assert set(Path(tempfile.gettempdir()).glob("kubeconfig*")) == kubeconfig_copies_before, "and none in the machine's"
    outputs = stack.outputs()
    complete = condition(outputs["conditions"], "Complete")
    live = cluster.jobset_condition(name, "Completed")
    assert complete is not None, f"the TrainJob reports Complete: {outputs['conditions']}"
    assert live is not None and complete["reason"] == live["reason"], "with the JobSet's reason"
    assert condition(outputs["conditions"], "Failed") is None
    assert outputs["jobset_name"] == name
    assert [job["name"] for job in outputs["jobs_status"]] == ["node"], outputs["jobs_status"]
    pods = cluster.list("pods", selector=f"jobset.sigs.k8s.io/jobset-name={name}")
    assert len(pods) == 2 and {pod["status"]["phase"] for pod in pods} == {"Succeeded"}, "both nodes ran to completion"
    assert all(pod["spec"]["nodeName"].startswith("kwok-node-") for pod in pods)

    stack.destroy_and_check(cluster, name)


def test_a_failing_pod_fails_the_trainjob_with_the_jobset_reason(cluster: Cluster, cluster_env, engine_bin, tmp_path):
    name = "it-fail"
    stack = Inline(name, lambda provider, s: trainjob(name, provider, s, KWOK_RUNTIME), cluster_env, engine_bin,
                   cluster, tmp_path, wait_for="completed", fail=True)

    with pytest.raises(auto.CommandError) as raised:
        stack.up()

    failed = cluster.jobset_condition(name, "Failed")
    assert failed is not None, f"the JobSet failed\n{cluster.diagnostics()}"
    assert cluster.get("jobsets.jobset.x-k8s.io", name)["status"]["terminalState"] == "Failed"
    message = str(raised.value)
    assert f"TrainJob {name} failed: {failed['reason']}" in message, f"`pulumi up` fails with the JobSet's reason: {message[-3000:]}"
    pods = cluster.list("pods", selector=f"jobset.sigs.k8s.io/jobset-name={name}")
    assert "Failed" in {pod["status"]["phase"] for pod in pods}, "kwok failed the Pod marked with KWOK_FAIL"

    # Reported once, by the `up` that waited: the same program then previews and ups clean (the JobSet
    # is read from the state, nothing waits), and the outputs still say Failed.
    stack.stack.preview(on_output=stack.out, color="never")
    stack.up()
    reported = condition(stack.outputs()["conditions"], "Failed")
    assert reported is not None and reported["reason"] == failed["reason"], "the TrainJob still reports Failed"
    stack.stack.preview(on_output=stack.out, color="never")

    # Without waiting, `up` succeeds and the outputs follow the live JobSet after a refresh.
    stack.settings["wait_for"] = "none"
    stack.stack.refresh(on_output=stack.out, color="never")
    stack.up()
    failed_output = condition(stack.outputs()["conditions"], "Failed")
    assert failed_output is not None and failed_output["reason"] == failed["reason"], "the TrainJob reports Failed"
    assert failed_output["message"] == failed["message"]

    stack.destroy_and_check(cluster, name)


def test_suspend_and_resume_update_the_jobset_in_place(cluster: Cluster, cluster_env, engine_bin, tmp_path):
    name = "it-suspend"
    stack = Inline(name, lambda provider, s: trainjob(name, provider, s, KWOK_RUNTIME), cluster_env, engine_bin,
                   cluster, tmp_path, suspend=True)

    stack.up()
    jobset = cluster.get("jobsets.jobset.x-k8s.io", name)
    assert jobset["spec"]["suspend"] is True
    cluster.wait("the JobSet to report Suspended", lambda: cluster.jobset_condition(name, "Suspended"))
    jobs = cluster.wait("the suspended Jobs", lambda: cluster.list("jobs", selector=f"jobset.sigs.k8s.io/jobset-name={name}"))
    assert all(job["spec"].get("suspend") for job in jobs), "the Jobs are created suspended"
    assert cluster.list("pods", selector=f"jobset.sigs.k8s.io/jobset-name={name}") == [], "a suspended JobSet runs no Pods"
    assert condition(stack.outputs()["conditions"], "Suspended") is not None, "the TrainJob reports Suspended"

    stack.settings["suspend"] = False
    steps: list[tuple[str, str]] = []

    def record(event: auto.EngineEvent) -> None:
        if event.resource_pre_event:
            metadata = event.resource_pre_event.metadata
            steps.append((str(getattr(metadata.op, "value", metadata.op)), metadata.urn))

    stack.stack.preview(on_output=stack.out, on_event=record, color="never")
    jobset_ops = {op for op, urn in steps if urn.endswith(f"JobSet::{name}-jobset")}
    assert jobset_ops == {"update"}, f"resume is an in-place update of the JobSet: {steps}"

    stack.up()
    resumed = cluster.get("jobsets.jobset.x-k8s.io", name)
    assert resumed["metadata"]["uid"] == jobset["metadata"]["uid"], "the same JobSet object, not a replacement"
    assert not resumed["spec"].get("suspend")
    cluster.wait(f"JobSet {name} to complete after resume", lambda: cluster.jobset_condition(name, "Completed"), timeout=180)
    pods = cluster.list("pods", selector=f"jobset.sigs.k8s.io/jobset-name={name}")
    assert pods and all(pod["spec"]["nodeName"].startswith("kwok-node-") for pod in pods)

    stack.destroy_and_check(cluster, name)


@pytest.mark.parametrize("gang", ["coscheduling", "volcano"])
def test_gang_scheduling_pod_groups_are_accepted(gang: str, cluster: Cluster, cluster_env, engine_bin, tmp_path):
    name = f"it-gang-{gang}"

    def build(provider: k8s.Provider, settings: dict[str, Any]) -> TrainJob:
        if gang == "coscheduling":
            runtime = ClusterTrainingRuntime.bundled("torch-distributed-coscheduling",
                                                     opts=pulumi.ResourceOptions(provider=provider))
            return trainjob(name, provider, settings, runtime=runtime)
        return trainjob(name, provider, settings, volcano_runtime())

    stack = Inline(name, build, cluster_env, engine_bin, cluster, tmp_path, wait_for="completed")
    stack.up()

    group = "scheduling.x-k8s.io" if gang == "coscheduling" else "scheduling.volcano.sh"
    pod_group = cluster.get(f"podgroups.{group}", name)
    assert pod_group is not None, f"the {gang} PodGroup is in the API server"
    assert pod_group["spec"]["minMember"] == 2
    assert condition(stack.outputs()["conditions"], "Complete") is not None
    pods = cluster.list("pods", selector=f"jobset.sigs.k8s.io/jobset-name={name}")
    scheduler = "scheduler-plugins-scheduler" if gang == "coscheduling" else "volcano"
    assert pods and {pod["spec"]["schedulerName"] for pod in pods} == {scheduler}
    assert all(pod["spec"]["nodeName"].startswith("kwok-node-") for pod in pods)

    stack.destroy_and_check(cluster, name)
