"""GPUs as rendered: per TrainJob (per-node ask x pods), per namespace, and the Kueue queue rule."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from pulumi_kubeflow_trainer.policy.gpus import gpu_trainjobs_need_a_queue, max_gpus_per_namespace, max_gpus_per_trainjob
from pulumi_kubeflow_trainer.policy.rules import RULES
from tests.builders import (
    PolicyStackBuilder,
    container,
    gpu_runtime,
    gpu_trainjob,
    make_trainjob,
    policy_stack,
    replicated_job,
)

SETTINGS = {rule.name: rule.settings for rule in RULES}
NODE_GPUS = 'spec.replicatedJobs[node].template.spec.template.spec.containers[node].resources.limits["nvidia.com/gpu"]'


def jobset(name: str, *jobs: dict[str, Any], namespace: str = "team-a", labels: dict[str, str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace} | ({"labels": labels} if labels else {})
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": metadata, "spec": {"replicatedJobs": list(jobs)}}


def gpu_job(name: str, gpus: Any, *, replicas: int = 1, parallelism: int | None = None, section: str = "limits",
            resource: str = "nvidia.com/gpu", **pod: Any) -> dict[str, Any]:
    job = replicated_job(name, container(name, "ghcr.io/acme/x:1", resources={section: {resource: gpus}}), **pod)
    job["replicas"] = replicas
    if parallelism is not None:
        job["template"]["spec"]["parallelism"] = parallelism
    return job


@dataclass
class Case:
    name: str
    stack: PolicyStackBuilder
    config: dict[str, Any]
    expected: list[str] = field(default_factory=list)


def trainjobs(*jobs: tuple[str, str, int, int]) -> PolicyStackBuilder:
    stack = policy_stack()
    for name, namespace, gpus, nodes in jobs:
        stack.trainjob(gpu_trainjob(name, namespace, gpus=gpus, nodes=nodes), gpu_runtime(), queue="q")
    return stack


PER_TRAINJOB = [
    Case("a torch TrainJob asks for its GPUs per node times numNodes", trainjobs(("mnist", "team-a", 8, 8)), {"limit": 32},
         [f"TrainJob team-a/mnist: {NODE_GPUS}: 64 GPUs (8 per node x 8 nodes) exceeds the limit of 32 per TrainJob (policy max-gpus-per-trainjob)"]),
    Case("a TrainJob at the limit passes", trainjobs(("mnist", "team-a", 8, 4)), {"limit": 32}),
    Case("without a limit nothing is judged", trainjobs(("mnist", "team-a", 8, 64)), {}),
    Case("a limit of zero refuses every GPU", trainjobs(("mnist", "team-a", 1, 1)), {"limit": 0},
         [f"TrainJob team-a/mnist: {NODE_GPUS}: 1 GPU (1 per node x 1 node) exceeds the limit of 0 per TrainJob (policy max-gpus-per-trainjob)"]),
    Case("a plain JobSet counts replicas times parallelism",
         policy_stack().jobset(jobset("sweep", gpu_job("worker", "2", replicas=3, parallelism=4))), {"limit": 16},
         ['JobSet team-a/sweep: spec.replicatedJobs[worker].template.spec.template.spec.containers[worker].resources.limits["nvidia.com/gpu"]: '
          "24 GPUs (2 per pod x 12 pods of worker) exceeds the limit of 16 per JobSet (policy max-gpus-per-trainjob)"]),
    Case("the GPUs of several replicated jobs add up",
         policy_stack().jobset(jobset("mpi", gpu_job("launcher", 1), gpu_job("node", 8, parallelism=2))), {"limit": 16},
         ["JobSet team-a/mpi: spec.replicatedJobs[launcher].template.spec.template.spec.containers[launcher].resources.limits"
          f'["nvidia.com/gpu"], {NODE_GPUS}: 17 GPUs (1 per pod x 1 pod of launcher + 8 per node x 2 nodes) exceeds the limit of 16 per JobSet '
          "(policy max-gpus-per-trainjob)"]),
    Case("a request counts where no limit is given",
         policy_stack().jobset(jobset("req", gpu_job("node", 4, parallelism=2, section="requests"))), {"limit": 4},
         ["JobSet team-a/req: spec.replicatedJobs[node].template.spec.template.spec.containers[node].resources.requests"
          '["nvidia.com/gpu"]: 8 GPUs (4 per node x 2 nodes) exceeds the limit of 4 per JobSet (policy max-gpus-per-trainjob)']),
    Case("another configured resource name counts as GPUs",
         policy_stack().jobset(jobset("amd", gpu_job("node", 8, resource="amd.com/gpu"))),
         {"limit": 4, "resourceNames": ["nvidia.com/gpu", "amd.com/gpu"]},
         ['JobSet team-a/amd: spec.replicatedJobs[node].template.spec.template.spec.containers[node].resources.limits["amd.com/gpu"]: '
          "8 GPUs (8 per node x 1 node) exceeds the limit of 4 per JobSet (policy max-gpus-per-trainjob)"]),
    Case("a resource not configured does not count",
         policy_stack().jobset(jobset("amd", gpu_job("node", 8, resource="amd.com/gpu"))), {"limit": 4}),
]


@pytest.mark.parametrize("case", PER_TRAINJOB, ids=lambda case: case.name)
def test_gpus_per_trainjob(case: Case) -> None:
    found = max_gpus_per_trainjob(case.stack.inventory(), SETTINGS["max-gpus-per-trainjob"](case.config))
    assert [violation.message for violation in found] == case.expected


def test_a_violation_is_reported_on_the_trainjob_component_not_its_jobset() -> None:
    (violation,) = max_gpus_per_trainjob(trainjobs(("mnist", "team-a", 8, 8)).inventory(), SETTINGS["max-gpus-per-trainjob"]({"limit": 1}))
    assert violation.urn is not None and violation.urn.endswith("kubeflow:trainer:TrainJob::mnist")


def pod_with_init(*init: dict[str, Any], main: int = 2) -> dict[str, Any]:
    job = gpu_job("node", main)
    job["template"]["spec"]["template"]["spec"]["initContainers"] = list(init)
    return jobset("pod", job)


def gpu_container(name: str, gpus: int, **fields: Any) -> dict[str, Any]:
    return container(name, "ghcr.io/acme/x:1", resources={"limits": {"nvidia.com/gpu": gpus}}, **fields)


@pytest.mark.parametrize(("name", "manifest", "gpus"), [
    ("an init container counts as a peak, not added to the containers", pod_with_init(gpu_container("warm", 1)), 2),
    ("an init container above the containers sets the pod's ask", pod_with_init(gpu_container("warm", 5)), 5),
    ("a sidecar adds to the containers", pod_with_init(gpu_container("proxy", 1, restartPolicy="Always")), 3),
    ("a container without a GPU ask counts none", jobset("cpu", replicated_job("node", container())), 0),
    ("a quantity in another notation is read as Kubernetes reads it", jobset("k", gpu_job("node", "1k")), 1000),
], ids=lambda value: value if isinstance(value, str) else "")
def test_the_gpus_of_one_pod(name: str, manifest: dict[str, Any], gpus: int) -> None:
    from pulumi_kubeflow_trainer.policy.gpus import gpus as count

    (workload,) = policy_stack().jobset(manifest).inventory().workloads
    assert count(workload, ["nvidia.com/gpu"]) == gpus


PER_NAMESPACE = [
    Case("the TrainJobs of a namespace are summed against its limit",
         trainjobs(("a", "team-a", 8, 2), ("b", "team-a", 8, 2), ("c", "team-b", 8, 3)), {"limit": 24},
         ["namespace team-a: 32 GPUs asked for by TrainJob team-a/a: 16, TrainJob team-a/b: 16 exceed the limit of 24 GPUs "
          "in the namespace (policy max-gpus-per-namespace)"]),
    Case("a namespace's own limit replaces the default one",
         trainjobs(("a", "team-a", 8, 2), ("c", "team-b", 8, 4)), {"limit": 100, "namespaces": {"team-b": 16}},
         ["namespace team-b: 32 GPUs asked for by TrainJob team-b/c: 32 exceed the limit of 16 GPUs in the namespace "
          "(policy max-gpus-per-namespace)"]),
    Case("a plain JobSet counts in its namespace",
         trainjobs(("a", "team-a", 8, 1)).jobset(jobset("sweep", gpu_job("node", 8))), {"limit": 8},
         ["namespace team-a: 16 GPUs asked for by JobSet team-a/sweep: 8, TrainJob team-a/a: 8 exceed the limit of 8 GPUs "
          "in the namespace (policy max-gpus-per-namespace)"]),
    Case("namespaces without a limit are not judged", trainjobs(("a", "team-a", 8, 8)), {"namespaces": {"team-b": 1}}),
]


@pytest.mark.parametrize("case", PER_NAMESPACE, ids=lambda case: case.name)
def test_gpus_per_namespace(case: Case) -> None:
    found = max_gpus_per_namespace(case.stack.inventory(), SETTINGS["max-gpus-per-namespace"](case.config))
    assert [violation.message for violation in found] == case.expected


def cpu_stack() -> PolicyStackBuilder:
    return policy_stack().trainjob(make_trainjob("team-a", "cpu").runtime_ref("torch-platform"), gpu_runtime())


QUEUE = [
    Case("a GPU TrainJob without a queue label is reported",
         policy_stack().trainjob(gpu_trainjob("mnist", gpus=2, nodes=2), gpu_runtime()), {},
         ['TrainJob team-a/mnist: JobSet metadata.labels["kueue.x-k8s.io/queue-name"]: not set (TrainJob(..., queue_name=...)), '
          "and it asks for 4 GPUs: GPU workloads must name a Kueue queue (policy gpu-trainjobs-need-a-queue)"]),
    Case("a GPU TrainJob with a queue passes", trainjobs(("mnist", "team-a", 2, 2)), {}),
    Case("a TrainJob without GPUs needs no queue", cpu_stack(), {}),
    Case("a queue outside the allowed ones is reported", trainjobs(("mnist", "team-a", 2, 2)), {"queues": ["team-a"]},
         ['TrainJob team-a/mnist: JobSet metadata.labels["kueue.x-k8s.io/queue-name"]: \'q\' is not one of the allowed queues team-a '
          "(policy gpu-trainjobs-need-a-queue)"]),
    Case("in controller mode the label is the TrainJob object's",
         policy_stack().trainjob_object(gpu_trainjob("ctl", gpus=1).set("metadata.labels", {"kueue.x-k8s.io/queue-name": "q"}),
                                        expected=gpu_runtime())
         .trainjob_object(gpu_trainjob("bare", gpus=1), expected=gpu_runtime()), {},
         ['TrainJob team-a/bare: metadata.labels["kueue.x-k8s.io/queue-name"]: not set, and it asks for 1 GPU: '
          "GPU workloads must name a Kueue queue (policy gpu-trainjobs-need-a-queue)"]),
    Case("a plain GPU JobSet needs a queue too", policy_stack().jobset(jobset("sweep", gpu_job("node", 1))), {},
         ['JobSet team-a/sweep: metadata.labels["kueue.x-k8s.io/queue-name"]: not set, and it asks for 1 GPU: '
          "GPU workloads must name a Kueue queue (policy gpu-trainjobs-need-a-queue)"]),
]


@pytest.mark.parametrize("case", QUEUE, ids=lambda case: case.name)
def test_gpu_trainjobs_need_a_queue(case: Case) -> None:
    found = gpu_trainjobs_need_a_queue(case.stack.inventory(), SETTINGS["gpu-trainjobs-need-a-queue"](case.config))
    assert [violation.message for violation in found] == case.expected


def test_a_queue_not_known_at_preview_is_left_for_pulumi_up() -> None:
    from pulumi_kubeflow_trainer.policy.inventory import UNKNOWN

    manifest = jobset("sweep", gpu_job("node", 1), labels={"kueue.x-k8s.io/queue-name": UNKNOWN})  # type: ignore[dict-item]
    assert gpu_trainjobs_need_a_queue(policy_stack().jobset(manifest).inventory(), SETTINGS["gpu-trainjobs-need-a-queue"]({})) == []


def test_an_mpi_trainjob_is_counted_as_rendered_where_upstream_puts_resources_per_node() -> None:
    """Upstream v2.3.0 gives `resourcesPerNode` to the trainer-ancestor job's `node` container: with the
    bundled mpi-distributed runtime that is the launcher, not the sshd workers. The pack counts the pods
    as rendered, so 2 GPUs, not 2 x numNodes."""
    from pulumi_kubeflow_trainer.blueprints import bundled_runtime
    from pulumi_kubeflow_trainer.policy.gpus import gpu_uses

    trainjob = make_trainjob("team-a", "mpi").runtime_ref("mpi-distributed").num_nodes(3).resources(limits={"nvidia.com/gpu": 2})
    (workload,) = policy_stack().trainjob(trainjob, bundled_runtime("mpi-distributed")).inventory().workloads
    assert [(template.job, template.pods) for template in workload.pods] == [("node", 3), ("launcher", 1)]
    assert [str(use) for use in gpu_uses(workload, ["nvidia.com/gpu"])] == ["2 per pod x 1 pod of launcher"]
