"""What the converters of Master/Worker kinds share: v2 runs every node from one pod template."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..api import constants as c
from .report import Losses
from .templates import differences, node_template, pod_restart_policy
from .v1job import ReplicaSpec, V1Job


@dataclass(frozen=True)
class OneTemplate:
    replica: ReplicaSpec  # the replica whose template every node runs: the Master's, else the Worker's
    template: dict[str, Any]  # made ready for v2 (templates.node_template)
    restart_policy: str  # the Pods' restartPolicy in v2
    nodes: int  # all replicas together

    @property
    def container_path(self) -> str:
        index = next(i for i, item in enumerate(self.template["spec"]["containers"]) if item.get("name") == c.NODE)
        return f"{self.replica.path}.template.spec.containers[{index}]"


def one_template(job: V1Job, losses: Losses, *, drop_port: bool) -> OneTemplate:
    """The Master's template for every node (rank 0 is the Master in v1 too), the Worker's where there
    is no Master; what a Worker says otherwise is reported, field by field."""
    master, worker = job.replica("Master"), job.replica("Worker")
    kept = master or worker
    assert kept is not None  # v1job: the replica specs are not empty
    template = node_template(job.rules, kept, losses, drop_port=drop_port)
    restart = pod_restart_policy(kept, losses)
    nodes = sum(replica.replicas for replica in (master, worker) if replica is not None)
    if master is not None and worker is not None and worker.replicas > 0:
        other = node_template(job.rules, worker, losses, drop_port=drop_port)
        pod_restart_policy(worker, losses, carried=False)
        why = ("differs from the Master's: v2 runs every node from one pod template, and the Master's is kept (rank 0 "
               "runs it in v1 too)")
        for path in differences(template, other, f"{worker.path}.template"):
            losses.add(path, why)
        if worker.restart_policy != kept.restart_policy:
            losses.add(f"{worker.path}.restartPolicy", f"{worker.restart_policy} {why}")
    return OneTemplate(kept, template, restart, nodes)


def spec_leftovers(job: V1Job, known: Iterable[str], losses: Losses) -> None:
    """Report the spec fields v1.8.1's API does not have (its API server pruned them)."""
    known = set(known)
    for key in job.spec:
        if key not in known:
            losses.add(f"spec.{key}", f"not a field of {job.rules.kind} in v1.8.1: the API server pruned it for v1 too")
