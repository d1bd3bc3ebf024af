"""CoScheduling plugin (SEMANTICS §3.9, §7.8): pod-group label on every pod and a scheduler-plugins PodGroup."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.plugins.coscheduling import API_VERSION, POD_GROUP_LABEL
from tests.builders import (
    RuntimeBuilder,
    TrainJobBuilder,
    by_kind,
    container,
    make_runtime,
    make_trainjob,
    render_one,
    replicated_job,
)


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("rt")


def requests(**values: Any) -> dict[str, Any]:
    return {"resources": {"requests": values}}


def gang(*containers: dict[str, Any], **pod: Any) -> RuntimeBuilder:
    return make_runtime("rt").torch().coscheduling().trainer(*containers, **pod)


def pod_group(trainjob: TrainJobBuilder, runtime: RuntimeBuilder) -> dict[str, Any]:
    return by_kind(render_one(trainjob, runtime), "PodGroup")


@dataclass(frozen=True)
class Case:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    min_member: int
    min_resources: dict[str, str] | None


CASES = [
    Case("every trainer node is a member; no requests, an empty minResources as upstream writes it", job().num_nodes(3), gang(), 3, {}),
    Case(
        "requests are multiplied by the node count",
        job().num_nodes(3),
        gang(container(**requests(cpu="500m", memory="1Gi"))),
        3,
        {"cpu": "1500m", "memory": "3Gi"},
    ),
    Case(
        "initializer and helper jobs are members too",
        job().num_nodes(2),
        make_runtime("rt").torch().coscheduling().initializers().trainer(container(**requests(cpu="1"))),
        4,
        {"cpu": "2"},
    ),
    Case(
        "trainjob resourcesPerNode replaces the runtime's requests",
        job().num_nodes(2).resources(requests={"cpu": "4", "nvidia.com/gpu": 1}, limits={"nvidia.com/gpu": 1}),
        gang(container(**requests(cpu="1", memory="2Gi"))),
        2,
        {"cpu": "8", "memory": "4Gi", "nvidia.com/gpu": "2"},
    ),
    Case(
        "containers add up and init containers count only as a peak",
        job().num_nodes(1),
        gang(
            container(**requests(cpu="1")),
            container("side", "side:1", **requests(cpu="1")),
            initContainers=[container("init", "init:1", **requests(cpu="3", memory="1Gi"))],
        ),
        1,
        {"cpu": "3", "memory": "1Gi"},
    ),
    Case(
        "sidecar init containers add to the pod's requests",
        job().num_nodes(2),
        gang(
            container(**requests(cpu="1")),
            initContainers=[container("proxy", "proxy:1", restartPolicy="Always", **requests(cpu="500m"))],
        ),
        2,
        {"cpu": "3"},
    ),
    Case(
        "pod overhead is added",
        job().num_nodes(2),
        gang(container(**requests(cpu="1")), overhead={"cpu": "250m"}),
        2,
        {"cpu": "2500m"},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_pod_group(case: Case) -> None:
    group = pod_group(case.trainjob, case.runtime)
    assert group["spec"]["minMember"] == case.min_member
    assert group["spec"].get("minResources") == case.min_resources


def test_pod_group_identity_and_timeout() -> None:
    group = pod_group(job().uid("u-1"), gang())
    assert (group["apiVersion"], group["kind"]) == (API_VERSION, "PodGroup")
    assert group["metadata"] == {
        "name": "job",
        "namespace": "team",
        "ownerReferences": [
            {"apiVersion": c.API_VERSION_UPSTREAM, "kind": "TrainJob", "name": "job", "uid": "u-1", "controller": True, "blockOwnerDeletion": True}
        ],
    }
    assert group["spec"] == {"minMember": 1, "minResources": {}, "scheduleTimeoutSeconds": 60}


@pytest.mark.parametrize("timeout", [0, 100])
def test_schedule_timeout_is_passed_through_even_when_zero(timeout: int) -> None:
    group = pod_group(job(), make_runtime("rt").torch().coscheduling(scheduleTimeoutSeconds=timeout).trainer())
    assert group["spec"]["scheduleTimeoutSeconds"] == timeout


def test_every_pod_template_gets_the_pod_group_label_and_no_scheduler_name() -> None:
    rt = make_runtime("rt").torch().coscheduling().initializers().trainer().job(replicated_job("aux", container("aux", "aux:1")))
    jobset = by_kind(render_one(job(), rt), "JobSet")
    for replicated in jobset["spec"]["replicatedJobs"]:
        pod = replicated["template"]["spec"]["template"]
        assert pod["metadata"]["labels"] == {POD_GROUP_LABEL: "job"}
        assert "schedulerName" not in pod["spec"]


def test_existing_pod_labels_are_kept() -> None:
    rt = gang()
    rt.manifest["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"] = {"labels": {"team": "a"}}
    pod = by_kind(render_one(job(), rt), "JobSet")["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    assert pod["metadata"]["labels"] == {"team": "a", POD_GROUP_LABEL: "job"}


def test_no_pod_group_or_label_without_the_policy() -> None:
    manifests = render_one(job(), make_runtime("rt").torch().trainer())
    assert [manifest["kind"] for manifest in manifests] == ["JobSet"]
    assert "metadata" not in manifests[0]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]


def test_coscheduling_and_volcano_together_both_act() -> None:
    manifests = render_one(job(), make_runtime("rt").torch().coscheduling().volcano().trainer())
    assert sorted(m["apiVersion"] for m in manifests if m["kind"] == "PodGroup") == ["scheduling.volcano.sh/v1beta1", API_VERSION]
