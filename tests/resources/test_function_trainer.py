"""A function trainer through the TrainJob component: the command follows the resolved runtime."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pytest

from pulumi_kubeflow_trainer import TrainerArgs, TrainJob
from tests.functions.sample_functions import all_reduce_check

from .conftest import settled


@dataclass(frozen=True)
class Case:
    name: str
    runtime: str
    launcher: str


CASES = [
    Case("a torch runtime launches the function with torchrun", "torch-distributed", "torchrun"),
    Case("an MPI runtime launches it with mpirun on the hostfile", "mpi-distributed", "mpirun"),
    Case("a JAX runtime launches it with python", "jax-distributed", "python"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
@pulumi.runtime.test
def test_function_trainer_command_follows_the_runtime(mocks, case: Case):
    trainer = TrainerArgs.from_function(all_reduce_check, func_args={"expected_world_size": 4, "expected_nodes": 2}, num_nodes=2)
    job = TrainJob("fn", runtime_ref=case.runtime, trainer=trainer)

    def check(_):
        jobs = mocks.named("fn-jobset").inputs["spec"]["replicatedJobs"]
        trainer_job = next(j for j in jobs if j["template"].get("metadata", {}).get("labels"))
        node = trainer_job["template"]["spec"]["template"]["spec"]["containers"][0]
        assert node["command"][0] == case.launcher
        assert node["args"][0] == trainer.sha256, "the payload digest makes a changed function a visible diff"

    return settled(job).apply(check)
