"""allowed-runtimes (by name or label) and deprecated-runtimes (upstream's deprecation label)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from pulumi_kubeflow_trainer.policy.rules import RULES
from pulumi_kubeflow_trainer.policy.runtimes import allowed_runtimes, deprecated_runtimes
from tests.builders import PolicyStackBuilder, gpu_runtime, gpu_trainjob, make_runtime, make_trainjob, policy_stack

SETTINGS = {rule.name: rule.settings for rule in RULES}
ALLOWED_BY_NAME = "allowed are the runtimes named torch-platform (policy allowed-runtimes)"


@dataclass
class Case:
    name: str
    stack: PolicyStackBuilder
    config: dict[str, Any]
    expected: list[str] = field(default_factory=list)


def using(runtime_name: str, *, declared: Any = None, namespace: str = "team-a") -> PolicyStackBuilder:
    """A TrainJob of `namespace` on `runtime_name`, rendered against `declared` (declared in the stack as a
    runtime component) or the bundled runtime of that name."""
    from pulumi_kubeflow_trainer.blueprints import bundled_runtime

    stack = policy_stack()
    runtime = declared if declared is not None else bundled_runtime(runtime_name)
    if declared is not None:
        stack.runtime_component(declared)
    kind = runtime.manifest["kind"] if declared is not None else "ClusterTrainingRuntime"
    return stack.trainjob(make_trainjob(namespace, "job").runtime_ref(runtime_name, kind), runtime)


ALLOWED = [
    Case("nothing configured allows every runtime", using("torch-distributed"), {}),
    Case("a runtime named in the list is allowed", using("torch-platform", declared=gpu_runtime()), {"names": ["torch-platform"]}),
    Case("a runtime not named is refused", using("torch-distributed"), {"names": ["torch-platform"]},
         [f"TrainJob team-a/job: spec.runtimeRef: ClusterTrainingRuntime torch-distributed is not an allowed runtime; {ALLOWED_BY_NAME}"]),
    Case("a runtime declared in the stack with the label is allowed",
         using("torch-platform", declared=gpu_runtime(team="platform")), {"labels": {"team": "platform"}}),
    Case("a runtime declared in the stack without the label is refused",
         using("torch-platform", declared=gpu_runtime(team="research")), {"labels": {"team": "platform"}},
         ["TrainJob team-a/job: spec.runtimeRef: ClusterTrainingRuntime torch-platform is not an allowed runtime; "
          "allowed are runtimes labelled team=platform (policy allowed-runtimes)"]),
    Case("a bundled runtime's own labels count", using("torch-distributed"), {"labels": {"trainer.kubeflow.org/framework": "torch"}}),
    Case("every configured label must match", using("torch-distributed"),
         {"labels": {"trainer.kubeflow.org/framework": "torch", "team": "platform"}},
         ["TrainJob team-a/job: spec.runtimeRef: ClusterTrainingRuntime torch-distributed is not an allowed runtime; "
          "allowed are runtimes labelled trainer.kubeflow.org/framework=torch, team=platform (policy allowed-runtimes)"]),
    Case("names and labels both allow", using("torch-platform", declared=gpu_runtime(team="research")),
         {"names": ["torch-platform"], "labels": {"team": "platform"}}),
    Case("a namespaced runtime is found in the TrainJob's namespace",
         using("local", declared=make_runtime("local", cluster=False, namespace="team-a").torch().trainer().label("team", "platform")),
         {"labels": {"team": "platform"}}),
    Case("a runtime the pack cannot find has unknown labels",
         policy_stack().trainjob(gpu_trainjob("job", runtime="elsewhere"), gpu_runtime("elsewhere", team="platform")),
         {"labels": {"team": "platform"}},
         ["TrainJob team-a/job: spec.runtimeRef: ClusterTrainingRuntime elsewhere is not allowed by name, and its labels are unknown: "
          "it is neither declared in the stack nor bundled with the library; allowed are runtimes labelled team=platform "
          "(policy allowed-runtimes)"]),
    Case("a TrainJob whose record has no runtimeRef cannot be judged",
         policy_stack().trainjob(gpu_trainjob("job"), gpu_runtime(), record={"trainjob": "team-a/job", "runtimePatches": None}),
         {"names": ["torch-platform"]},
         ["TrainJob team-a/job: spec.runtimeRef: the pack cannot tell which runtime it uses: its TrainJob component's input record "
          f"has no runtimeRef (written by an older pulumi-kubeflow-trainer); {ALLOWED_BY_NAME}"]),
    Case("a TrainJob object names its runtime in its spec",
         policy_stack().trainjob_object(make_trainjob("team-b", "ctl").runtime_ref("torch-distributed")), {"names": ["torch-platform"]},
         [f"TrainJob team-b/ctl: spec.runtimeRef: ClusterTrainingRuntime torch-distributed is not an allowed runtime; {ALLOWED_BY_NAME}"]),
]


@pytest.mark.parametrize("case", ALLOWED, ids=lambda case: case.name)
def test_allowed_runtimes(case: Case) -> None:
    found = allowed_runtimes(case.stack.inventory(), SETTINGS["allowed-runtimes"](case.config))
    assert [violation.message for violation in found] == case.expected


def test_a_plain_jobset_names_no_runtime_and_is_not_judged() -> None:
    stack = policy_stack().jobset({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "x"}, "spec": {}})
    assert allowed_runtimes(stack.inventory(), SETTINGS["allowed-runtimes"]({"names": ["torch-platform"]})) == []


DEPRECATED_MESSAGE = (
    "spec.runtimeRef: ClusterTrainingRuntime old-torch is deprecated (label trainer.kubeflow.org/support=deprecated) and will be "
    "removed; move to a supported runtime, see https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html"
    "#runtime-deprecation-policy (policy deprecated-runtimes)"
)
OLD = gpu_runtime("old-torch", **{"trainer.kubeflow.org/support": "deprecated"})

DEPRECATED = [
    Case("a runtime component with the deprecation label warns", using("old-torch", declared=OLD), {},
         [f"TrainJob team-a/job: {DEPRECATED_MESSAGE}"]),
    Case("a runtime object with the deprecation label warns",
         policy_stack().runtime_object(OLD).trainjob_object(make_trainjob("team-b", "ctl").runtime_ref("old-torch")), {},
         [f"TrainJob team-b/ctl: {DEPRECATED_MESSAGE}"]),
    Case("a supported runtime does not warn",
         using("torch-platform", declared=gpu_runtime(**{"trainer.kubeflow.org/support": "supported"})), {}),
    Case("a bundled runtime does not warn", using("torch-distributed"), {}),
]


@pytest.mark.parametrize("case", DEPRECATED, ids=lambda case: case.name)
def test_deprecated_runtimes(case: Case) -> None:
    found = deprecated_runtimes(case.stack.inventory(), SETTINGS["deprecated-runtimes"](case.config))
    assert [violation.message for violation in found] == case.expected
