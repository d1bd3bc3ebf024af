"""kwok: runs the fake nodes labelled kwok.x-k8s.io/node=fake and their Pods, by the Stages of
files/kwok.yaml (Running when bound, Succeeded about 1 s later if owned by a Job, Failed instead
when marked with FAIL_KEY or FAIL_ENV)."""

from __future__ import annotations

import shutil

from .. import templates
from ..context import Cluster
from ..nodes import NODE_SELECTOR
from .base import Component

POD_CIDR = "10.244.0.1/16"  # only ever written into Pod status by kwok; nothing listens there
FAIL_KEY = "kwok.kubeflow-trainer.test/fail"  # label or annotation, "true": the Pod fails
FAIL_ENV = "KWOK_FAIL"  # a container with this variable (any value): the Pod fails


class Kwok(Component):
    name = binary = "kwok"
    ports = ("kwok",)

    def configure(self, cluster: Cluster) -> None:
        shutil.copyfile(templates.FILES / "kwok.yaml", cluster.layout.config / "kwok.yaml")

    def args(self, cluster: Cluster) -> list[str]:
        return [
            f"--kubeconfig={cluster.layout.kubeconfig}", f"--config={cluster.layout.config / 'kwok.yaml'}",
            "--manage-all-nodes=false", f"--manage-nodes-with-label-selector={NODE_SELECTOR}",
            f"--cidr={POD_CIDR}", "--node-ip=127.0.0.1", f"--node-port={cluster.ports['kwok']}",
            f"--server-address={cluster.address('kwok')}",
        ]

    def env(self, cluster: Cluster) -> dict[str, str]:
        return {"KWOK_WORKDIR": str(cluster.layout.run / "kwok")}


COMPONENT = Kwok()
