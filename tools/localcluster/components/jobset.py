"""The JobSet controller, its webhooks served on loopback with the webhook CA's cert, registered
from files/jobset-webhooks.yaml once it is ready."""

from __future__ import annotations

import base64

from .. import templates
from ..context import Cluster
from ..pki import webhook_cert_dir
from ..probes import http_ok
from .base import Component


class JobSet(Component):
    name = binary = "jobset"
    ports = ("jobset_webhook", "jobset_metrics", "jobset_health")
    serves_webhooks = True

    def configure(self, cluster: Cluster) -> None:
        config = cluster.layout.config
        (config / "jobset.yaml").write_text(self.config(cluster))
        (config / "jobset-webhooks.yaml").write_text(self.webhooks(cluster))

    def config(self, cluster: Cluster) -> str:
        return templates.render("jobset.yaml", webhook_port=cluster.ports["jobset_webhook"],
                                cert_dir=webhook_cert_dir(cluster.layout, self.name),
                                metrics_port=cluster.ports["jobset_metrics"], health_port=cluster.ports["jobset_health"])

    def webhooks(self, cluster: Cluster) -> str:
        ca = base64.b64encode((cluster.layout.pki / "webhook-ca.crt").read_bytes()).decode()
        return templates.render("jobset-webhooks.yaml", webhook=cluster.url("jobset_webhook", "https"), ca_bundle=ca)

    def args(self, cluster: Cluster) -> list[str]:
        return [f"--config={cluster.layout.config / 'jobset.yaml'}", f"--kubeconfig={cluster.layout.kubeconfig}",
                "--zap-devel=false", "--zap-log-level=info"]

    def settle(self, cluster: Cluster) -> None:
        cluster.wait("the JobSet controller", lambda: http_ok(f"{cluster.url('jobset_health')}/readyz"), self.name)
        cluster.kubectl.apply("-f", str(cluster.layout.config / "jobset-webhooks.yaml"))
        probe = str(templates.FILES / "jobset-probe.yaml")
        cluster.wait("the JobSet webhooks", lambda: cluster.kubectl.ok("create", "--dry-run=server", "-f", probe),
                     self.name)


COMPONENT = JobSet()
