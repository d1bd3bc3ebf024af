"""Torch plugin (SEMANTICS §3.4): node count, torchrun's PET_* env and port, envInjection, validation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer.plugins.torch import RESERVED_ENV
from tests.builders import (
    RANK_FIELD_REF,
    Invalid,
    RuntimeBuilder,
    TrainJobBuilder,
    assert_rejected,
    container,
    env_names,
    env_of,
    job_counts,
    jobset_container,
    make_runtime,
    make_trainjob,
    render_one,
    replicated_job,
    validate_one,
)

PET = ["PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"]
MASTER = "job-node-0-0.job"


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("rt")


def runtime(*containers: dict[str, Any]) -> RuntimeBuilder:
    return make_runtime("rt").torch().trainer(*containers)


def node_env(trainjob: TrainJobBuilder, rt: RuntimeBuilder) -> dict[str, Any]:
    return env_of(jobset_container(render_one(trainjob, rt), "node"))


@dataclass(frozen=True)
class Nodes:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    want: int


NODE_CASES = [
    Nodes("trainjob numNodes overrides runtime mlPolicy numNodes", job().num_nodes(4), runtime().num_nodes(2), 4),
    Nodes("runtime mlPolicy numNodes applies when the trainjob sets none", job().image("img"), runtime().num_nodes(3), 3),
    Nodes("mlPolicy numNodes defaults to one", job().image("img"), runtime(), 1),
    Nodes("trainjob numNodes 0 gives no trainer pods", job().num_nodes(0), runtime().num_nodes(2), 0),
    Nodes("mlPolicy numNodes applies without spec.trainer too", job(), runtime().num_nodes(5), 5),
]


@pytest.mark.parametrize("case", NODE_CASES, ids=lambda case: case.name)
def test_node_count(case: Nodes) -> None:
    manifests = render_one(case.trainjob, case.runtime)
    assert job_counts(manifests)["node"] == (case.want, case.want)
    if case.trainjob.obj()["spec"].get("trainer"):
        assert env_of(jobset_container(manifests, "node"))["PET_NNODES"] == str(case.want)


def cpu(requests: str | None = None, limits: str | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = {"cpu": requests}
    if limits is not None:
        resources["limits"] = {"cpu": limits}
    return resources


@dataclass(frozen=True)
class Procs:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    want: str


PROC_CASES = [
    Procs("an explicit numProcPerNode is used as is", job().num_proc_per_node(4), runtime(), "4"),
    Procs("auto without any resources becomes one process", job().image("img"), runtime(), "1"),
    Procs("auto with 0.7 cpu rounds up to one", job().resources(**cpu("0.7")), runtime(), "1"),
    Procs("auto with 2.5 cpus rounds up to three", job().resources(**cpu("2.5")), runtime(), "3"),
    Procs("auto with 3.7 cpus rounds up to four", job().resources(**cpu("3.7")), runtime(), "4"),
    Procs("auto with millicores rounds up", job().resources(**cpu("1500m")), runtime(), "2"),
    Procs("auto reads cpu limits when requests set none", job().resources(**cpu(limits="6")), runtime(), "6"),
    Procs("auto reads cpu limits when requested cpu is zero", job().resources(**cpu("0", "5")), runtime(), "5"),
    Procs("cpu requests win over limits", job().resources(**cpu("2", "8")), runtime(), "2"),
    Procs("auto stays auto with a gpu", job().resources(limits={"nvidia.com/gpu": 1, "cpu": "8"}), runtime(), "auto"),
    Procs("auto stays auto with a gpu request", job().resources(requests={"amd.com/GPU": 2}, limits={"amd.com/GPU": 2}), runtime(), "auto"),
    Procs(
        "auto reads the runtime node container's resources when the trainjob sets none",
        job().image("img"),
        runtime(container(resources=cpu("3"))),
        "3",
    ),
    Procs(
        "trainjob resourcesPerNode replaces the runtime's for the count, even when empty",
        job().resources(),
        runtime(container(resources=cpu("3"))),
        "1",
    ),
    Procs("an explicit numProcPerNode wins over a gpu", job().num_proc_per_node(2).resources(limits={"nvidia.com/gpu": 8}), runtime(), "2"),
]


@pytest.mark.parametrize("case", PROC_CASES, ids=lambda case: case.name)
def test_num_proc_per_node(case: Procs) -> None:
    assert node_env(case.trainjob, case.runtime)["PET_NPROC_PER_NODE"] == case.want


def test_pet_env_follows_user_env_in_upstream_order() -> None:
    node = jobset_container(render_one(job().env(USER_A="1", USER_B="2"), runtime()), "node")
    assert env_names(node) == ["USER_A", "USER_B", *PET]
    env = env_of(node)
    assert env["PET_NODE_RANK"] == RANK_FIELD_REF
    assert (env["PET_MASTER_ADDR"], env["PET_MASTER_PORT"]) == (MASTER, "29500")


def test_runtime_env_keeps_its_position_and_same_named_vars_are_replaced_in_place() -> None:
    rt = runtime(container(env=[{"name": "KEEP", "value": "k"}, {"name": "PET_MASTER_PORT", "value": "1"}]))
    node = jobset_container(render_one(job().env(USER="u"), rt), "node")
    assert env_names(node) == ["KEEP", "PET_MASTER_PORT", "USER", "PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR"]
    assert env_of(node)["PET_MASTER_PORT"] == "29500"


def test_master_address_uses_the_trainjob_name_whatever_the_subdomain() -> None:
    rt = runtime().template_spec(network={"subdomain": "custom"})
    assert node_env(job().num_nodes(2), rt)["PET_MASTER_ADDR"] == MASTER


def test_the_trainer_port_is_added_once() -> None:
    ports = [{"containerPort": 29500, "name": "torch"}, {"containerPort": 8080}]
    node = jobset_container(render_one(job().num_nodes(1), runtime(container(ports=ports))), "node")
    assert node["ports"] == [{"containerPort": 29500}, {"containerPort": 8080}]


def test_the_trainer_port_is_appended_to_a_container_without_it() -> None:
    node = jobset_container(render_one(job().num_nodes(1), runtime()), "node")
    assert node["ports"] == [{"containerPort": 29500}]


def test_without_spec_trainer_the_node_container_gets_nothing() -> None:
    node = jobset_container(render_one(job(), runtime().num_nodes(2)), "node")
    assert "env" not in node and "ports" not in node


def test_user_env_from_a_field_keeps_only_the_field_path() -> None:
    trainjob = job().set("spec.trainer.env", [{"name": "POD", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}])
    assert node_env(trainjob, runtime())["POD"] == {"fieldRef": {"fieldPath": "metadata.name"}}


def injection_runtime(*names: str, runtime_name: str = "rt") -> RuntimeBuilder:
    helpers = replicated_job(
        "node",
        container(),
        container("sidecar", "sidecar:1"),
        ancestor="trainer",
        initContainers=[container("warmup", "warmup:1")],
    )
    targets = {"targets": [{"jobName": "node", "containerNames": list(names)}]}
    return make_runtime(runtime_name).torch(envInjection=targets).job(helpers)


def test_env_injection_gives_targets_all_five_pet_vars_but_no_user_env_or_port() -> None:
    manifests = render_one(job().num_nodes(2).env(USER="u"), injection_runtime("sidecar", "warmup"))
    sidecar = jobset_container(manifests, "node", "sidecar")
    warmup = manifests[-1]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["initContainers"][0]
    for target in (sidecar, warmup):
        assert env_names(target) == PET
        assert env_of(target)["PET_NNODES"] == "2"
        assert "ports" not in target


def test_env_injection_runs_without_spec_trainer() -> None:
    sidecar = jobset_container(render_one(job(), injection_runtime("sidecar").num_nodes(3)), "node", "sidecar")
    assert env_of(sidecar)["PET_NNODES"] == "3"
    assert env_of(sidecar)["PET_MASTER_ADDR"] == MASTER


def test_env_injection_into_tune_runtimes_keeps_the_master_address() -> None:
    rt = injection_runtime("sidecar", runtime_name="torchtune-llama3.2-1b")
    manifests = render_one(job().runtime_ref("torchtune-llama3.2-1b").command("tune", "run"), rt)
    assert "PET_MASTER_ADDR" not in env_of(jobset_container(manifests, "node"))
    assert env_names(jobset_container(manifests, "node", "sidecar")) == PET


INVALID = [
    Invalid(
        "an envInjection target container missing from the runtime is rejected",
        job(),
        injection_runtime("ghost"),
        "spec.runtimeRef",
        'envInjection target podSet "node" container "ghost" not found in runtime template',
    ),
    Invalid(
        "an envInjection target job missing from the runtime is rejected",
        job(),
        make_runtime("rt").torch(envInjection={"targets": [{"jobName": "aux", "containerNames": ["c"]}]}).trainer(),
        "spec.runtimeRef",
        'envInjection target podSet "aux" container "c" not found in runtime template',
    ),
    Invalid(
        "reserved PET env vars in spec.trainer.env are rejected, listed sorted",
        job().env(PET_NNODES="2", OK="1", PET_MASTER_ADDR="x"),
        runtime(),
        "spec.trainer.env",
        "must not have reserved envs, invalid envs configured: [PET_MASTER_ADDR PET_NNODES]",
    ),
]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_validation(case: Invalid) -> None:
    assert_rejected(case)


@pytest.mark.parametrize("name", sorted(RESERVED_ENV))
def test_every_pet_var_is_reserved(name: str) -> None:
    verdict = validate_one(job().env(**{name: "x"}), runtime())
    assert f"[{name}]" in verdict.errors[0].message


def test_reserved_env_is_allowed_for_runtimes_without_torch() -> None:
    assert validate_one(job().env(PET_NNODES="2"), make_runtime("rt").trainer()).errors == []


def test_the_plugin_leaves_runtimes_without_a_torch_policy_alone() -> None:
    manifests = render_one(job().num_nodes(2), make_runtime("rt").jax().trainer())
    assert not any(name.startswith("PET_") for name in env_of(jobset_container(manifests, "node")))
