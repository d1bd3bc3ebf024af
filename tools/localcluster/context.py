"""What a component needs to know about the cluster it is part of."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .kubectl import Kubectl
from .layout import Layout
from .network import LOOPBACK
from .processes import wait_for


@dataclass
class Cluster:
    layout: Layout
    bin_dir: Path
    ports: dict[str, int]  # by the port names the components declare
    token: str  # the admin bearer token (also in the kubeconfig)
    timeout: float  # seconds for each wait
    optional: tuple[str, ...] = ()  # the opt-in components that run (components/__init__.py OPTIONAL)
    kubectl: Kubectl = field(init=False)

    def __post_init__(self) -> None:
        self.kubectl = Kubectl(self.bin_dir, self.layout.kubeconfig)

    def binary(self, name: str) -> str:
        return str(self.bin_dir / name)

    def address(self, port: str) -> str:
        """127.0.0.1:<the port named `port`>."""
        return f"{LOOPBACK}:{self.ports[port]}"

    def url(self, port: str, scheme: str = "http") -> str:
        return f"{scheme}://{self.address(port)}"

    def wait(self, what: str, check: Callable[[], bool], component: str | None = None) -> None:
        """Until `check` is true; fails early, with its log, if `component` exits meanwhile."""
        wait_for(what, check, self.timeout, self.layout, component)
