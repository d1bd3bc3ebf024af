"""allowed-image-registries: the registry of every container image of the rendered pods."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_kubeflow_trainer.policy.images import allowed, allowed_image_registries, repository
from pulumi_kubeflow_trainer.policy.rules import RULES
from tests.builders import container, gpu_runtime, gpu_trainjob, make_runtime, make_trainjob, policy_stack, replicated_job

SETTINGS = next(rule for rule in RULES if rule.name == "allowed-image-registries").settings


@pytest.mark.parametrize(("image", "resolved"), [
    ("busybox", "docker.io/library/busybox"),
    ("pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime", "docker.io/pytorch/pytorch"),
    ("ghcr.io/acme/train:1", "ghcr.io/acme/train"),
    ("ghcr.io/acme/train@sha256:0123", "ghcr.io/acme/train"),
    ("registry.internal:5000/team/train:v1", "registry.internal:5000/team/train"),
    ("localhost/train", "localhost/train"),
])
def test_an_image_resolves_to_its_registry_and_repository_as_a_container_runtime_does(image: str, resolved: str) -> None:
    assert repository(image) == resolved


@pytest.mark.parametrize(("image", "registries", "expected"), [
    ("ghcr.io/acme/train:1", ["ghcr.io/acme"], True),
    ("ghcr.io/acme-other/train:1", ["ghcr.io/acme"], False),
    ("ghcr.io/acme/train:1", ["ghcr.io/acme/"], True),
    ("ghcr.io/acme/train:1", ["ghcr.io/acme/train"], True),
    ("ghcr.io/acme/trainer:1", ["ghcr.io/acme/train"], False),
    ("pytorch/pytorch:2", ["docker.io/pytorch"], True),
    ("pytorch/pytorch:2", ["docker.io"], True),
    ("busybox", ["docker.io/pytorch"], False),
    ("docker.io.evil.com/x:1", ["docker.io"], False),
], ids=lambda value: str(value))
def test_a_registry_entry_allows_its_own_repositories_only(image: str, registries: list[str], expected: bool) -> None:
    assert allowed(image, registries) is expected


def mixed_runtime() -> Any:
    """A runtime with a trainer image from ghcr.io/acme and a dataset initializer from Docker Hub."""
    runtime = gpu_runtime()
    runtime.job(replicated_job("dataset-initializer", container("dataset-initializer", "busybox:1"), ancestor="dataset-initializer"))
    return runtime


def test_every_image_outside_the_registries_is_reported_once_per_workload_with_its_first_field() -> None:
    runtime = make_runtime("two").torch().trainer(container(image="docker.io/x/train:1"),
                                                  initContainers=[container("warm", "docker.io/x/train:1"), container("fetch", "busybox")])
    stack = policy_stack().trainjob(make_trainjob("team-a", "job").runtime_ref("two"), runtime)
    found = allowed_image_registries(stack.inventory(), SETTINGS({"registries": ["ghcr.io/acme"]}))
    pod = "spec.replicatedJobs[node].template.spec.template.spec"
    assert [violation.message for violation in found] == [
        f'TrainJob team-a/job: {pod}.initContainers[warm].image: "docker.io/x/train:1" (docker.io/x/train) is not from an allowed '
        "registry: ghcr.io/acme (policy allowed-image-registries)",
        f'TrainJob team-a/job: {pod}.initContainers[fetch].image: "busybox" (docker.io/library/busybox) is not from an allowed '
        "registry: ghcr.io/acme (policy allowed-image-registries)",
    ]


@pytest.mark.parametrize(("name", "runtime", "registries", "count"), [
    ("no registries configured allows every image", mixed_runtime, [], 0),
    ("images from the allowed registries pass", mixed_runtime, ["ghcr.io/acme", "docker.io/library"], 0),
    ("a repository entry allows that repository", gpu_runtime, ["ghcr.io/acme/torch"], 0),
    ("a registry left out is reported", mixed_runtime, ["ghcr.io/acme"], 1),
], ids=lambda value: value if isinstance(value, str) else "")
def test_the_registry_allow_list(name: str, runtime: Any, registries: list[str], count: int) -> None:
    stack = policy_stack().trainjob(gpu_trainjob("job"), runtime())
    assert len(allowed_image_registries(stack.inventory(), SETTINGS({"registries": registries}))) == count


def test_a_trainjob_image_overrides_the_runtime_image_before_it_is_judged() -> None:
    stack = policy_stack().trainjob(gpu_trainjob("job").image("docker.io/me/mine:1"), gpu_runtime())
    (violation,) = allowed_image_registries(stack.inventory(), SETTINGS({"registries": ["ghcr.io/acme"]}))
    assert '"docker.io/me/mine:1"' in violation.message


def test_a_trainjob_object_the_pack_cannot_render_is_reported_rather_than_passed() -> None:
    stack = policy_stack().trainjob_object(make_trainjob("team-b", "ctl").runtime_ref("nowhere"))
    (violation,) = allowed_image_registries(stack.inventory(), SETTINGS({"registries": ["ghcr.io/acme"]}))
    assert violation.message == (
        "TrainJob team-b/ctl: cannot judge its pods: its runtime ClusterTrainingRuntime nowhere is neither declared in the stack "
        "nor bundled with the library (policy allowed-image-registries)"
    )
