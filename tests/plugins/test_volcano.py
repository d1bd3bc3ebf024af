"""Volcano plugin (SEMANTICS §3.10, §4.2, §7.10): group-name annotation, Volcano PodGroup, validation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer import render
from pulumi_kubeflow_trainer.framework.context import ObjectIndex
from pulumi_kubeflow_trainer.plugins.volcano import API_VERSION, GROUP_NAME_ANNOTATION, QUEUE_ANNOTATION
from pulumi_kubeflow_trainer.ssh import seeded_key_generator
from tests.builders import (
    RuntimeBuilder,
    TrainJobBuilder,
    by_kind,
    container,
    make_runtime,
    make_trainjob,
    render_one,
    replicated_job,
    validate_one,
)

QUEUE = {QUEUE_ANNOTATION: "research"}


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("rt")


def volcano(**policy: Any) -> RuntimeBuilder:
    return make_runtime("rt").torch().volcano(**policy)


def priority_class(name: str) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": 1000}


def pod_group(trainjob: TrainJobBuilder, runtime: RuntimeBuilder) -> dict[str, Any]:
    return by_kind(render_one(trainjob, runtime, cluster=ObjectIndex(closed_world=False)), "PodGroup")


@dataclass(frozen=True)
class Case:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    want: dict[str, Any]


CASES = [
    Case("members and requests only by default", job().num_nodes(2), volcano().trainer(container(resources={"requests": {"cpu": "2"}})), {"minMember": 2, "minResources": {"cpu": "4"}}),
    Case("the queue comes from the runtime template annotations", job(), volcano().trainer().template_metadata(annotations=QUEUE), {"minMember": 1, "minResources": {}, "queue": "research"}),
    Case(
        "a runtime patch's queue annotation wins over the runtime's",
        job().runtime_patch("kueue.x-k8s.io/manager", annotations={QUEUE_ANNOTATION: "urgent"}),
        volcano().trainer().template_metadata(annotations=QUEUE),
        {"minMember": 1, "minResources": {}, "queue": "urgent"},
    ),
    Case(
        "trainjob metadata annotations do not set the queue (§7.10)",
        job().set("metadata.annotations", QUEUE),
        volcano().trainer(),
        {"minMember": 1, "minResources": {}},
    ),
    Case(
        "the priority class is the last one a replicated job sets",
        job(),
        volcano().job(replicated_job("a", container("a", "a:1"), priorityClassName="low")).trainer(priorityClassName="high").job(
            replicated_job("b", container("b", "b:1"))
        ),
        {"minMember": 3, "minResources": {}, "priorityClassName": "high"},
    ),
    Case(
        "network topology is copied with its defaults",
        job(),
        volcano(networkTopology={}).trainer(),
        {"minMember": 1, "minResources": {}, "networkTopology": {"mode": "hard", "highestTierAllowed": 1}},
    ),
    Case(
        "network topology is copied as given",
        job(),
        volcano(networkTopology={"mode": "soft", "highestTierAllowed": 3}).trainer(),
        {"minMember": 1, "minResources": {}, "networkTopology": {"mode": "soft", "highestTierAllowed": 3}},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_pod_group_spec(case: Case) -> None:
    group = pod_group(case.trainjob, case.runtime)
    assert (group["apiVersion"], group["metadata"]["name"], group["metadata"]["namespace"]) == (API_VERSION, "job", "team")
    assert group["spec"] == case.want


def test_every_pod_template_gets_the_group_name_annotation() -> None:
    jobset = by_kind(render_one(job(), volcano().initializers().trainer()), "JobSet")
    for replicated in jobset["spec"]["replicatedJobs"]:
        assert replicated["template"]["spec"]["template"]["metadata"]["annotations"] == {GROUP_NAME_ANNOTATION: "job"}


def test_the_queue_annotation_reaches_the_jobset() -> None:
    jobset = by_kind(render_one(job(), volcano().trainer().template_metadata(annotations=QUEUE)), "JobSet")
    assert jobset["metadata"]["annotations"] == QUEUE


@dataclass(frozen=True)
class Invalid:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    cluster: ObjectIndex
    path: str
    says: str


INVALID = [
    Invalid(
        "an empty queue annotation is rejected",
        job(),
        volcano().trainer().template_metadata(annotations={QUEUE_ANNOTATION: ""}),
        ObjectIndex(),
        f"metadata.annotations[{QUEUE_ANNOTATION}]",
        "Volcano queue name must not be empty",
    ),
    Invalid(
        "an empty queue annotation from a runtime patch is rejected",
        job().runtime_patch("a.io/b", annotations={QUEUE_ANNOTATION: ""}),
        volcano().trainer().template_metadata(annotations=QUEUE),
        ObjectIndex(),
        f"metadata.annotations[{QUEUE_ANNOTATION}]",
        "Volcano queue name must not be empty",
    ),
    Invalid(
        "a priority class that does not exist is rejected",
        job(),
        volcano().trainer(priorityClassName="gold"),
        ObjectIndex.of([priority_class("silver")]),
        "spec.templateSpec.priorityClassName",
        'PriorityClass "gold" doesn\'t exist',
    ),
    Invalid(
        "checking stops at the first built-in class, but not before it",
        job(),
        volcano().job(replicated_job("a", container("a", "a:1"), priorityClassName="gold")).trainer(priorityClassName="system-node-critical").job(
            replicated_job("b", container("b", "b:1"), priorityClassName="bronze")
        ),
        ObjectIndex(),
        "spec.templateSpec.priorityClassName",
        'PriorityClass "gold" doesn\'t exist',
    ),
]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_validation(case: Invalid) -> None:
    verdict = validate_one(case.trainjob, case.runtime, cluster=case.cluster)
    assert [error.path for error in verdict.errors] == [case.path]
    assert case.says in verdict.errors[0].message


@dataclass(frozen=True)
class Valid:
    name: str
    runtime: RuntimeBuilder
    cluster: ObjectIndex


VALID = [
    Valid("an existing priority class is accepted", volcano().trainer(priorityClassName="gold"), ObjectIndex.of([priority_class("gold")])),
    Valid("a built-in priority class needs no object", volcano().trainer(priorityClassName="system-cluster-critical"), ObjectIndex()),
    Valid(
        "jobs after a built-in class are not checked (§4.2)",
        volcano().trainer(priorityClassName="system-cluster-critical").job(replicated_job("b", container("b", "b:1"), priorityClassName="ghost")),
        ObjectIndex(),
    ),
    Valid(
        "priority classes are not checked when the cluster is unknown (a Pulumi program)",
        volcano().trainer(priorityClassName="gold"),
        ObjectIndex(closed_world=False),
    ),
    Valid("priority classes are not checked without the volcano policy", make_runtime("rt").torch().trainer(priorityClassName="gold"), ObjectIndex()),
]


@pytest.mark.parametrize("case", VALID, ids=lambda case: case.name)
def test_valid(case: Valid) -> None:
    assert validate_one(job(), case.runtime, cluster=case.cluster).errors == []


def test_render_looks_priority_classes_up_among_the_given_objects() -> None:
    runtime = volcano().trainer(priorityClassName="gold").obj()
    manifests = render([runtime, priority_class("gold"), job().obj()], key_generator=seeded_key_generator("t"), runtime_snapshot=False)
    assert by_kind(manifests, "PodGroup")["spec"]["priorityClassName"] == "gold"
