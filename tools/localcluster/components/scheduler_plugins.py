"""The coscheduling scheduler: kube-scheduler of sigs.k8s.io/scheduler-plugins (cmd/scheduler), one
profile `scheduler-plugins-scheduler` with the Coscheduling plugin (files/scheduler-plugins.yaml).
Pods naming it and labelled scheduling.x-k8s.io/pod-group are bound only as a whole PodGroup: none
until `minMember` of them fit at once. It runs beside kube-scheduler (which keeps default-scheduler
and the plain `volcano` profile) with the admin kubeconfig, so it needs no RBAC of its own.

Its plugin watches PodGroups, a CRD that `up` installs after the components started: the scheduler
waits for that informer to sync before it schedules anything, so `settle` waits until it is ready.

UNSCHEDULABLE_RETRY: Pods that Coscheduling itself rejected (at Permit: timed out, or rejected with
their group) are requeued only by Pod and PodGroup events, not by a new node. A group whose every
Pod ended so (a race of the asynchronous rejections, seen in about half of the tries with 4 Pods on
3 nodes) waits for kube-scheduler's periodic retry of unschedulable Pods: 5 min by default, 30 s
here (the deprecated flag still exists in 1.35), so that added capacity binds a gang in under a
minute in the worst case."""

from __future__ import annotations

from .. import templates
from ..context import Cluster
from ..probes import http_ok_insecure
from .base import Check, Component

SCHEDULER_NAME = "scheduler-plugins-scheduler"  # the profile (the Pods' spec.schedulerName)
UNSCHEDULABLE_RETRY = "30s"  # --pod-max-in-unschedulable-pods-duration (kube-scheduler's default: 5m)


class SchedulerPlugins(Component):
    name = binary = "scheduler-plugins"
    ports = ("scheduler_plugins",)

    def configure(self, cluster: Cluster) -> None:
        config = templates.render("scheduler-plugins.yaml", kubeconfig=cluster.layout.kubeconfig)
        (cluster.layout.config / "scheduler-plugins.yaml").write_text(config)

    def args(self, cluster: Cluster) -> list[str]:
        kubeconfig = cluster.layout.kubeconfig
        return [
            f"--config={cluster.layout.config / 'scheduler-plugins.yaml'}",
            f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
            "--bind-address=127.0.0.1", f"--secure-port={cluster.ports['scheduler_plugins']}",
            f"--cert-dir={cluster.layout.run / 'scheduler-plugins'}", "--profiling=false",
            f"--pod-max-in-unschedulable-pods-duration={UNSCHEDULABLE_RETRY}",
        ]

    def health(self, cluster: Cluster) -> Check:
        url = f"{cluster.url('scheduler_plugins', 'https')}/healthz"
        return f"{self.name} /healthz", lambda: http_ok_insecure(url)

    def settle(self, cluster: Cluster) -> None:
        url = f"{cluster.url('scheduler_plugins', 'https')}/readyz"
        cluster.wait(f"{self.name} /readyz (PodGroup informer synced)", lambda: http_ok_insecure(url), self.name)


COMPONENT = SchedulerPlugins()
