"""Kueue's TrainJob integration with controller mode (issue 14): in the cluster of
`tools/cluster up --trainer-controller`, Kueue v0.17.0 also manages TrainJobs
(tools/localcluster/files/kueue-integrations-trainjob.yaml). A controller-mode TrainJob with
`queue_name` is suspended by Kueue's webhook on create, waits as a Workload while its ClusterQueue
holds (`pulumi up` with wait_for="completed" waiting meanwhile), and once admitted is unsuspended by
Kueue, reconciled by the Trainer controller and runs to Complete, which ends the wait. `spec.suspend` of the TrainJob is Kueue's alone (Pulumi's manifest names none), so a
second `pulumi preview` changes nothing."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pulumi
import pulumi.automation as auto
import pulumi_kubernetes as k8s
import pytest

from pulumi_kubeflow_trainer import TrainerArgs, TrainingRuntime, TrainJob
from tests.toolchain import inline_stack

from .conftest import Cluster
from .test_controller_mode import RUNTIME, outputs, true_condition
from .test_trainjob import IMAGE, NAMESPACE

pytestmark = pytest.mark.cluster
FLAVOR, CLUSTER_QUEUE, LOCAL_QUEUE = "it-ctl-flavor", "it-ctl-cq", "it-ctl-lq"
KUEUE = "kueue.x-k8s.io/v1beta2"
QUEUES: list[dict[str, Any]] = [
    {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": FLAVOR}},
    {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": CLUSTER_QUEUE},
     "spec": {"namespaceSelector": {}, "stopPolicy": "Hold", "resourceGroups": [{
         "coveredResources": ["cpu"], "flavors": [{"name": FLAVOR, "resources": [{"name": "cpu", "nominalQuota": "8"}]}]}]}},
    {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": LOCAL_QUEUE, "namespace": NAMESPACE},
     "spec": {"clusterQueue": CLUSTER_QUEUE}},
]
TRAINJOBS = "trainjobs.trainer.kubeflow.org"
WORKLOADS = "workloads.v1beta2.kueue.x-k8s.io"
NAME = "it-ctl-queued"
SECRET_SIG, SECRET_MARK = "4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270"  # Pulumi's secret value


@pytest.fixture
def held_queue(controller_cluster: Cluster):
    """The queues, the ClusterQueue holding (stopPolicy Hold) until the test lets it admit."""
    cluster = controller_cluster
    cluster.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": QUEUES}))
    try:
        yield
    finally:
        for item in reversed(QUEUES):
            namespace = ["-n", NAMESPACE] if item["kind"] == "LocalQueue" else []
            cluster.kubectl("delete", f"{item['kind'].lower()}s.v1beta2.kueue.x-k8s.io", item["metadata"]["name"],
                            *namespace, "--wait=true", "--timeout=60s", check=False)


def queued_stack(cluster: Cluster, env: dict[str, str], engine_bin: Path) -> auto.Stack:
    def program() -> None:
        opts = pulumi.ResourceOptions(provider=k8s.Provider("cluster", kubeconfig=str(cluster.kubeconfig)))
        runtime_manifest = {**RUNTIME, "metadata": {**RUNTIME["metadata"], "name": "kwok-torch-queued"}}
        runtime = TrainingRuntime("runtime", runtime_manifest, controller="kubeflow", opts=opts)
        job = TrainJob(NAME, runtime=runtime, namespace=NAMESPACE, controller="kubeflow", queue_name=LOCAL_QUEUE,
                       trainer=TrainerArgs(image=IMAGE), wait_for="completed", wait_timeout_seconds=300, opts=opts)
        pulumi.export("drift", job.drift)
        pulumi.export("conditions", job.conditions)

    return inline_stack("queued", "controller-kueue", program, env, engine_bin)


def run_up(stack: auto.Stack, log: Any) -> str:
    try:
        return stack.up(on_output=log.write, color="never").summary.result
    except auto.CommandError as error:
        return f"failed: {str(error)[-2000:]}"


def prediction_cluster(stack: auto.Stack) -> dict[str, dict[str, Any]]:
    """The drift check's `cluster` input and output (the TrainJob provider's kubeconfig settings) as
    the state holds them."""
    resources = stack.export_stack().deployment["resources"]
    check = next(r for r in resources if r["urn"].endswith(f"::{NAME}-prediction"))
    return {"inputs": check["inputs"]["cluster"], "outputs": check["outputs"]["cluster"]}


def suspend_owners(trainjob: dict[str, Any]) -> set[str]:
    """The field managers that own the TrainJob's spec.suspend."""
    return {entry["manager"] for entry in trainjob["metadata"].get("managedFields") or []
            if '"f:suspend"' in json.dumps(entry.get("fieldsV1") or {})}


