"""What every component of the local cluster is: one process, its flags, its health check."""

from __future__ import annotations

from collections.abc import Callable

from ..context import Cluster

Check = tuple[str, Callable[[], bool]]  # what is awaited (for messages), and the check


class Component:
    """One process `up` starts, in START_ORDER (components/__init__.py); `down` stops them in reverse.

    A subclass sets the class attributes and overrides `args`, and the hooks it needs. `up` runs,
    for every component in order: `configure` (all of them before anything starts), then `args` /
    `env` to start it, `health` (awaited at once for a `gate`, else after the rest of its run of
    non-gate components has started), and after the CRDs and nodes exist, `settle`.
    """

    name = ""  # pid file, log file, `status` line; also names its webhook cert dir
    binary = ""  # file name in the bin dir
    ports: tuple[str, ...] = ()  # the loopback ports it listens on, picked per cluster (cluster.ports[name])
    gate = False  # the next component starts only once this one is healthy
    serves_webhooks = False  # gets DIR/pki/<name>-webhook with a cert for 127.0.0.1 (pki.webhook_cert_dir)
    optional = False  # in OPTIONAL (components/__init__.py): runs only when `up` is asked for it
    after_crds = False  # started after the CRDs and nodes (its informers need the CRDs at start)

    def configure(self, cluster: Cluster) -> None:
        """Write its config files under DIR/config (the PKI and kubeconfig exist by then)."""

    def args(self, cluster: Cluster) -> list[str]:
        raise NotImplementedError

    def command(self, cluster: Cluster) -> list[str]:
        """The argv `up` starts; argv[0] is what its pid file records (the process that must stay it)."""
        return [cluster.binary(self.binary), *self.args(cluster)]

    def before_start(self, cluster: Cluster) -> None:
        """Right before its process starts (the components before it run): objects it needs at start."""

    def env(self, cluster: Cluster) -> dict[str, str]:
        """Set on top of tools/cluster's own environment."""
        return {}

    def health(self, cluster: Cluster) -> Check | None:
        return None

    def settle(self, cluster: Cluster) -> None:
        """After the CRDs and nodes: wait for what depends on them, register webhooks."""
