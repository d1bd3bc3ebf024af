"""platform: the runtimes a platform team versions in code, exported for the training stacks."""

from __future__ import annotations

from typing import Any

from pulumi_kubeflow_trainer.blueprints import bundled_runtimes


def build(namespace: str = "default") -> dict[str, Any]:
    return {"runtimes": [runtime.name for runtime in bundled_runtimes()], "trainjobs": []}
