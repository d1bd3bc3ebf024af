"""kube-apiserver on loopback: TLS from the cluster CA, the admin token file, RBAC."""

from __future__ import annotations

from ..context import Cluster
from ..network import SERVICE_CIDR
from ..probes import http_ok
from .base import Check, Component


class APIServer(Component):
    name = binary = "kube-apiserver"
    ports = ("apiserver",)
    gate = True

    def args(self, cluster: Cluster) -> list[str]:
        pki = cluster.layout.pki
        return [
            f"--etcd-servers={cluster.url('etcd_client')}",
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", f"--secure-port={cluster.ports['apiserver']}",
            f"--tls-cert-file={pki / 'apiserver.crt'}", f"--tls-private-key-file={pki / 'apiserver.key'}",
            f"--client-ca-file={pki / 'ca.crt'}", f"--token-auth-file={pki / 'tokens.csv'}",
            f"--requestheader-client-ca-file={pki / 'ca.crt'}", "--requestheader-allowed-names=front-proxy-client",
            "--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
            "--authorization-mode=RBAC", "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={pki / 'sa.pub'}", f"--service-account-signing-key-file={pki / 'sa.key'}",
            f"--service-cluster-ip-range={SERVICE_CIDR}", "--allow-privileged=true",
            # 127.0.0.1 may not be the endpoint of the `kubernetes` Service (loopback endpoints are invalid).
            "--endpoint-reconciler-type=none", f"--cert-dir={cluster.layout.run / 'apiserver'}", "--profiling=false",
            # pods/log, exec: the kubelet API of a kwok node is kwok's server at its InternalIP (127.0.0.1);
            # its Hostname address (the node's name) resolves nowhere.
            "--kubelet-preferred-address-types=InternalIP",
        ]

    def health(self, cluster: Cluster) -> Check:
        url = f"{cluster.url('apiserver', 'https')}/readyz"
        return "kube-apiserver /readyz", lambda: http_ok(url, cluster.token, cluster.layout.pki / "ca.crt")


COMPONENT = APIServer()
