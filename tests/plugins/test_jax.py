"""JAX plugin (SEMANTICS §3.6): process count, process id and coordinator address, and port 29500."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

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
)

JAX_ENV = ["JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"]


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("rt")


def jax(*containers: dict) -> RuntimeBuilder:
    return make_runtime("rt").jax().trainer(*containers)


@dataclass(frozen=True)
class Case:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    processes: int


CASES = [
    Case("trainjob numNodes is the process count", job().num_nodes(4), jax().num_nodes(2), 4),
    Case("runtime mlPolicy numNodes applies when the trainjob sets none", job().image("img"), jax().num_nodes(3), 3),
    Case("one process when nobody sets numNodes", job().image("img"), jax(), 1),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_process_count(case: Case) -> None:
    manifests = render_one(case.trainjob, case.runtime)
    assert job_counts(manifests)["node"] == (case.processes, case.processes)
    assert env_of(jobset_container(manifests, "node"))["JAX_NUM_PROCESSES"] == str(case.processes)


def test_jax_env_values_and_port() -> None:
    node = jobset_container(render_one(job().num_nodes(2), jax()), "node")
    env = env_of(node)
    assert env["JAX_PROCESS_ID"] == RANK_FIELD_REF
    assert env["JAX_COORDINATOR_ADDRESS"] == "job-node-0-0.job:29500"
    assert node["ports"] == [{"containerPort": 29500}]


def test_user_env_comes_after_the_jax_env_because_the_jobset_builder_adds_it() -> None:
    node = jobset_container(render_one(job().env(USER="u"), jax()), "node")
    assert env_names(node) == [*JAX_ENV, "USER"]


def test_a_user_var_named_like_a_jax_var_replaces_it_in_place() -> None:
    node = jobset_container(render_one(job().num_nodes(2).env(JAX_NUM_PROCESSES="7"), jax()), "node")
    assert env_names(node) == JAX_ENV
    assert env_of(node)["JAX_NUM_PROCESSES"] == "7"


def test_runtime_env_keeps_its_position() -> None:
    node = jobset_container(render_one(job().num_nodes(1), jax(container(env=[{"name": "XLA_FLAGS", "value": "x"}]))), "node")
    assert env_names(node) == ["XLA_FLAGS", *JAX_ENV]


def test_without_spec_trainer_the_container_gets_nothing_but_the_count_applies() -> None:
    manifests = render_one(job(), jax().num_nodes(2))
    assert job_counts(manifests)["node"] == (2, 2)
    node = jobset_container(manifests, "node")
    assert "env" not in node and "ports" not in node


def test_the_coordinator_is_under_the_trainjob_name_whatever_the_subdomain() -> None:
    rt = jax().template_spec(network={"subdomain": "other"})
    assert env_of(jobset_container(render_one(job().num_nodes(2), rt), "node"))["JAX_COORDINATOR_ADDRESS"] == "job-node-0-0.job:29500"
