"""Kueue v0.17.0's controller manager (sigs.k8s.io/kueue/cmd/kueue, built by tools/bootstrap-cluster),
with the JobSet integration (files/kueue-integrations.yaml): JobSets labelled kueue.x-k8s.io/queue-name
are suspended on create by its webhook, queued as Workloads, and started (with the admitted flavor's
nodeSelector and tolerations) when their ClusterQueue has quota. JobSets without the label are left
alone. When the Trainer controller runs (`up --trainer-controller`), its TrainJob integration too
(files/kueue-integrations-trainjob.yaml, webhooks in files/kueue-trainjob-webhooks.yaml), as in a
cluster with Kubeflow Trainer: queued TrainJobs are suspended, admitted and unsuspended. No ResourceFlavor, ClusterQueue or LocalQueue is created: the tests make their own.

Its webhooks are served on loopback with the cluster's webhook cert and registered from
files/kueue-webhooks.yaml once it is ready. Its CRDs come from the module (bootstrap-cluster copies
them to share/kueue/crd) and are installed right before it starts: it indexes Workloads and queues
at start and exits when their kinds are unknown (`after_crds`).

METRICS_CERTS: without internal cert management, Kueue's main reads the metrics server's cert from
the fixed path /etc/kueue/metrics/certs and exits when it is missing (there is no flag or setting).
Rather than writing to the machine's /etc, Kueue runs in a mount namespace of its own (util-linux
`unshare`, as root or in a user namespace) where DIR/run/kueue-etc, holding only that cert (a link
to its webhook cert), is mounted over /etc. A static Go binary talking to 127.0.0.1 reads nothing
else there. `unshare --fork` stays the parent, so the pid file's process is `unshare`; stopping its
process group stops Kueue."""

from __future__ import annotations

import base64
import os
import shutil
from pathlib import Path

from .. import templates
from ..context import Cluster
from ..errors import ClusterError
from ..pki import webhook_cert_dir
from ..probes import http_ok
from .base import Check, Component

METRICS_CERTS = Path("kueue/metrics/certs")  # under /etc, fixed in Kueue's cmd/kueue/main.go
MOUNT_ETC = 'mount --bind "$1" /etc && shift && exec "$@"'  # sh -c script: $1 the dir, then the command
INTEGRATIONS, TRAINJOB_INTEGRATIONS = "kueue-integrations.yaml", "kueue-integrations-trainjob.yaml"
TRAINJOB_WEBHOOKS = "kueue-trainjob-webhooks.yaml"
TRAINER_CONTROLLER = "trainer_controller"  # the opt-in component (components/__init__.py OPTIONAL)
PROBE = "kueue-probe.yaml"  # a JobSet with a queue label: created with --dry-run=server until it comes back suspended


class Kueue(Component):
    name = binary = "kueue"
    ports = ("kueue_webhook", "kueue_metrics", "kueue_health")
    serves_webhooks = True
    after_crds = True

    def configure(self, cluster: Cluster) -> None:
        config = cluster.layout.config
        (config / "kueue.yaml").write_text(templates.render(
            "kueue.yaml", webhook_port=cluster.ports["kueue_webhook"],
            cert_dir=webhook_cert_dir(cluster.layout, self.name),
            metrics_port=cluster.ports["kueue_metrics"], health_port=cluster.ports["kueue_health"])
            + templates.text(TRAINJOB_INTEGRATIONS if with_trainjobs(cluster) else INTEGRATIONS))
        ca = base64.b64encode((cluster.layout.pki / "webhook-ca.crt").read_bytes()).decode()
        for name in ("kueue-webhooks.yaml", *([TRAINJOB_WEBHOOKS] if with_trainjobs(cluster) else [])):
            (config / name).write_text(templates.render(name, webhook=cluster.url("kueue_webhook", "https"), ca_bundle=ca))
        certs = self.etc(cluster) / METRICS_CERTS
        certs.parent.mkdir(parents=True, exist_ok=True)
        if not certs.is_symlink():
            certs.symlink_to(webhook_cert_dir(cluster.layout, self.name))

    def etc(self, cluster: Cluster) -> Path:
        """What Kueue sees as /etc (METRICS_CERTS in the module docstring)."""
        return cluster.layout.run / "kueue-etc"

    def args(self, cluster: Cluster) -> list[str]:
        return [f"--config={cluster.layout.config / 'kueue.yaml'}", f"--kubeconfig={cluster.layout.kubeconfig}",
                "--zap-devel=false", "--zap-log-level=info"]

    def command(self, cluster: Cluster) -> list[str]:
        unshare = shutil.which("unshare")
        if not unshare:
            raise ClusterError("Kueue needs util-linux `unshare` (a mount namespace for its metrics cert path)")
        namespaces = ["--mount"] if os.geteuid() == 0 else ["--user", "--map-root-user", "--mount"]
        return [unshare, *namespaces, "--fork", "--kill-child", "sh", "-c", MOUNT_ETC, "sh",
                str(self.etc(cluster)), cluster.binary(self.binary), *self.args(cluster)]

    def before_start(self, cluster: Cluster) -> None:
        crds = sorted((cluster.bin_dir.parent / "share" / "kueue" / "crd").glob("*.yaml"))
        if not crds:
            raise ClusterError(f"no Kueue CRDs under {cluster.bin_dir.parent}/share/kueue/crd; run tools/bootstrap-cluster")
        names = []
        for path in crds:
            names += cluster.kubectl.apply("-f", str(path), "-o", "name").stdout.split()
        # Retried: kubectl wait fails at once ("status.conditions accessor error") on a CRD just created,
        # before the API server has written any condition.
        cluster.wait("Kueue's CRDs to be Established", lambda: cluster.kubectl.ok(
            "wait", "--for=condition=Established", *names, "--timeout=10s"))

    def health(self, cluster: Cluster) -> Check:
        url = f"{cluster.url('kueue_health')}/healthz"
        return f"{self.name} /healthz", lambda: http_ok(url)

    def settle(self, cluster: Cluster) -> None:
        # readyz: the webhook server listens (Kueue's own check).
        cluster.wait("Kueue", lambda: http_ok(f"{cluster.url('kueue_health')}/readyz"), self.name)
        cluster.kubectl.apply("-f", str(cluster.layout.config / "kueue-webhooks.yaml"))
        if with_trainjobs(cluster):
            cluster.kubectl.apply("-f", str(cluster.layout.config / TRAINJOB_WEBHOOKS))
        probe = str(templates.FILES / PROBE)
        cluster.wait("the Kueue webhooks", lambda: suspended_by_kueue(cluster, probe), self.name)


def with_trainjobs(cluster: Cluster) -> bool:
    """Kueue's TrainJob integration is on when the Trainer controller runs (files/kueue-integrations-trainjob.yaml)."""
    return TRAINER_CONTROLLER in cluster.optional


def suspended_by_kueue(cluster: Cluster, probe: str) -> bool:
    """The probe JobSet (queue label, suspend unset) comes back from a server dry run suspended: Kueue's
    JobSet webhook answered (JobSet's own webhook leaves suspend alone)."""
    result = cluster.kubectl("create", "--dry-run=server", "-f", probe, "-o", "jsonpath={.spec.suspend}", check=False)
    return result.returncode == 0 and result.stdout.strip() == "true"


COMPONENT = Kueue()
