"""etcd: one member, data in DIR/etcd, no fsync (a test cluster only)."""

from __future__ import annotations

from ..context import Cluster
from ..probes import http_ok
from .base import Check, Component


class Etcd(Component):
    name = binary = "etcd"
    ports = ("etcd_client", "etcd_peer")
    gate = True

    def args(self, cluster: Cluster) -> list[str]:
        client, peer = cluster.url("etcd_client"), cluster.url("etcd_peer")
        return [
            "--name=default", f"--data-dir={cluster.layout.etcd}",
            f"--listen-client-urls={client}", f"--advertise-client-urls={client}",
            f"--listen-peer-urls={peer}", f"--initial-advertise-peer-urls={peer}",
            f"--initial-cluster=default={peer}", "--unsafe-no-fsync=true", "--log-level=warn",
        ]

    def health(self, cluster: Cluster) -> Check:
        return "etcd", lambda: http_ok(f"{cluster.url('etcd_client')}/health")


COMPONENT = Etcd()
