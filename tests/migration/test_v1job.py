"""What v1's own admission refuses, migrate refuses too, at the same field; and v1's oracle confirms
v1 refuses each of these jobs (tools/oracle-v1 runs the webhook, or MPI's ValidateV1MpiJobSpec)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from pulumi_kubeflow_trainer import TrainJobInvalidError
from pulumi_kubeflow_trainer.migration import migrate

from ..builders import make_v1_job
from .oracle_v1 import answers


@dataclass(frozen=True)
class Refused:
    name: str
    manifest: dict[str, Any]
    path: str
    says: str
    v1_refuses: bool = True  # False: a rule of v1's CRD schema, which the oracle does not run, or of v2's


CASES = (
    Refused("a Master with two replicas is refused", make_v1_job().replica("Master", replicas=2).build(),
            "spec.pytorchReplicaSpecs.Master.replicas", "must be 1"),
    Refused("a Master without replicas is refused, as the webhook wants 1 written",
            make_v1_job().build() | {"spec": {"pytorchReplicaSpecs": {"Master": {"template": {"spec": {"containers": [
                {"name": "pytorch", "image": "train:1"}]}}}}}},
            "spec.pytorchReplicaSpecs.Master.replicas", "must be 1"),
    Refused("a replica type in another case is refused", make_v1_job().build() | {"spec": {"pytorchReplicaSpecs": {
        "worker": {"replicas": 1, "template": {"spec": {"containers": [{"name": "pytorch", "image": "train:1"}]}}}}}},
            "spec.pytorchReplicaSpecs.worker", 'supported values: "Master", "Worker"'),
    Refused("a PyTorchJob without a container named pytorch is refused", make_v1_job().container(name="trainer").build(),
            "spec.pytorchReplicaSpecs.Master.template.spec.containers", "with name pytorch"),
    Refused("a PaddleJob without a container named paddle is refused", make_v1_job("PaddleJob").container(name="x").build(),
            "spec.paddleReplicaSpecs.Worker.template.spec.containers", "with name paddle"),
    Refused("a container without an image is refused", make_v1_job().container(image="").build(),
            "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].image", "Required value"),
    Refused("a replica without containers is refused", make_v1_job().pod("Worker", containers=[]).build(),
            "spec.pytorchReplicaSpecs.Worker.template.spec.containers", "must be specified"),
    Refused("an XGBoostJob without a Master is refused", make_v1_job("XGBoostJob").without("Master").build(),
            "spec.xgbReplicaSpecs.Master", "must be present"),
    Refused("an MPIJob without a Launcher is refused", make_v1_job("MPIJob").without("Launcher").build(),
            "spec.mpiReplicaSpecs.Launcher", "must be present"),
    Refused("an MPIJob with two launchers is refused", make_v1_job("MPIJob").replica("Launcher", replicas=2).build(),
            "spec.mpiReplicaSpecs.Launcher.replicas", "must be 1"),
    Refused("a name that is no DNS-1035 label is refused", make_v1_job(name="Job.1").build(),
            "metadata.name", "DNS-1035 label"),
    Refused("replicas that are not a number are refused", make_v1_job().replica("Worker", replicas="2").build(),
            "spec.pytorchReplicaSpecs.Worker.replicas", "must be an integer"),
    Refused("nprocPerNode and elasticPolicy.nProcPerNode together are refused",
            make_v1_job().spec(nprocPerNode="2", elasticPolicy={"nProcPerNode": 2}).build(),
            "spec.elasticPolicy.nProcPerNode", "must not be used with spec.nprocPerNode"),
    Refused("a restartPolicy outside v1's enum is refused", make_v1_job().replica("Worker", restartPolicy="Sometimes").build(),
            "spec.pytorchReplicaSpecs.Worker.restartPolicy", 'supported values: "Always"', v1_refuses=False),
    Refused("an MPIJob whose name v2 cannot take is refused", make_v1_job("MPIJob", name="mpi.job").build(),
            "metadata.name", "DNS-1035 label", v1_refuses=False),
)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_a_job_v1_refuses_is_refused_at_its_field(case: Refused, tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(case.manifest))
    with pytest.raises(TrainJobInvalidError) as refused:
        migrate(path)
    matching = [error for error in refused.value.errors if error.path == case.path]
    assert matching and case.says in matching[0].message, [error.describe() for error in refused.value.errors]
    assert matching[0].source.startswith(f"{path}#1 ({case.manifest['kind']}/")


def test_v1s_own_admission_refuses_the_same_jobs(oracle_v1: Path, tmp_path: Path) -> None:
    files = []
    for index, case in enumerate(CASES):
        files.append(tmp_path / f"{index}.yaml")
        files[-1].write_text(yaml.safe_dump(case.manifest))
    answered = answers(oracle_v1, files)
    accepted = [case.name for index, case in enumerate(CASES)
                if case.v1_refuses and not answered[(str(files[index]), 1)].get("error")]
    assert not accepted, f"v1 accepts: {accepted}"
