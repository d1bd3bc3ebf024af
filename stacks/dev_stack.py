"""dev: the torch-distributed quickstart, two CPU nodes running a DDP smoke test with torchrun."""

from __future__ import annotations

from typing import Any

TRAIN_SCRIPT = """
import torch, torch.distributed as dist
dist.init_process_group("gloo")
value = torch.ones(1) * dist.get_rank()
dist.all_reduce(value)
print(f"rank {dist.get_rank()} of {dist.get_world_size()}: sum of ranks = {value.item()}")
dist.destroy_process_group()
""".strip()


def build(namespace: str = "default") -> dict[str, Any]:
    """The runtime (bundled, by name) and the TrainJob manifest, plain data for tests and the program."""
    trainjob = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "torch-quickstart", "namespace": namespace},
        "spec": {
            "runtimeRef": {"name": "torch-distributed"},
            "trainer": {
                "numNodes": 2,
                # A quoted heredoc: bash expands nothing inside the Python source.
                "command": ["bash", "-c", f"cat > /tmp/ddp_check.py <<'PY'\n{TRAIN_SCRIPT}\nPY\nexec torchrun /tmp/ddp_check.py"],
                "resourcesPerNode": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}},
            },
        },
    }
    return {"runtimes": ["torch-distributed"], "trainjobs": [trainjob]}
