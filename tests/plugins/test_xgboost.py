"""XGBoost plugin (SEMANTICS §3.7, §4.2, §7.3): the DMLC tracker env, worker count, reserved env."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer.plugins.xgboost import RESERVED_ENV
from tests.builders import (
    RANK_FIELD_REF,
    RuntimeBuilder,
    TrainJobBuilder,
    container,
    env_names,
    env_of,
    job_counts,
    jobset_container,
    make_runtime,
    make_trainjob,
    render_one,
    validate_one,
)

DMLC = ["DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER"]


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("rt")


def xgboost(*containers: dict[str, Any]) -> RuntimeBuilder:
    return make_runtime("rt").xgboost().trainer(*containers)


@dataclass(frozen=True)
class Case:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    nodes: int
    workers: int


CASES = [
    Case("one worker per node without gpus", job().num_nodes(3), xgboost(), 3, 3),
    Case("one worker per gpu", job().num_nodes(2).resources(limits={"nvidia.com/gpu": 4}), xgboost(), 2, 8),
    Case(
        "the runtime's gpus count when the trainjob sets no resources",
        job().num_nodes(2),
        xgboost(container(resources={"requests": {"nvidia.com/gpu": 2}, "limits": {"nvidia.com/gpu": 2}})),
        2,
        4,
    ),
    Case("runtime mlPolicy numNodes applies when the trainjob sets none", job().image("img"), xgboost().num_nodes(5), 5, 5),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_worker_count(case: Case) -> None:
    manifests = render_one(case.trainjob, case.runtime)
    assert job_counts(manifests)["node"] == (case.nodes, case.nodes)
    assert env_of(jobset_container(manifests, "node"))["DMLC_NUM_WORKER"] == str(case.workers)


def test_tracker_env_and_port() -> None:
    node = jobset_container(render_one(job().num_nodes(2), xgboost()), "node")
    env = env_of(node)
    assert (env["DMLC_TRACKER_URI"], env["DMLC_TRACKER_PORT"], env["DMLC_TASK_ID"]) == ("job-node-0-0.job", "29500", RANK_FIELD_REF)
    assert node["ports"] == [{"containerPort": 29500}]


def test_user_env_comes_before_the_tracker_env() -> None:
    # Upstream's order is random (plugins in a Go map, §7.3); PlainML runs first here, as torch puts user env first.
    node = jobset_container(render_one(job().env(USER="u"), xgboost()), "node")
    assert env_names(node) == ["USER", *DMLC]


def test_without_spec_trainer_the_container_gets_nothing() -> None:
    node = jobset_container(render_one(job(), xgboost().num_nodes(2)), "node")
    assert "env" not in node and "ports" not in node


def test_each_reserved_var_is_reported_at_its_index() -> None:
    verdict = validate_one(job().env(OK="1", DMLC_TASK_ID="0", DMLC_NUM_WORKER="2"), xgboost())
    assert [str(error).split(": Forbidden")[0] for error in verdict.errors] == ["spec.trainer.env[1]", "spec.trainer.env[2]"]
    assert "DMLC_TASK_ID is reserved for the XGBoost runtime" in verdict.errors[0].message


@pytest.mark.parametrize("name", RESERVED_ENV)
def test_every_dmlc_var_is_reserved(name: str) -> None:
    assert [error.path for error in validate_one(job().env(**{name: "x"}), xgboost()).errors] == ["spec.trainer.env[0]"]


def test_dmlc_env_is_allowed_for_other_runtimes() -> None:
    assert validate_one(job().env(DMLC_TASK_ID="0"), make_runtime("rt").jax().trainer()).errors == []
