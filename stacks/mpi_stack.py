"""mpi: DeepSpeed over OpenMPI: a launcher that is also a node, plus two sshd nodes, 4 GPUs each."""

from __future__ import annotations

from typing import Any


def build(namespace: str = "default") -> dict[str, Any]:
    trainjob = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "deepspeed-t5", "namespace": namespace},
        "spec": {
            "runtimeRef": {"name": "deepspeed-distributed"},
            "trainer": {
                "numNodes": 3,
                "command": ["mpirun", "--allow-run-as-root", "python3", "/home/mpiuser/train_t5.py"],
                "resourcesPerNode": {"limits": {"nvidia.com/gpu": 4}},
            },
        },
    }
    return {"runtimes": ["deepspeed-distributed"], "trainjobs": [trainjob]}
