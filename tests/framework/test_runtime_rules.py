"""The runtime validating webhooks (SEMANTICS §4.3): ancestor jobs have one replica and their container."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.framework.runtime_rules import deprecation_warning, validate_runtime
from tests.builders import RuntimeBuilder, container, make_runtime, replicated_job

JOBS = "spec.template.spec.replicatedJobs"


def with_replicas(runtime: RuntimeBuilder, index: int, replicas: int) -> RuntimeBuilder:
    runtime.manifest["spec"]["template"]["spec"]["replicatedJobs"][index]["replicas"] = replicas
    return runtime


@dataclass(frozen=True)
class Case:
    name: str
    runtime: RuntimeBuilder
    errors: list[tuple[str, str]]


CASES = [
    Case("the trainer job must have one replica", with_replicas(make_runtime().torch().trainer(), 0, 2), [(f"{JOBS}[0].replicas", "always must be 1")]),
    Case(
        "an initializer job must have one replica",
        with_replicas(make_runtime().torch().initializers().trainer(), 1, 0),
        [(f"{JOBS}[1].replicas", "Invalid value: 0: replicas of the model-initializer job always must be 1")],
    ),
    Case(
        "the trainer job needs a container named node",
        make_runtime().torch().trainer(container("main")),
        [(f"{JOBS}[0].template.spec.template.spec.containers", 'Invalid value: ["main"]: must contain the required container for the ancestor: trainer')],
    ),
    Case(
        "the dataset initializer needs a container named like it",
        make_runtime().torch().job(replicated_job("data", container("loader"), ancestor="dataset-initializer")).trainer(),
        [(f"{JOBS}[0].template.spec.template.spec.containers", "must contain the required container for the ancestor: dataset-initializer")],
    ),
    Case(
        "both rules report for the same job",
        with_replicas(make_runtime().torch().trainer(container("main")), 0, 3),
        [(f"{JOBS}[0].replicas", "always must be 1"), (f"{JOBS}[0].template.spec.template.spec.containers", "required container")],
    ),
    Case("jobs without an ancestor are not checked", with_replicas(make_runtime().torch().trainer().job(replicated_job("aux", container("x"))), 1, 4), []),
    Case(
        "an unknown ancestor value is not checked",
        make_runtime().torch().trainer().job(replicated_job("aux", container("x"), ancestor="evaluator")),
        [],
    ),
    Case(
        "a runtime labelled webhook-validation disabled is not checked",
        with_replicas(make_runtime().torch().trainer(container("main")), 0, 2).label(c.LABEL_WEBHOOK_VALIDATION, "disabled"),
        [],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_runtime_rules(case: Case) -> None:
    verdict = validate_runtime(case.runtime.build())
    assert [error.path for error in verdict.errors] == [path for path, _ in case.errors]
    for error, (_, says) in zip(verdict.errors, case.errors, strict=True):
        assert says in error.message


@pytest.mark.parametrize("cluster", [True, False], ids=["ClusterTrainingRuntime", "TrainingRuntime"])
def test_rules_apply_to_both_kinds(cluster: bool) -> None:
    runtime = with_replicas(make_runtime(cluster=cluster).torch().trainer(), 0, 2).build()
    assert [error.path for error in validate_runtime(runtime).errors] == [f"{JOBS}[0].replicas"]


def test_creating_a_deprecated_cluster_runtime_warns() -> None:
    runtime = make_runtime("old").torch().trainer().label(c.LABEL_SUPPORT, c.SUPPORT_DEPRECATED).build()
    assert validate_runtime(runtime).warnings == [deprecation_warning(runtime, referenced=False)]
    assert validate_runtime(runtime).warnings[0] == (
        'ClusterTrainingRuntime "old" is deprecated and will be removed in a future release of Kubeflow Trainer. '
        f"See runtime deprecation policy: {c.DEPRECATION_POLICY_URL}"
    )


def test_a_deprecated_namespaced_runtime_does_not_warn() -> None:
    runtime = make_runtime("old", cluster=False).torch().trainer().label(c.LABEL_SUPPORT, c.SUPPORT_DEPRECATED).build()
    assert validate_runtime(runtime).warnings == []
