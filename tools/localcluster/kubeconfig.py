"""DIR/kubeconfig: the admin token against the API server on loopback, trusting the cluster CA."""

from __future__ import annotations

import base64

from . import templates
from .layout import Layout
from .network import LOOPBACK


def render_kubeconfig(layout: Layout, ports: dict[str, int], token: str) -> str:
    ca = base64.b64encode((layout.pki / "ca.crt").read_bytes()).decode()
    return templates.render("kubeconfig.yaml", server=f"https://{LOOPBACK}:{ports['apiserver']}", ca_data=ca,
                            token=token)


def write_kubeconfig(layout: Layout, ports: dict[str, int], token: str) -> None:
    tmp = layout.kubeconfig.with_suffix(".tmp")
    tmp.write_text(render_kubeconfig(layout, ports, token))
    tmp.chmod(0o600)
    tmp.replace(layout.kubeconfig)
