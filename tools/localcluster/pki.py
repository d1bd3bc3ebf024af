"""The cluster's keys and certificates, made with `openssl` under DIR/pki (mode 0700, files 0600).

    ca.crt/key          cluster CA: signs apiserver.crt; kubeconfig and clients trust it
    apiserver.crt/key   kube-apiserver's serving cert (loopback, the `kubernetes` Service names)
    webhook-ca.crt/key  a second CA, only for the webhook servers (the caBundle of their configurations)
    webhook.crt/key     serving cert for webhooks on 127.0.0.1; copied to <server>-webhook/tls.{crt,key}
    sa.key/pub          service-account token signing key
    tokens.csv          the admin bearer token (group system:masters)

Idempotent: whatever exists is kept, so a restarted cluster keeps its certificates and token.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
from pathlib import Path

from .errors import ClusterError
from .layout import Layout
from .network import LOOPBACK, SERVICE_IP

APISERVER_SANS = [
    f"IP:{LOOPBACK}", f"IP:{SERVICE_IP}", "DNS:localhost", "DNS:kubernetes", "DNS:kubernetes.default",
    "DNS:kubernetes.default.svc", "DNS:kubernetes.default.svc.cluster.local",
]
WEBHOOK_SANS = [f"IP:{LOOPBACK}", "DNS:localhost"]
ADMIN = "kubeflow-trainer-admin"


def openssl(*args: str, cwd: Path) -> None:
    result = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise ClusterError(f"openssl {' '.join(args)} failed: {result.stderr.strip()}")


def make_ca(pki: Path, name: str, subject: str) -> None:
    if (pki / f"{name}.crt").exists():
        return
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "3650",
            "-keyout", f"{name}.key", "-out", f"{name}.crt", "-subj", f"/CN={subject}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            cwd=pki)


def make_serving_cert(pki: Path, name: str, ca: str, subject: str, sans: list[str]) -> None:
    if (pki / f"{name}.crt").exists():
        return
    ext = pki / f"{name}.ext"
    ext.write_text(
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
        f"extendedKeyUsage=serverAuth\nsubjectAltName={','.join(sans)}\n"
    )
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
            "-subj", f"/CN={subject}", cwd=pki)
    openssl("x509", "-req", "-sha256", "-days", "3650", "-in", f"{name}.csr", "-CA", f"{ca}.crt",
            "-CAkey", f"{ca}.key", "-CAcreateserial", "-out", f"{name}.crt", "-extfile", ext.name, cwd=pki)


def webhook_cert_dir(layout: Layout, server: str) -> Path:
    """DIR/pki/<server>-webhook: the certDir of a controller-runtime webhook server (tls.crt, tls.key)."""
    return layout.pki / f"{server}-webhook"


def _install_webhook_cert(layout: Layout, server: str) -> None:
    certs = webhook_cert_dir(layout, server)
    certs.mkdir(exist_ok=True)
    shutil.copy(layout.pki / "webhook.crt", certs / "tls.crt")
    shutil.copy(layout.pki / "webhook.key", certs / "tls.key")


def make_pki(layout: Layout, webhook_servers: tuple[str, ...]) -> str:
    """Everything in the module docstring, with a certDir per webhook server (a component name);
    returns the admin token."""
    pki = layout.pki
    make_ca(pki, "ca", "kubeflow-trainer-local-ca")
    make_serving_cert(pki, "apiserver", "ca", "kube-apiserver", APISERVER_SANS)
    make_ca(pki, "webhook-ca", "kubeflow-trainer-local-webhook-ca")
    make_serving_cert(pki, "webhook", "webhook-ca", "jobset-webhook", WEBHOOK_SANS)
    for server in webhook_servers:
        _install_webhook_cert(layout, server)
    if not (pki / "sa.key").exists():
        openssl("genrsa", "-out", "sa.key", "2048", cwd=pki)
        openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=pki)
    token_file = pki / "tokens.csv"
    if not token_file.exists():
        token_file.write_text(f'{secrets.token_hex(24)},{ADMIN},{ADMIN},"system:masters"\n')
    for path in pki.iterdir():
        if path.is_file():
            path.chmod(0o600)
    return read_token(layout)


def read_token(layout: Layout) -> str:
    return (layout.pki / "tokens.csv").read_text().split(",", 1)[0]
