"""PlainML plugin (SEMANTICS §3.3, §7.2): node count and user env for runtimes without torch, MPI or JAX."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.builders import (
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
    replicated_job,
)


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("rt")


def plain(**pod: object) -> RuntimeBuilder:
    return make_runtime("rt").trainer(**pod)


def with_parallelism(runtime: RuntimeBuilder, parallelism: int) -> RuntimeBuilder:
    runtime.manifest["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] = parallelism
    return runtime


@dataclass(frozen=True)
class Case:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    nodes: int
    env: dict[str, str]


CASES = [
    Case("numNodes sets the trainer count of a runtime without mlPolicy", job().num_nodes(3).env(A="1"), plain(), 3, {"A": "1"}),
    Case("without mlPolicy the trainer count is the template's parallelism", job().env(A="1"), with_parallelism(plain(), 2), 2, {"A": "1"}),
    Case("numNodes overrides the template's parallelism", job().num_nodes(4), with_parallelism(plain(), 2), 4, {}),
    Case("an xgboost runtime gets the user env from PlainML too", job().num_nodes(2).env(A="1"), make_runtime("rt").xgboost().trainer(), 2, {"A": "1"}),
    Case("a flux runtime gets numNodes and user env from PlainML", job().num_nodes(2).env(A="1"), make_runtime("rt").flux().trainer(), 2, {"A": "1"}),
    Case("mlPolicy numNodes alone sizes the trainer of an xgboost runtime", job(), make_runtime("rt").xgboost().num_nodes(3).trainer(), 3, {}),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_plainml(case: Case) -> None:
    manifests = render_one(case.trainjob, case.runtime)
    assert job_counts(manifests)["node"] == (case.nodes, case.nodes)
    env = env_of(jobset_container(manifests, "node"))
    assert {name: value for name, value in env.items() if name in case.env} == case.env


def test_user_env_replaces_runtime_env_in_place_and_appends_new_names() -> None:
    rt = plain().job(replicated_job("aux", container("aux", "aux:1")))
    rt.manifest["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "A", "value": "runtime"},
        {"name": "B", "value": "runtime"},
    ]
    node = jobset_container(render_one(job().env(C="user", A="user"), rt), "node")
    assert node["env"] == [{"name": "A", "value": "user"}, {"name": "B", "value": "runtime"}, {"name": "C", "value": "user"}]


def test_no_framework_env_or_port_is_added() -> None:
    node = jobset_container(render_one(job().num_nodes(2).env(A="1"), plain()), "node")
    assert env_names(node) == ["A"]
    assert "ports" not in node


def test_resources_per_node_are_ignored_without_an_ml_policy() -> None:
    rt = make_runtime("rt").trainer(container(resources={"limits": {"cpu": "1"}}))
    node = jobset_container(render_one(job().resources(limits={"cpu": "4"}), rt), "node")
    assert node["resources"] == {"limits": {"cpu": "1"}}


def test_resources_per_node_are_merged_with_any_ml_policy() -> None:
    rt = make_runtime("rt").xgboost().trainer(container(resources={"limits": {"cpu": "1", "memory": "1Gi"}}))
    node = jobset_container(render_one(job().resources(limits={"cpu": "4"}), rt), "node")
    assert node["resources"] == {"limits": {"cpu": "4", "memory": "1Gi"}}


def test_plainml_stays_out_of_jax_so_user_env_follows_the_jax_env() -> None:
    node = jobset_container(render_one(job().num_nodes(2).env(USER="u"), make_runtime("rt").jax().trainer()), "node")
    assert env_names(node) == ["JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS", "USER"]


def test_plainml_stays_out_of_mpi_so_the_trainer_launcher_keeps_one_pod() -> None:
    rt = make_runtime("rt").mpi().trainer(name="launcher").job(replicated_job("node", container()))
    assert job_counts(render_one(job().num_nodes(3), rt)) == {"launcher": (1, 1), "node": (3, 3)}
