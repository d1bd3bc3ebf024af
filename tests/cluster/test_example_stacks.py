"""Every example stack deployed to the local control plane (`kubernetes:kubeconfig` set in the stack
config): the API server accepts every object the stack registers (schema, CEL rules, webhooks,
server-side apply), the JobSet controller makes Jobs, the controller manager Pods, the scheduler
binds them to kwok nodes and kwok completes them; destroy removes every object and, through the
garbage collector, the Jobs and Pods."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi.automation as auto
import pytest

from tests.toolchain import example_stack

from .conftest import Cluster

pytestmark = pytest.mark.cluster


@dataclass(frozen=True)
class Example:
    stack: str
    jobset: str | None  # the JobSet the stack runs (the TrainJob name), None for runtimes only
    kinds: frozenset[str]  # kinds the stack must create in the cluster


EXAMPLES = [
    Example("dev", "torch-quickstart", frozenset({"JobSet"})),
    Example("mpi", "deepspeed-t5", frozenset({"JobSet", "Secret", "ConfigMap"})),
    Example("llm", "llama-lora", frozenset({"JobSet"})),
    # The platform stack deploys the bundled ClusterTrainingRuntimes: tools/cluster installs the
    # Trainer CRDs of the fetched reference (crds/trainer), so they are real objects here.
    Example("platform", None, frozenset({"ClusterTrainingRuntime"})),
]


class ClusterStack:
    def __init__(self, example: Example, env: dict[str, str], bin_dir: Path, root: Path, cluster: Cluster) -> None:
        self.log = (root / "pulumi.log").open("w")
        self.stack = example_stack(example.stack, env, bin_dir, root)
        self.stack.set_config("kubernetes:kubeconfig", auto.ConfigValue(str(cluster.kubeconfig)))

    def out(self, line: str) -> None:
        self.log.write(line + "\n")
        self.log.flush()

    def objects(self) -> list[dict[str, Any]]:
        """The Kubernetes objects in the stack's state (outputs as the provider read them back)."""
        found = []
        for resource in self.stack.export_stack().deployment.get("resources") or []:
            if resource["type"].startswith("kubernetes:") and resource.get("custom") and "outputs" in resource:
                found.append(resource["outputs"])
        return found


def resource_arg(obj: dict[str, Any]) -> str:
    """kubectl's TYPE.VERSION.GROUP for an object's apiVersion and kind."""
    group, _, version = obj["apiVersion"].rpartition("/")
    kind = obj["kind"].lower()
    return f"{kind}.{version}.{group}" if group else kind


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: f"the {example.stack} stack")
def test_example_stack_on_a_cluster(example: Example, cluster: Cluster, cluster_env, engine_bin, tmp_path):
    stack = ClusterStack(example, cluster_env, engine_bin, tmp_path, cluster)

    result = stack.stack.up(on_output=stack.out, color="never")
    assert result.summary.result == "succeeded"

    objects = stack.objects()
    assert example.kinds <= {obj["kind"] for obj in objects}, f"the stack creates {sorted(example.kinds)}"
    for obj in objects:
        meta = obj["metadata"]
        live = cluster.get(resource_arg(obj), meta["name"], meta.get("namespace"))
        assert live is not None, f"{obj['kind']} {meta['name']} is in the API server"
        assert live["metadata"]["uid"] == meta["uid"], f"{obj['kind']} {meta['name']} is the object Pulumi created"
        managers = {(field["manager"], field["operation"]) for field in live["metadata"].get("managedFields") or []}
        assert ("Apply" in {op for _, op in managers}) and any(manager.startswith("pulumi-kubernetes") for manager, _ in managers), (
            f"{obj['kind']} {meta['name']} is managed by the Pulumi provider: {managers}"
        )

    if example.jobset is not None:
        _runs_to_completion(cluster, example.jobset)
        summary = stack.stack.preview(on_output=stack.out, color="never").change_summary
        assert {op: n for op, n in summary.items() if op != "same" and n} == {}, "a second preview shows no changes"

    stack.stack.destroy(on_output=stack.out, color="never")
    for obj in objects:
        meta = obj["metadata"]
        assert cluster.get(resource_arg(obj), meta["name"], meta.get("namespace")) is None, (
            f"destroy removes {obj['kind']} {meta['name']}"
        )
    if example.jobset is not None:
        selector = f"jobset.sigs.k8s.io/jobset-name={example.jobset}"
        cluster.wait("the Jobs and Pods to be garbage-collected",
                     lambda: not cluster.list("jobs", selector=selector) and not cluster.list("pods", selector=selector))


def _runs_to_completion(cluster: Cluster, name: str) -> None:
    selector = f"jobset.sigs.k8s.io/jobset-name={name}"
    completed = cluster.wait(f"JobSet {name} to complete", lambda: cluster.jobset_condition(name, "Completed"), timeout=180)
    assert completed["reason"], completed
    jobset = cluster.get("jobsets.jobset.x-k8s.io", name)
    assert jobset["status"].get("terminalState") == "Completed"
    jobs = cluster.list("jobs", selector=selector)
    assert jobs, "the JobSet controller created Jobs"
    for job in jobs:
        owners = {(ref["kind"], ref["name"]) for ref in job["metadata"].get("ownerReferences") or []}
        assert ("JobSet", name) in owners, f"Job {job['metadata']['name']} is owned by the JobSet"
    pods = cluster.list("pods", selector=selector)
    assert pods, "the Job controller created Pods"
    for pod in pods:
        assert pod["spec"].get("nodeName", "").startswith("kwok-node-"), f"{pod['metadata']['name']} is bound to a kwok node"
    assert any(pod["status"]["phase"] == "Succeeded" for pod in pods), "kwok completed the Pods"
