"""Controller mode (`TrainJob(..., controller="kubeflow")`) against the real upstream Kubeflow Trainer
controller manager v2.3.0 (`tools/cluster up --trainer-controller`: `controller_cluster` of conftest.py,
shared with test_controller_kueue.py and test_controller_sample.py):
the TrainJob and runtime objects are what Pulumi registers, the controller creates the JobSet, which
runs to Complete on kwok; the component's outputs say Complete, its prediction matches the live
JobSet (no drift), a second preview shows no change, and destroy leaves nothing."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pulumi
import pulumi.automation as auto
import pulumi_kubernetes as k8s
import pytest
import yaml

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainerArgs, TrainingRuntime, TrainJob, render
from pulumi_kubeflow_trainer.blueprints import bundled_runtimes
from pulumi_kubeflow_trainer.watch import TrainerClient
from tests.parity.compare import AS_THE_CONTROLLER
from tests.parity.generator import Case
from tests.toolchain import inline_stack, isolated_engine_env

from .conftest import PASSPHRASE, Cluster
from .live_compare import DRY_RUN_NAMESPACE, compare_trainjob
from .test_trainjob import IMAGE, KWOK_RUNTIME, NAMESPACE
from .watching import exec_kubeconfig, served_log, states, trainjob

pytestmark = pytest.mark.cluster
RUNTIME: dict[str, Any] = {**KWOK_RUNTIME, "metadata": {**KWOK_RUNTIME["metadata"], "name": "kwok-torch-ctl"}}


def make_stack(name: str, env: dict[str, str], engine_bin: Path, cluster: Cluster) -> auto.Stack:
    def program() -> None:
        provider = k8s.Provider("cluster", kubeconfig=str(cluster.kubeconfig))
        opts = pulumi.ResourceOptions(provider=provider)
        runtime = TrainingRuntime("runtime", RUNTIME, controller="kubeflow", opts=opts)
        job = TrainJob(name, runtime=runtime, namespace=NAMESPACE, controller="kubeflow", wait_for="completed",
                       wait_timeout_seconds=300, trainer=TrainerArgs(image=IMAGE, command=["python", "train.py"]),
                       opts=opts)
        pulumi.export("conditions", job.conditions)
        pulumi.export("jobs_status", job.jobs_status)
        pulumi.export("drift", job.drift)
        pulumi.export("expected", job.expected_children)

    return inline_stack(name, "controller-it", program, env, engine_bin)


def outputs(stack: auto.Stack) -> dict[str, Any]:
    return {key: value.value for key, value in stack.outputs().items()}


def true_condition(conditions: list[dict[str, Any]], kind: str) -> dict[str, Any] | None:
    return next((c for c in conditions if c.get("type") == kind and c.get("status") == "True"), None)


def test_the_controller_creates_the_predicted_jobset_and_it_completes(
        stack_env: dict[str, str], engine_bin: Path, controller_cluster: Cluster, tmp_path: Path):
    cluster, log = controller_cluster, (tmp_path / "pulumi.log").open("w")
    stack = make_stack("it-ctl", stack_env, engine_bin, cluster)
    preview = stack.preview(on_output=log.write, color="never", diff=True)
    assert "JobSet" in preview.stdout and "expected" in preview.stdout, "the preview shows the prediction"

    stack.up(on_output=log.write, color="never")
    trainjob = cluster.get("trainjobs.trainer.kubeflow.org", "it-ctl")
    assert trainjob is not None, "the TrainJob object is what Pulumi registered"
    assert cluster.get("trainingruntimes.trainer.kubeflow.org", "kwok-torch-ctl") is not None
    jobset = cluster.get("jobsets.jobset.x-k8s.io", "it-ctl")
    assert jobset is not None, "the controller created the JobSet"
    assert [ref["kind"] for ref in jobset["metadata"].get("ownerReferences") or []] == ["TrainJob"]
    assert not any(f.get("manager", "").startswith("pulumi") for f in jobset["metadata"].get("managedFields") or []), (
        "nothing of ours wrote the JobSet")
    assert cluster.jobset_condition("it-ctl", "Completed") is not None

    out = outputs(stack)
    assert true_condition(out["conditions"], "Complete") is not None, out["conditions"]
    assert out["drift"] == [], out["drift"]
    assert [m["kind"] for m in out["expected"]] == ["JobSet"]
    assert [j["name"] for j in out["jobs_status"]] == ["node"]

    again = stack.preview(on_output=log.write, color="never")
    changes = {op: n for op, n in (again.change_summary or {}).items() if op != "same"}
    assert changes == {}, f"a second preview changes nothing: {again.change_summary}"

    stack.destroy(on_output=log.write, color="never")
    assert cluster.get("trainjobs.trainer.kubeflow.org", "it-ctl") is None
    assert cluster.get("trainingruntimes.trainer.kubeflow.org", "kwok-torch-ctl") is None
    selector = "jobset.sigs.k8s.io/jobset-name=it-ctl"
    cluster.wait("the JobSet, Jobs and Pods to be garbage-collected", lambda: (
        cluster.get("jobsets.jobset.x-k8s.io", "it-ctl") is None
        and not cluster.list("jobs", selector=selector) and not cluster.list("pods", selector=selector)))
    stack.workspace.remove_stack(stack.name)


def test_the_controller_creates_what_render_predicts_for_every_bundled_runtime(
        stack_env: dict[str, str], engine_bin: Path, controller_cluster: Cluster, tmp_path: Path):
    """The live differential (issue 14 part 4), as the drift check compares: every field of the
    prediction (JobSet, PodGroup, MPI Secret and hostfile ConfigMap) is in the controller's object
    with that value; what the API server and the controller add is not compared (controller_check.py)."""
    cluster, log = controller_cluster, (tmp_path / "pulumi.log").open("w")
    names = sorted(runtime.name for runtime in bundled_runtimes())

    def program() -> None:
        provider = k8s.Provider("cluster", kubeconfig=str(cluster.kubeconfig))
        opts = pulumi.ResourceOptions(provider=provider)
        for index, runtime_name in enumerate(names):
            runtime = ClusterTrainingRuntime.bundled(runtime_name, controller="kubeflow", opts=opts)
            job = TrainJob(f"diff-{index}", runtime=runtime, namespace=NAMESPACE, controller="kubeflow",
                           trainer=TrainerArgs(image=IMAGE), opts=opts)
            pulumi.export(runtime_name, {"drift": job.drift, "expected": job.expected_children})
        # A deliberate difference (docs/parity.md `port-upsert`) the check must report: upstream's
        # torch plugin replaces a port without a name by 29500; the render keeps it and adds 29500.
        unnamed_port = copy.deepcopy(RUNTIME)
        unnamed_port["metadata"]["name"] = "kwok-torch-port"
        pod = unnamed_port["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
        pod["containers"][0]["ports"] = [{"containerPort": 8080}]
        runtime = TrainingRuntime("port", unnamed_port, controller="kubeflow", opts=opts)
        job = TrainJob("diff-port", runtime=runtime, namespace=NAMESPACE, controller="kubeflow",
                       trainer=TrainerArgs(image=IMAGE), opts=opts)
        pulumi.export("port-upsert", {"drift": job.drift, "expected": job.expected_children})

    stack = inline_stack("diff", "controller-diff", program, stack_env, engine_bin)
    try:
        stack.up(on_output=log.write, color="never")
        out = outputs(stack)
        port_drift = out.pop("port-upsert")["drift"]
        assert any("ports" in line and "8080" in line for line in port_drift), port_drift
        assert sorted(out) == names
        kinds = {name: sorted({m["kind"] for m in out[name]["expected"]}) for name in names}
        assert "PodGroup" in kinds["torch-distributed-coscheduling"] and "Secret" in kinds["mpi-distributed"]
        drift = {name: out[name]["drift"] for name in names if out[name]["drift"]}
        # This test found that the bundled mpi-distributed listed `launcher` (dependsOn node) first,
        # which JobSet v0.12.0's webhook refuses ("DependsOn can't be set for the first
        # ReplicatedJob"): the controller created none of its objects. The runtime lists node first now.
        assert drift == {}, "\n".join(line for lines in drift.values() for line in lines)
    finally:
        stack.destroy(on_output=log.write, color="never")
        stack.workspace.remove_stack(stack.name)


# ------------------------------------------------------------------ field by field, both ways

def test_render_equals_the_controllers_objects_field_by_field(controller_cluster: Cluster):
    """render() of a TrainJob of every bundled runtime against the objects the controller created for
    the same TrainJob (rendered with the live TrainJob's uid): both as the API server stores them,
    compared both ways with the offline parity test's deliberate differences (live_compare.py)."""
    cluster = controller_cluster
    cluster.kubectl("create", "namespace", DRY_RUN_NAMESPACE, check=False)
    runtimes = {runtime.name: runtime for runtime in bundled_runtimes()}
    trainjobs = {name: {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                        "metadata": {"name": f"field-{index}", "namespace": NAMESPACE},
                        "spec": {"runtimeRef": {"name": name}, "trainer": {"image": IMAGE}}}
                 for index, name in enumerate(sorted(runtimes))}
    for items in ([r.to_manifest() for r in runtimes.values()], list(trainjobs.values())):
        cluster.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    found: dict[str, list[str]] = {}
    wait = 60.0  # for the controller's first object; by then it has reconciled the others too
    try:
        for index, (name, trainjob) in enumerate(trainjobs.items()):
            live = cluster.get("trainjobs.trainer.kubeflow.org", trainjob["metadata"]["name"], NAMESPACE) or {}
            with_uid = {**trainjob, "metadata": {**trainjob["metadata"], "uid": live["metadata"]["uid"]}}
            documents = [with_uid, runtimes[name].to_manifest()]
            case = Case(index, name, yaml.safe_dump_all(documents), ())
            lines, _ = compare_trainjob(cluster, case, render(documents, **AS_THE_CONTROLLER), wait)
            wait = 10.0
            found.update({f"{name} {key}": value for key, value in lines.items()})
    finally:
        cluster.kubectl("delete", "trainjobs.trainer.kubeflow.org", "--all", "-n", NAMESPACE, "--wait=true", check=False)
        # The runtimes too: the other controller-mode tests share the cluster (test_controller_sample.py
        # checks that its destroy leaves no ClusterTrainingRuntime).
        cluster.kubectl("delete", "--wait=true", "-f", "-", check=False, stdin=json.dumps(
            {"apiVersion": "v1", "kind": "List", "items": [r.to_manifest() for r in runtimes.values()]}))
    assert found == {}, "\n".join(f"{where}: {line}" for where, lines in found.items() for line in lines)


def test_a_failed_trainjob_fails_the_up_that_waited_with_the_cause_and_shows_rank_zero_s_log(
        stack_env: dict[str, str], engine_bin: Path, controller_cluster: Cluster, tmp_path: Path):
    """As in the default mode (test_watch.py): the failure names the cause read from the controller's
    Pods, and rank 0's lines are logged while the provider waits."""
    cluster, output = controller_cluster, []
    failing = copy.deepcopy(RUNTIME)
    failing["metadata"]["name"] = "kwok-torch-fail"

    def program() -> None:
        opts = pulumi.ResourceOptions(provider=k8s.Provider("cluster", kubeconfig=str(cluster.kubeconfig)))
        runtime = TrainingRuntime("runtime", failing, controller="kubeflow", opts=opts)
        # kwok ends the Pod OOMKilled; backoffLimit 0
        trainer = TrainerArgs(image=IMAGE, env={"KWOK_OOM": "1"}, resources_per_node={"limits": {"memory": "2Gi"}})
        job = TrainJob("it-ctl-fail", runtime=runtime, namespace=NAMESPACE, controller="kubeflow",
                       wait_for="completed", wait_timeout_seconds=300, trainer=trainer, opts=opts)
        pulumi.export("conditions", job.conditions)

    stack = inline_stack("it-ctl-fail", "controller-fail", program, stack_env, engine_bin)
    try:
        with pytest.raises(auto.CommandError) as failed:
            stack.up(on_output=output.append, color="never")
        message = str(failed.value)
        assert "TrainJob it-ctl-fail failed: " in message and "OOMKilled: " in message, message[-3000:]
        assert "container node was killed for using more memory than its limit (2Gi)" in message
        logged = [line for line in output if "TrainJob it-ctl-fail node-0: " in line]
        assert list(dict.fromkeys(line.split("node-0: ", 1)[1].strip() for line in logged)) == served_log(), "\n".join(output)
        trainjob = cluster.get("trainjobs.trainer.kubeflow.org", "it-ctl-fail") or {}
        assert true_condition((trainjob.get("status") or {}).get("conditions") or [], "Failed") is not None
    finally:
        stack.destroy(color="never")
        stack.workspace.remove_stack(stack.name)
    assert cluster.get("trainjobs.trainer.kubeflow.org", "it-ctl-fail") is None


# ------------------------------------------------------------------ watching (issue 23)

WATCH_QUEUES: list[dict[str, Any]] = [  # a ClusterQueue that admits nothing (stopPolicy Hold)
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "it-watch-ctl-flavor"}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "it-watch-ctl-cq"},
     "spec": {"namespaceSelector": {}, "stopPolicy": "Hold", "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
         {"name": "it-watch-ctl-flavor", "resources": [{"name": "cpu", "nominalQuota": "8"}]}]}]}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "it-watch-ctl-lq", "namespace": NAMESPACE},
     "spec": {"clusterQueue": "it-watch-ctl-cq"}},
]
WATCHED = {"c-run": {"KWOK_KEEP_RUNNING": "1"}, "c-done": {}, "c-fail": {"KWOK_FAIL": "1"}, "c-queued": {}}