def test_kueue_holds_a_queued_trainjob_until_admitted_then_it_completes_and_pulumi_leaves_suspend_alone(
        held_queue: None, stack_env: dict[str, str], engine_bin: Path,
        controller_cluster: Cluster, tmp_path: Path):
    cluster, log = controller_cluster, (tmp_path / "pulumi.log").open("w")
    stack = queued_stack(cluster, stack_env, engine_bin)
    up: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: up.update(result=run_up(stack, log)))
    thread.start()
    try:
        trainjob = cluster.wait("the queued TrainJob", lambda: cluster.get(TRAINJOBS, NAME, NAMESPACE))
        assert trainjob["spec"].get("suspend") is True, "Kueue's webhook suspended the queued TrainJob"
        uid = trainjob["metadata"]["uid"]
        workload = cluster.wait("Kueue's Workload of the TrainJob", lambda: cluster.list(
            WORKLOADS, NAMESPACE, selector=f"kueue.x-k8s.io/job-uid={uid}"))[0]
        assert workload["metadata"]["ownerReferences"][0]["kind"] == "TrainJob"
        # Nothing happens while Kueue holds it, so only a window shows it: an `up` that did not wait would
        # end within it (and the join would return at once).
        thread.join(timeout=5)
        assert thread.is_alive(), f"`pulumi up` (wait_for=completed) waits while Kueue holds the TrainJob: {up}"
        assert not ((cluster.get(WORKLOADS, workload["metadata"]["name"], NAMESPACE) or {}).get("status") or {}).get(
            "admission"), "held: not admitted"

        cluster.kubectl("patch", "clusterqueues.v1beta2.kueue.x-k8s.io", CLUSTER_QUEUE, "--type=merge",
                        "-p", '{"spec":{"stopPolicy":"None"}}')
        thread.join(timeout=300)
        assert up.get("result") == "succeeded", up
        out = outputs(stack)
        assert true_condition(out["conditions"], "Complete") is not None, out["conditions"]
        assert out["drift"] == [], "the controller's JobSet is the prediction"
        trainjob = cluster.get(TRAINJOBS, NAME, NAMESPACE) or {}
        assert trainjob["spec"]["suspend"] is False, "Kueue unsuspended it on admission"
        assert not any(owner.startswith("pulumi") for owner in suspend_owners(trainjob)), suspend_owners(trainjob)
        assert any(p["manager"] == "kueue.x-k8s.io/manager" for p in trainjob["spec"].get("runtimePatches") or [])

        for where, value in prediction_cluster(stack).items():  # the export shows secrets decrypted, marked
            assert value.get(SECRET_SIG) == SECRET_MARK, f"the provider's settings are a secret in the state ({where})"

        again = stack.preview(on_output=log.write, color="never", diff=True)
        changes = {op: n for op, n in (again.change_summary or {}).items() if op != "same"}
        assert changes == {}, f"a second preview changes nothing: {again.change_summary}\n{again.stdout[-3000:]}"
    finally:
        stack.destroy(on_output=log.write, color="never")
        stack.workspace.remove_stack(stack.name)
    assert cluster.get(TRAINJOBS, NAME, NAMESPACE) is None
