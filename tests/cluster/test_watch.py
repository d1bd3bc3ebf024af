"""Watching trainings (issue 23) in the default mode, on the local cluster, through an exec-credential
kubeconfig only (the test process's KUBECONFIG names no file): one stack of seven TrainJobs that run,
complete, fail, get OOMKilled, cannot pull their image, fit no node, and wait in a Kueue queue with
no quota; then `trainjob list|get|logs|wait` in new processes and TrainerClient against them, and
`wait_for="completed"` whose failure names OOMKilled and whose output carries rank 0's log.

kwok serves every Pod's log from tools/localcluster/files/kwok-pod.log (and kwok-pod-previous.log
for --previous); its stages make the failures (KWOK_FAIL, KWOK_OOM, KWOK_IMAGE_PULL) and keep a
training running (KWOK_KEEP_RUNNING)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from pulumi_kubeflow_trainer import TrainerArgs, TrainingRuntime, TrainJob
from pulumi_kubeflow_trainer.watch import TrainerClient
from tests.toolchain import inline_stack

from .conftest import Cluster
from .test_trainjob import IMAGE, KWOK_RUNTIME, NAMESPACE
from .watching import exec_kubeconfig, followed, served_log, states, trainjob

pytestmark = pytest.mark.cluster
KUEUE = "kueue.x-k8s.io/v1beta2"
QUEUES: list[dict[str, Any]] = [  # a ClusterQueue without quota: a queued TrainJob stays pending
    {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "it-watch-flavor"}},
    {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": "it-watch-cq"},
     "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
         {"name": "it-watch-flavor", "resources": [{"name": "cpu", "nominalQuota": "0"}]}]}]}},
    {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": "it-watch-lq", "namespace": NAMESPACE},
     "spec": {"clusterQueue": "it-watch-cq"}},
]
CPU = {"limits": {"cpu": "1"}}
JOBS: dict[str, dict[str, Any]] = {  # name: TrainerArgs fields, and the TrainJob's other arguments
    "w-run": {"env": [{"name": "KWOK_KEEP_RUNNING", "value": "1"}]},
    "w-done": {},
    "w-fail": {"env": [{"name": "KWOK_FAIL", "value": "1"}]},
    "w-oom": {"env": [{"name": "KWOK_OOM", "value": "1"}], "resources_per_node": {"limits": {"memory": "2Gi"}}},
    "w-pull": {"env": [{"name": "KWOK_IMAGE_PULL", "value": "1"}]},
    "w-big": {"resources_per_node": {"limits": {"nvidia.com/gpu": "64"}}},
    "w-queued": {"resources_per_node": CPU, "queue_name": "it-watch-lq"},
}
EXPECTED_STATES = {"w-run": "Running", "w-done": "Complete", "w-fail": "Failed", "w-oom": "Failed", "w-pull": "Created",
                   "w-big": "Created", "w-queued": "Queued"}


@pytest.fixture
def queues(cluster: Cluster):
    cluster.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": QUEUES}))
    try:
        yield
    finally:
        for item in reversed(QUEUES):
            namespace = ["-n", NAMESPACE] if item["kind"] == "LocalQueue" else []
            cluster.kubectl("delete", f"{item['kind'].lower()}s.v1beta2.kueue.x-k8s.io", item["metadata"]["name"],
                            *namespace, "--wait=true", "--timeout=60s", check=False)


def watched_program(kubeconfig: Path, jobs: dict[str, dict[str, Any]], wait_for: str = "none"):
    def program() -> None:
        provider = k8s.Provider("cluster", kubeconfig=str(kubeconfig))
        opts = pulumi.ResourceOptions(provider=provider)
        runtime = TrainingRuntime("kwok-torch", manifest=KWOK_RUNTIME, opts=opts)
        for name, fields in jobs.items():
            trainer = {key: value for key, value in fields.items() if key != "queue_name"}
            job = TrainJob(name, runtime=runtime, namespace=NAMESPACE, trainer=TrainerArgs(image=IMAGE, **trainer),
                           queue_name=fields.get("queue_name"), wait_for=wait_for, wait_timeout_seconds=120, opts=opts)
            pulumi.export(f"{name}-admission", job.admission)

    return program


def test_list_get_logs_wait_and_the_client_name_each_trainjob_s_state_and_cause(
        cluster: Cluster, cluster_env: dict[str, str], engine_bin: Path, tmp_path: Path, queues: None,
        monkeypatch: pytest.MonkeyPatch):
    kubeconfig = exec_kubeconfig(cluster, tmp_path / "exec")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))  # every read goes through the exec kubeconfig
    env = {**cluster_env, "KUBECONFIG": str(tmp_path / "absent")}
    stack = inline_stack("it-watch", "cluster-it", watched_program(kubeconfig.path, JOBS), env, engine_bin)
    try:
        outputs = stack.up(color="never").outputs
        admission = outputs["w-queued-admission"].value
        assert (admission["state"], admission["clusterQueue"]) == ("pending", "it-watch-cq"), admission
        assert "insufficient" in admission["message"] or "quota" in admission["message"], admission
        cluster.wait("every TrainJob in its state", lambda: states(kubeconfig.path) == EXPECTED_STATES, timeout=90, interval=1)
        check_the_cli(kubeconfig.path)
        check_the_client(kubeconfig.path)
        assert kubeconfig.runs() >= 3, "the CLI, the client and the admission output ran the exec plugin"
    finally:
        stack.destroy(color="never")
        stack.workspace.remove_stack(stack.name)


def check_the_cli(kubeconfig: Path) -> None:
    listed = trainjob(kubeconfig, "list")
    print(f"\n`trainjob list` of 7 TrainJobs, process start included: {listed.seconds:.2f} s")
    assert listed.code == 0 and listed.out.split("\n")[0].split() == ["NAME", "MODE", "STATE", "NODES", "QUEUE", "RUNTIME", "AGE"]
    rows = {line.split()[0]: line.split()[1:5] for line in listed.out.splitlines()[1:]}
    assert rows["w-queued"] == ["rendered", "Queued", "2", "it-watch-lq"] and rows["w-run"][:3] == ["rendered", "Running", "2"], listed.out
    lines = served_log()
    assert trainjob(kubeconfig, "logs", "w-run").out.splitlines() == lines, "rank 0's log as kwok serves it"
    assert trainjob(kubeconfig, "logs", "w-run", "--tail", "2").out.splitlines() == lines[-2:]
    assert trainjob(kubeconfig, "logs", "w-run", "--previous").out.splitlines() == served_log("kwok-pod-previous.log")
    every = trainjob(kubeconfig, "logs", "w-run", "--all").out.splitlines()
    assert every == [f"[node-0] {line}" for line in lines] + [f"[node-1] {line}" for line in lines]
    assert followed(kubeconfig, "w-run", len(lines), "--node", "1") == lines, "streamed as kwok serves it"
    causes = {name: trainjob(kubeconfig, "get", name, "-o", "json").json()["hints"] for name in ("w-oom", "w-pull", "w-big", "w-queued", "w-fail")}
    assert [hint["cause"] for hint in causes["w-oom"]] == ["OOMKilled"] and "(2Gi)" in causes["w-oom"][0]["message"]
    assert [hint["cause"] for hint in causes["w-pull"]] == ["ImagePullFailed"] and "ErrImagePull for image busybox" in causes["w-pull"][0]["message"]
    assert [hint["cause"] for hint in causes["w-big"]] == ["Unschedulable"] and "Insufficient nvidia.com/gpu" in causes["w-big"][0]["message"]
    assert [hint["cause"] for hint in causes["w-queued"]] == ["Queued"] and "it-watch-cq" in causes["w-queued"][0]["message"]
    assert causes["w-fail"][0]["cause"] == "Error" and causes["w-fail"][0]["logTail"] == lines
    text = trainjob(kubeconfig, "get", "w-oom").out
    assert "State:      Failed" in text and "Hints:\n  OOMKilled: " in text, text
    assert trainjob(kubeconfig, "wait", "w-done").code == 0
    failed = trainjob(kubeconfig, "wait", "w-oom")
    assert failed.code == 3 and "OOMKilled" in failed.out, failed
    timed_out = trainjob(kubeconfig, "wait", "w-pull", "--timeout", "3")
    assert timed_out.code == 4 and "ImagePullFailed" in timed_out.out, timed_out


def check_the_client(kubeconfig: Path) -> None:
    client = TrainerClient(kubeconfig=str(kubeconfig))
    assert {job.name: job.status for job in client.list_jobs()} == EXPECTED_STATES
    assert list(client.get_job_logs("w-run", step="node-1")) == served_log()
    assert client.wait_for_job_status("w-done", timeout=30).status == "Complete"
    with pytest.raises(RuntimeError, match="TrainJob w-oom is Failed\nOOMKilled: "):
        client.wait_for_job_status("w-oom", timeout=30)
    job = client.get_job("w-run")
    assert (job.num_nodes, [step.name for step in job.steps], job.runtime.trainer.image) == (2, ["node-0", "node-1"], IMAGE)


def test_a_wait_for_completed_that_fails_names_the_cause_and_shows_rank_zero_s_log(
        cluster: Cluster, cluster_env: dict[str, str], engine_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    kubeconfig = exec_kubeconfig(cluster, tmp_path / "exec")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    env = {**cluster_env, "KUBECONFIG": str(tmp_path / "absent")}
    jobs = {"w-up-oom": {"env": [{"name": "KWOK_OOM", "value": "1"}], "resources_per_node": {"limits": {"memory": "2Gi"}}}}
    stack = inline_stack("it-watch-up", "cluster-it", watched_program(kubeconfig.path, jobs, "completed"), env, engine_bin)
    output: list[str] = []
    try:
        with pytest.raises(Exception) as failed:  # noqa: PT011 - the Automation API's CommandError
            stack.up(color="never", on_output=output.append)
        message = str(failed.value)
        assert "TrainJob w-up-oom failed: FailedJobs" in message and "OOMKilled: " in message, message
        assert "container node was killed for using more memory than its limit (2Gi)" in message
        logged = [line for line in output if "TrainJob w-up-oom node-0: " in line]
        # Each line once, in order (the display may print a message both as it comes and in its summary).
        assert list(dict.fromkeys(line.split("node-0: ", 1)[1].strip() for line in logged)) == served_log(), "\n".join(output)
    finally:
        stack.destroy(color="never")
        stack.workspace.remove_stack(stack.name)