def test_list_get_logs_wait_and_the_client_read_trainjob_objects_through_an_exec_credential(
        engine_bin: Path, controller_cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Controller mode's side of tests/cluster/test_watch.py: TrainJob objects that run, complete, fail
    and wait in a held Kueue queue, read by `trainjob` and TrainerClient; the program (the drift check
    in the dynamic provider's process included) reads the cluster only through the exec kubeconfig."""
    cluster = controller_cluster
    kubeconfig = exec_kubeconfig(cluster, tmp_path / "exec")
    env = {**isolated_engine_env(engine_bin, tmp_path, PASSPHRASE), "KUBECONFIG": str(tmp_path / "absent")}
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    cluster.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": WATCH_QUEUES}))

    def program() -> None:
        opts = pulumi.ResourceOptions(provider=k8s.Provider("cluster", kubeconfig=str(kubeconfig.path)))
        runtime = TrainingRuntime("runtime", {**RUNTIME, "metadata": {**RUNTIME["metadata"], "name": "kwok-torch-watch"}},
                                  controller="kubeflow", opts=opts)
        for name, variables in WATCHED.items():
            job = TrainJob(name, runtime=runtime, namespace=NAMESPACE, controller="kubeflow", trainer=TrainerArgs(image=IMAGE, env=variables),
                           queue_name="it-watch-ctl-lq" if name == "c-queued" else None, opts=opts)
            pulumi.export(f"{name}-drift", job.drift)

    stack = inline_stack("it-ctl-watch", "controller-watch", program, env, engine_bin)
    try:
        out = {key: value.value for key, value in stack.up(color="never").outputs.items()}
        assert out["c-done-drift"] == [], "the drift check read the controller's JobSet through the exec kubeconfig"
        expected = {"c-run": "Running", "c-done": "Complete", "c-fail": "Failed", "c-queued": "Queued"}
        cluster.wait("every TrainJob in its state", lambda: states(kubeconfig.path) == expected, timeout=90, interval=1)
        listed = trainjob(kubeconfig.path, "list", "-o", "json").json()
        assert {row["name"]: (row["mode"], row["runtime"]) for row in listed} == dict.fromkeys(expected, ("controller", "kwok-torch-watch"))
        assert trainjob(kubeconfig.path, "logs", "c-run").out.splitlines() == served_log()
        assert [h["cause"] for h in trainjob(kubeconfig.path, "get", "c-fail", "-o", "json").json()["hints"]] == ["Error"]
        queued = trainjob(kubeconfig.path, "get", "c-queued", "-o", "json").json()
        assert queued["admission"]["state"] == "pending" and [h["cause"] for h in queued["hints"]] == ["Queued"], queued
        assert (trainjob(kubeconfig.path, "wait", "c-done").code, trainjob(kubeconfig.path, "wait", "c-fail").code) == (0, 3)
        client = TrainerClient(kubeconfig=str(kubeconfig.path))
        assert {job.name: job.status for job in client.list_jobs()} == expected
        assert client.get_job("c-done").runtime.name == "kwok-torch-watch"
        assert list(client.get_job_logs("c-run")) == served_log()
        assert kubeconfig.runs() >= 3
    finally:
        stack.destroy(color="never")
        stack.workspace.remove_stack(stack.name)
        for item in reversed(WATCH_QUEUES):
            namespace = ["-n", NAMESPACE] if item["kind"] == "LocalQueue" else []
            cluster.kubectl("delete", f"{item['kind'].lower()}s.v1beta2.kueue.x-k8s.io", item["metadata"]["name"],
                            *namespace, "--wait=true", "--timeout=60s", check=False)
