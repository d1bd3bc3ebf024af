"""kube-scheduler with two profiles (files/scheduler.yaml): default-scheduler, and a plain profile
named volcano, so Pods naming the Volcano scheduler are bound (one by one: no gang semantics). Pods
naming scheduler-plugins-scheduler are the coscheduling scheduler's (scheduler_plugins.py)."""

from __future__ import annotations

from .. import templates
from ..context import Cluster
from ..probes import http_ok_insecure
from .base import Check, Component


class Scheduler(Component):
    name = binary = "kube-scheduler"
    ports = ("scheduler",)

    def configure(self, cluster: Cluster) -> None:
        config = templates.render("scheduler.yaml", kubeconfig=cluster.layout.kubeconfig)
        (cluster.layout.config / "scheduler.yaml").write_text(config)

    def args(self, cluster: Cluster) -> list[str]:
        kubeconfig = cluster.layout.kubeconfig
        return [
            f"--config={cluster.layout.config / 'scheduler.yaml'}",
            f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
            "--bind-address=127.0.0.1", f"--secure-port={cluster.ports['scheduler']}",
            f"--cert-dir={cluster.layout.run / 'scheduler'}", "--profiling=false",
        ]

    def health(self, cluster: Cluster) -> Check:
        url = f"{cluster.url('scheduler', 'https')}/healthz"
        return f"{self.name} /healthz", lambda: http_ok_insecure(url)


COMPONENT = Scheduler()
