"""platform: the runtimes a platform team versions in code, exported for the training stacks."""

from __future__ import annotations

from typing import Any

from pulumi_kubeflow_trainer.blueprints import bundled_runtimes


def build(namespace: str = "default") -> dict[str, Any]:
    # The platform stack also writes the runtime objects, for clusters (or GitOps repos) that run the
    # upstream Trainer controller or SDK; the other stacks only use runtimes as blueprints.
    return {"runtimes": [runtime.name for runtime in bundled_runtimes()], "trainjobs": [], "deploy_runtimes": True}
