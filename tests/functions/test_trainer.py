"""FunctionTrainer.to_manifest: the launcher per runtime kind, the resources shorthand, a valid spec.trainer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer.api.trainjob import TrainJob
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.functions import (
    FunctionPackagingError,
    FunctionTrainer,
    Launcher,
    bootstrap_program,
    resources_per_node,
    trainer_for_runtime,
)
from tests.builders import make_runtime, make_trainjob, render_one
from tests.functions import sample_functions

TRAINER = FunctionTrainer.from_function(sample_functions.greet, func_args={"name": "ada"}, num_nodes=2)
BOOTSTRAP = ["python", "-c", bootstrap_program()]
TORCHRUN = ["torchrun", "--no-python", *BOOTSTRAP]
MPIRUN = ["mpirun", "--hostfile", "/etc/mpi/hostfile", *BOOTSTRAP]


@dataclass(frozen=True)
class Launch:
    name: str
    runtime: Any
    launcher: Launcher
    command: list[str]


LAUNCHES = [
    Launch("a torch runtime starts the function with torchrun", bundled_runtime("torch-distributed"), Launcher.TORCHRUN, TORCHRUN),
    Launch("an MPI runtime starts it with mpirun on the mounted hostfile", bundled_runtime("mpi-distributed"), Launcher.MPIRUN, MPIRUN),
    Launch("DeepSpeed is an MPI runtime", bundled_runtime("deepspeed-distributed"), Launcher.MPIRUN, MPIRUN),
    Launch("a JAX runtime starts it with python", bundled_runtime("jax-distributed"), Launcher.PYTHON, BOOTSTRAP),
    Launch("an XGBoost runtime starts it with python", bundled_runtime("xgboost-distributed"), Launcher.PYTHON, BOOTSTRAP),
    Launch("a runtime without an ML policy starts it with python", make_runtime("plain").trainer().build(), Launcher.PYTHON, BOOTSTRAP),
    Launch("a runtime given as a manifest dict is read", make_runtime("t").torch().trainer().obj(), Launcher.TORCHRUN, TORCHRUN),
]


@pytest.mark.parametrize("case", LAUNCHES, ids=lambda case: case.name)
def test_the_command_follows_the_runtime_launcher(case: Launch) -> None:
    assert TRAINER.launcher(case.runtime) is case.launcher
    manifest = TRAINER.to_manifest(case.runtime)
    assert manifest["command"] == case.command
    assert manifest["args"] == [TRAINER.sha256, TRAINER.payload.encoded()]


@dataclass(frozen=True)
class Unfit:
    name: str
    runtime: Any
    message: str


UNFIT = [
    Unfit("a torchtune runtime runs recipes, not functions", bundled_runtime("torchtune-llama3.2-1b"), "torchtune runtime runs `tune run` recipes"),
    Unfit("a Flux runtime would split the program", make_runtime("f").flux().trainer().build(), "Flux runtime re-joins the command"),
    Unfit("a TrainJob is not a runtime", make_trainjob().obj(), "expected a TrainingRuntime or ClusterTrainingRuntime"),
]


@pytest.mark.parametrize("case", UNFIT, ids=lambda case: case.name)
def test_a_runtime_that_cannot_run_functions_is_refused(case: Unfit) -> None:
    with pytest.raises(FunctionPackagingError, match=case.message):
        TRAINER.to_manifest(case.runtime)


def test_the_manifest_carries_image_env_counts_and_resources_in_camel_case() -> None:
    trainer = FunctionTrainer.from_function(
        sample_functions.greet, func_args={"name": "x"}, image="python:3.12", num_nodes=3, num_proc_per_node=2,
        resources_per_node={"cpu": 2}, env={"LOG_LEVEL": "debug"},
    )
    manifest = trainer.to_manifest(bundled_runtime("torch-distributed"))
    assert {key: manifest[key] for key in ("image", "env", "numNodes", "numProcPerNode", "resourcesPerNode")} == {
        "image": "python:3.12",
        "env": [{"name": "LOG_LEVEL", "value": "debug"}],
        "numNodes": 3,
        "numProcPerNode": 2,
        "resourcesPerNode": {"limits": {"cpu": 2}, "requests": {"cpu": 2}},
    }


def test_the_manifest_is_a_valid_trainer_and_renders_into_the_jobset() -> None:
    runtime = bundled_runtime("torch-distributed")
    trainjob = make_trainjob("team", "fn").runtime_ref("torch-distributed").set("spec.trainer", TRAINER.to_manifest(runtime))
    TrainJob.model_validate(trainjob.obj())
    jobset = next(m for m in render_one(trainjob, runtime) if m["kind"] == "JobSet")
    node = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert node["command"][:2] == ["torchrun", "--no-python"]
    assert node["args"] == TRAINER.args()


@pytest.mark.parametrize("count", [0, -1, True, 1.5, "2"], ids=repr)
def test_node_and_process_counts_must_be_whole_numbers(count: Any) -> None:
    with pytest.raises(FunctionPackagingError, match="expected a whole number of at least 1"):
        FunctionTrainer.from_function(sample_functions.greet, func_args={"name": "x"}, num_nodes=count)


@dataclass(frozen=True)
class Shorthand:
    name: str
    given: dict[str, Any]
    limits: dict[str, Any]


SHORTHANDS = [
    Shorthand("gpu is an NVIDIA GPU", {"gpu": 2, "cpu": 4, "memory": "16Gi"}, {"nvidia.com/gpu": 2, "cpu": 4, "memory": "16Gi"}),
    Shorthand("storage is ephemeral storage", {"storage": "10Gi"}, {"ephemeral-storage": "10Gi"}),
    Shorthand("a MIG profile is an NVIDIA MIG resource", {"mig-1g.5gb": 1}, {"nvidia.com/mig-1g.5gb": 1}),
    Shorthand("a full name with a slash passes through", {"amd.com/gpu": 1}, {"amd.com/gpu": 1}),
    Shorthand("hugepages pass through", {"hugepages-2Mi": "1Gi"}, {"hugepages-2Mi": "1Gi"}),
]


@pytest.mark.parametrize("case", SHORTHANDS, ids=lambda case: case.name)
def test_the_resources_shorthand_sets_equal_requests_and_limits(case: Shorthand) -> None:
    assert resources_per_node(case.given) == {"limits": case.limits, "requests": case.limits}


def test_the_full_resources_form_passes_through() -> None:
    full = {"limits": {"nvidia.com/gpu": 1}, "requests": {"cpu": "500m"}}
    assert resources_per_node(full) == full


@dataclass(frozen=True)
class BadResources:
    name: str
    given: Any
    message: str


BAD_RESOURCES = [
    BadResources("a GPU and a MIG profile together are refused", {"gpu": 1, "mig-1g.5gb": 1}, "a GPU and a MIG profile together"),
    BadResources("an unknown short name is refused", {"tpu": 1}, "unknown resource 'tpu'"),
    BadResources("an alias and its full name are the same resource", {"gpu": 1, "nvidia.com/gpu": 1}, "names nvidia.com/gpu a second time"),
    BadResources("a value must be a quantity", {"memory": "lots"}, r"resources_per_node\['memory'\]: 'lots' is not a quantity"),
    BadResources("a list is not a resource dict", ["gpu"], "expected a dict"),
]


@pytest.mark.parametrize("case", BAD_RESOURCES, ids=lambda case: case.name)
def test_bad_resources_are_refused(case: BadResources) -> None:
    with pytest.raises(FunctionPackagingError, match=case.message):
        resources_per_node(case.given)


def test_a_function_trainer_becomes_its_manifest_once_the_runtime_is_known() -> None:
    runtime = bundled_runtime("jax-distributed")
    assert trainer_for_runtime(TRAINER, runtime) == TRAINER.to_manifest(runtime)
    assert trainer_for_runtime({"image": "x"}, runtime) == {"image": "x"}
    assert trainer_for_runtime(None, runtime) is None
