"""The differences issue 11 lists, each as one input run through both sides: the oracle must say what
the issue says upstream does, and render() must agree with it (or a row of docs/parity.md accept it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .compare import run_cases
from .generator import Case, dump
from .oracle import Oracle
from .test_differential import crd_dirs

V1 = "trainer.kubeflow.org/v1alpha1"
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"


def runtime(name: str = "rt", *, policy: dict[str, Any] | None = None, jobs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": V1, "kind": "ClusterTrainingRuntime", "metadata": {"name": name},
        "spec": {"mlPolicy": policy or {"torch": {}}, "template": {"spec": {"replicatedJobs": jobs or [node_job()]}}},
    }


def node_job(name: str = "node", ancestor: str | None = "trainer", **container: Any) -> dict[str, Any]:
    template: dict[str, Any] = {"spec": {"template": {"spec": {"containers": [{"name": "node", **container}]}}}}
    if ancestor:
        template["metadata"] = {"labels": {ANCESTOR: ancestor}}
    return {"name": name, "template": template}


def trainjob(runtime_name: str = "rt", **trainer: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"runtimeRef": {"name": runtime_name}}
    if trainer:
        spec["trainer"] = trainer
    return {"apiVersion": V1, "kind": "TrainJob", "metadata": {"name": "job", "namespace": "default"}, "spec": spec}


TUNE = ["tune", "run"]
GPU1 = {"limits": {"nvidia.com/gpu": 1}}
CASES = {
    # name: (documents, what upstream does)
    "a runtime container without an image renders": ([runtime(), trainjob(numNodes=1)], "renders"),
    "trainer args [] leave the container without args": (
        [runtime(jobs=[node_job(image="i", args=["--lr", "1"])]), trainjob(args=[])], "renders"),
    "torchtune: only the trainjob's numNodes counts": (
        [runtime("torchtune-llama3.2-1b", policy={"torch": {}, "numNodes": 2}, jobs=[node_job(image="i")]), trainjob("torchtune-llama3.2-1b", command=TUNE)],
        "renders"),
    "torchtune: QLoRA on one GPU of qwen2.5-1.5b is refused": (
        [runtime("torchtune-qwen2.5-1.5b", jobs=[node_job(image="i")]),
         trainjob("torchtune-qwen2.5-1.5b", command=TUNE, args=["model.quantize_base=True"], resourcesPerNode=GPU1)],
        "refuses"),
    "cpu: 1.5 as a YAML number is refused": ([runtime(jobs=[node_job(image="i")]), trainjob(resourcesPerNode={"requests": {"cpu": 1.5}})], "refuses"),
    "MPI slots come from the first job labelled trainer, not the GPU workers": (
        [runtime(policy={"mpi": {}}, jobs=[node_job("launcher", image="i"), node_job("node", None, image="i", resources={"limits": {"nvidia.com/gpu": 4}})]),
         trainjob(numNodes=2)],
        "renders"),
    "an empty resourcesPerNode.limits is dropped": ([runtime(jobs=[node_job(image="i")]), trainjob(resourcesPerNode={"limits": {}})], "renders"),
    "Flux without spec.trainer.numNodes panics upstream; we refuse": ([runtime(policy={"flux": {}}, jobs=[node_job(image="i")]), trainjob()], "panics"),
    # Issue 12: plugins may add mlPolicy keys; one no plugin claims is still refused, as the CRD refuses it.
    "an mlPolicy key the CRD lacks is refused": ([runtime(policy={"paddle": {}}, jobs=[node_job(image="i")]), trainjob(numNodes=1)], "refuses"),
}


@pytest.fixture(scope="module")
def verdicts(oracle_bin: Path) -> dict[str, Any]:
    cases = [Case(index, "known", dump(docs), (name,)) for index, (name, (docs, _)) in enumerate(CASES.items())]
    run = run_cases(cases, Oracle(oracle_bin, crd_dirs()))
    return {verdict.case.features[0]: verdict for verdict in run.verdicts}


@pytest.mark.parametrize("name", list(CASES))
def test_upstream_does_what_the_issue_says_and_we_agree(verdicts: dict[str, Any], name: str) -> None:
    verdict = verdicts[name]
    upstream = verdict.upstream[0]
    says = CASES[name][1]
    if says == "renders":
        assert not upstream.get("errors") and not upstream.get("panic"), upstream
    elif says == "refuses":
        assert upstream.get("errors"), upstream
    else:
        assert "plugins/flux/flux.go" in upstream.get("panic", ""), upstream
    assert not verdict.failed, f"{verdict.outcome}: {verdict.detail}"
