"""The Kubeflow Trainer controller manager (upstream's cmd/trainer-controller-manager v2.3.0), opt-in:
`tools/cluster up --trainer-controller`. It reconciles TrainJob objects into JobSets (and PodGroups,
MPI Secrets and ConfigMaps) as in a cluster that runs Kubeflow Trainer; without it TrainJobs are
accepted and never acted on.

The binary is not in the bin dir of tools/bootstrap-cluster: tools/build-oracle builds it in the
oracle's Go module (same upstream version, warm caches), or $PULUMI_KFT_TRAINER_CONTROLLER names it.

Its webhooks (TrainJob defaulter and validator, runtime validators) are served on loopback with the
cluster's webhook cert. Upstream's controller-runtime webhook server has no certDir setting in the
Trainer configuration: it reads os.TempDir()/k8s-webhook-server/serving-certs, so the process gets
TMPDIR=DIR/run/trainer-controller-tmp with that path linked to pki/trainer-controller-webhook.

It starts after the CRDs are installed (`after_crds`): its runtime registry indexes TrainJobs and
the runtimes at start and exits when their kinds are unknown."""

from __future__ import annotations

import base64
import os
import subprocess
from functools import cached_property
from pathlib import Path

from .. import templates
from ..context import Cluster
from ..errors import ClusterError, log
from ..layout import REPO
from ..pki import webhook_cert_dir
from ..probes import http_ok
from .base import Check, Component

BINARY_ENV = "PULUMI_KFT_TRAINER_CONTROLLER"
# A dry-run TrainJob whose runtime does not exist: only an answering validating webhook refuses it.
WEBHOOK_REFUSAL = 'admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request'


class TrainerController(Component):
    name = "trainer-controller"
    ports = ("trainer_webhook", "trainer_metrics", "trainer_health")
    serves_webhooks = True
    optional = True
    after_crds = True

    @cached_property
    def binary(self) -> str:  # type: ignore[override]
        """An absolute path (the bin dir joined with it stays it): $PULUMI_KFT_TRAINER_CONTROLLER, else
        what tools/build-oracle --trainer-controller builds (warm: well under a second)."""
        explicit = os.environ.get(BINARY_ENV)
        if explicit:
            return str(Path(explicit).resolve())
        log("running tools/build-oracle --trainer-controller (builds it on first use; warm: well under a second)")
        result = subprocess.run([str(REPO / "tools" / "build-oracle"), "--trainer-controller"],
                                stdout=subprocess.PIPE, text=True)
        if result.returncode != 0:
            raise ClusterError("tools/build-oracle --trainer-controller failed (its log is above)")
        return result.stdout.strip().splitlines()[-1]

    def configure(self, cluster: Cluster) -> None:
        config = cluster.layout.config
        (config / "trainer-controller.yaml").write_text(templates.render(
            "trainer-controller.yaml", webhook_port=cluster.ports["trainer_webhook"],
            metrics_port=cluster.ports["trainer_metrics"], health_port=cluster.ports["trainer_health"]))
        ca = base64.b64encode((cluster.layout.pki / "webhook-ca.crt").read_bytes()).decode()
        (config / "trainer-controller-webhooks.yaml").write_text(templates.render(
            "trainer-controller-webhooks.yaml", webhook=cluster.url("trainer_webhook", "https"), ca_bundle=ca))
        serving_certs = self.tmpdir(cluster) / "k8s-webhook-server" / "serving-certs"
        serving_certs.parent.mkdir(parents=True, exist_ok=True)
        if not serving_certs.is_symlink():
            serving_certs.symlink_to(webhook_cert_dir(cluster.layout, self.name))

    def tmpdir(self, cluster: Cluster) -> Path:
        return cluster.layout.run / "trainer-controller-tmp"

    def args(self, cluster: Cluster) -> list[str]:
        return [f"--config={cluster.layout.config / 'trainer-controller.yaml'}",
                f"--kubeconfig={cluster.layout.kubeconfig}", "--zap-devel=false", "--zap-log-level=info"]

    def env(self, cluster: Cluster) -> dict[str, str]:
        return {"TMPDIR": str(self.tmpdir(cluster))}

    def health(self, cluster: Cluster) -> Check:
        url = f"{cluster.url('trainer_health')}/healthz"
        return f"{self.name} /healthz", lambda: http_ok(url)

    def settle(self, cluster: Cluster) -> None:
        # readyz: the webhook server listens (upstream's check, after its certs are "ready").
        cluster.wait("the Trainer controller", lambda: http_ok(f"{cluster.url('trainer_health')}/readyz"), self.name)
        cluster.kubectl.apply("-f", str(cluster.layout.config / "trainer-controller-webhooks.yaml"))
        probe = str(templates.FILES / "trainer-probe.yaml")
        cluster.wait("the Trainer webhooks", lambda: WEBHOOK_REFUSAL in cluster.kubectl(
            "create", "--dry-run=server", "-f", probe, check=False).stderr, self.name)


COMPONENT = TrainerController()
