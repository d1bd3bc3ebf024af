"""The differential test over v1 jobs of ours (tests/migration/v1jobs/), each written to exercise what
the examples do not: every carried pod field, what only a generated runtime carries, templates that
differ, every elastic field, MPI with a GPU launcher or no workers, PaddlePaddle's parameter-server
mode. Each is migrated, rendered and compared with the Pods v1's own code makes of it, and the
runtime it lands on and the paths reported lost are as the table says."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pulumi_kubeflow_trainer.migration import migrate

from .differential import assert_makes_the_pods_v1_made
from .oracle_v1 import answers

JOBS = Path(__file__).resolve().parent / "v1jobs"


@dataclass(frozen=True)
class Case:
    file: str
    runtime: str  # the bundled runtime's name, or "generated"
    lost: tuple[str, ...]  # the paths reported, in report order


CASES = (
    Case("pytorch-pod-fields.yaml", "torch-distributed", ()),
    Case("pytorch-runtime-fields.yaml", "generated", (
        "spec.pytorchReplicaSpecs.Worker.template.spec.containers[1].ports",
        "spec.runPolicy.ttlSecondsAfterFinished",
        "spec.runPolicy.backoffLimit",
        "spec.runPolicy.cleanPodPolicy",
    )),
    Case("pytorch-master-worker-differ.yaml", "torch-distributed", (
        "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].args[1]",
        "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.limits.cpu",
        "spec.pytorchReplicaSpecs.Worker.template.spec.nodeSelector",
        "spec.pytorchReplicaSpecs.Worker.restartPolicy",
    )),
    Case("pytorch-elastic.yaml", "torch-distributed", (
        "spec.elasticPolicy.minReplicas",
        "spec.elasticPolicy.maxReplicas",
        "spec.elasticPolicy.metrics",
    )),
    Case("mpi-gpu-launcher.yaml", "generated", (
        "spec.mpiReplicaSpecs.Worker.template.spec.containers[0].command",
        "spec.runPolicy.schedulingPolicy.minAvailable",
        "spec.runPolicy.schedulingPolicy.priorityClass",
        "spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds",
    )),
    Case("mpi-launcher-only.yaml", "generated", ()),
    Case("xgboost-master-only.yaml", "xgboost-distributed", ()),
    Case("paddle-parameter-server.yaml", "generated", (
        "spec.paddleReplicaSpecs.Master",
        "spec.elasticPolicy.minReplicas",
        "spec.elasticPolicy.maxReplicas",
    )),
)


@pytest.fixture(scope="module")
def v1_answers(oracle_v1: Path) -> dict[tuple[str, int], dict[str, Any]]:
    return answers(oracle_v1, [JOBS / case.file for case in CASES])


def test_every_crafted_job_is_in_the_table() -> None:
    assert sorted(path.name for path in JOBS.glob("*.yaml")) == sorted(case.file for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.file)
def test_a_crafted_v1_job_migrates_to_its_runtime_and_makes_the_pods_v1_made(
    case: Case, v1_answers: dict[tuple[str, int], dict[str, Any]]
) -> None:
    path = JOBS / case.file
    (job,) = migrate(path).jobs
    assert (job.runtime if not job.generated_because else "generated") == case.runtime, job.generated_because
    assert tuple(loss.path for loss in job.losses) == case.lost, [str(loss) for loss in job.losses]
    assert_makes_the_pods_v1_made(path, job, v1_answers)
