"""kwok: runs the fake nodes labelled kwok.x-k8s.io/node=fake and their Pods, by the Stages of
files/kwok.yaml (Running when bound, Succeeded about 1 s later if owned by a Job, Failed instead
when marked with FAIL_KEY or FAIL_ENV, OOMKilled with OOM_ENV, stuck pulling its image with
IMAGE_PULL_ENV, Running until deleted with KEEP_RUNNING_ENV), and serves their logs
(files/kwok-logs.yaml) as a kubelet does: on the node port, over TLS (the webhook cert, issued for
127.0.0.1), where the API server asks for `pods/log`."""

from __future__ import annotations

import shutil

from .. import templates
from ..context import Cluster
from ..nodes import NODE_SELECTOR
from .base import Component

POD_CIDR = "10.244.0.1/16"  # only ever written into Pod status by kwok; nothing listens there
FAIL_KEY = "kwok.kubeflow-trainer.test/fail"  # label or annotation, "true": the Pod fails
FAIL_ENV = "KWOK_FAIL"  # a container with this variable (any value): the Pod fails
OOM_ENV = "KWOK_OOM"  # ... the Pod fails, its containers OOMKilled (exit code 137)
IMAGE_PULL_ENV = "KWOK_IMAGE_PULL"  # ... the Pod stays Pending, its containers in ErrImagePull
KEEP_RUNNING_ENV = "KWOK_KEEP_RUNNING"  # ... the Pod stays Running (a training in progress)
LOG_FILES = ("kwok-pod.log", "kwok-pod-previous.log")  # files/, copied to DIR/config/


class Kwok(Component):
    name = binary = "kwok"
    ports = ("kwok",)

    def configure(self, cluster: Cluster) -> None:
        config = cluster.layout.config
        shutil.copyfile(templates.FILES / "kwok.yaml", config / "kwok.yaml")
        for name in LOG_FILES:
            shutil.copyfile(templates.FILES / name, config / name)
        logs = templates.render("kwok-logs.yaml", logs_file=config / LOG_FILES[0], previous_logs_file=config / LOG_FILES[1])
        (config / "kwok-logs.yaml").write_text(logs)

    def args(self, cluster: Cluster) -> list[str]:
        return [
            f"--kubeconfig={cluster.layout.kubeconfig}", f"--config={cluster.layout.config / 'kwok.yaml'}",
            f"--config={cluster.layout.config / 'kwok-logs.yaml'}",
            f"--tls-cert-file={cluster.layout.pki / 'webhook.crt'}", f"--tls-private-key-file={cluster.layout.pki / 'webhook.key'}",
            "--manage-all-nodes=false", f"--manage-nodes-with-label-selector={NODE_SELECTOR}",
            f"--cidr={POD_CIDR}", "--node-ip=127.0.0.1", f"--node-port={cluster.ports['kwok']}",
            f"--server-address={cluster.address('kwok')}",
        ]

    def env(self, cluster: Cluster) -> dict[str, str]:
        return {"KWOK_WORKDIR": str(cluster.layout.run / "kwok")}


COMPONENT = Kwok()
