"""kube-controller-manager: every default controller (Job, garbage collector, namespace, service
account, node lifecycle, PV binder, ...) and the hostPath provisioner."""

from __future__ import annotations

from ..context import Cluster
from ..probes import http_ok_insecure
from .base import Check, Component


class ControllerManager(Component):
    name = binary = "kube-controller-manager"
    ports = ("controller_manager",)

    def args(self, cluster: Cluster) -> list[str]:
        kubeconfig, pki = cluster.layout.kubeconfig, cluster.layout.pki
        return [
            f"--kubeconfig={kubeconfig}", f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}", "--bind-address=127.0.0.1",
            f"--secure-port={cluster.ports['controller_manager']}",
            f"--cert-dir={cluster.layout.run / 'controller-manager'}", "--leader-elect=false",
            f"--service-account-private-key-file={pki / 'sa.key'}", f"--root-ca-file={pki / 'ca.crt'}",
            "--use-service-account-credentials=false", "--kube-api-qps=100", "--kube-api-burst=200",
            # PVCs (the initializers' volumeClaimPolicies) get hostPath PVs under /tmp/hostpath_pv/<uid>,
            # deleted with the PV; kwok runs no containers, so nothing is ever mounted.
            "--enable-hostpath-provisioner=true", "--profiling=false",
        ]

    def health(self, cluster: Cluster) -> Check:
        url = f"{cluster.url('controller_manager', 'https')}/healthz"
        return f"{self.name} /healthz", lambda: http_ok_insecure(url)

    def settle(self, cluster: Cluster) -> None:
        # Its service account controller creates `default` in every namespace; Pods need it.
        cluster.wait("the default service account",
                     lambda: cluster.kubectl.ok("get", "serviceaccount", "default", "-n", "default"), self.name)


COMPONENT = ControllerManager()
