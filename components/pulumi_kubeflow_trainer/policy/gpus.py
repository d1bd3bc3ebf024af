"""max-gpus-per-trainjob, max-gpus-per-namespace and gpu-trainjobs-need-a-queue: GPUs as rendered.

A workload's GPUs are, for each replicated job, the effective pod request of the configured extended
resources (`resourceNames`) times its pods (replicas x parallelism): for a torch TrainJob, the GPUs
per node times numNodes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..api import constants as c
from .inventory import UNKNOWN_NAMESPACE, Inventory, Violation, Workload, is_unknown, plural, unjudged
from .pods import asks, per_pod

PER_TRAINJOB = "max-gpus-per-trainjob"
PER_NAMESPACE = "max-gpus-per-namespace"
NEEDS_QUEUE = "gpu-trainjobs-need-a-queue"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


@dataclass(frozen=True)
class GpuUse:
    """The GPUs of one replicated job: `per_pod` on each of `pods` pods, asked for by `fields`."""

    job: str
    per_pod: int
    pods: int
    fields: tuple[str, ...]

    @property
    def total(self) -> int:
        return self.per_pod * self.pods

    def __str__(self) -> str:
        unit = "node" if self.job == c.NODE else "pod"
        where = "" if self.job == c.NODE else f" of {self.job}"
        return f"{self.per_pod} per {unit} x {plural(self.pods, unit)}{where}"


def gpu_uses(workload: Workload, resource_names: Sequence[str]) -> list[GpuUse]:
    """The replicated jobs that ask for GPUs; a job whose pod count is not known yet counts none."""
    uses = []
    for template in workload.pods:
        found = asks(template.spec, template.path, resource_names)
        amount = per_pod(found)
        if amount and template.pods:
            uses.append(GpuUse(template.job, amount, template.pods, tuple(ask.path for ask in found)))
    return uses


def gpus(workload: Workload, resource_names: Sequence[str]) -> int:
    return sum(use.total for use in gpu_uses(workload, resource_names))


def max_gpus_per_trainjob(stack: Inventory, config: Mapping[str, Any]) -> list[Violation]:
    limit, names = config["limit"], list(config["resourceNames"])
    if limit is None:
        return []
    found = []
    for workload in stack.workloads:
        uses = gpu_uses(workload, names)
        total = sum(use.total for use in uses)
        if total > limit:
            fields = ", ".join(field for use in uses for field in use.fields)
            found.append(Violation(
                f"{workload.subject}: {fields}: {plural(total, 'GPU')} ({' + '.join(map(str, uses))}) exceeds the limit of "
                f"{limit} per {workload.kind} (policy {PER_TRAINJOB})",
                workload.urn,
            ))
    return found + unjudged(stack, PER_TRAINJOB)


def max_gpus_per_namespace(stack: Inventory, config: Mapping[str, Any]) -> list[Violation]:
    """The GPUs of every TrainJob and JobSet of the stack in one namespace, against `namespaces[ns]`,
    else `limit`."""
    names, per_namespace = list(config["resourceNames"]), dict(config["namespaces"])
    totals: dict[str, list[tuple[Workload, int]]] = {}
    for workload in stack.workloads:
        count = gpus(workload, names)
        if count and workload.namespace != UNKNOWN_NAMESPACE:  # an Output: judged at `pulumi up`
            totals.setdefault(workload.namespace, []).append((workload, count))
    found = []
    for namespace, counted in sorted(totals.items()):
        limit = per_namespace.get(namespace, config["limit"])
        total = sum(count for _workload, count in counted)
        counted.sort(key=lambda item: (-item[1], item[0].subject))  # the largest first, then by name: the same text every run
        if limit is not None and total > limit:
            listed = ", ".join(f"{workload.subject}: {count}" for workload, count in counted)
            found.append(Violation(
                f"namespace {namespace}: {plural(total, 'GPU')} asked for by {listed} exceed the limit of {limit} GPUs "
                f"in the namespace (policy {PER_NAMESPACE})",
                counted[0][0].urn,
            ))
    return found


def gpu_trainjobs_need_a_queue(stack: Inventory, config: Mapping[str, Any]) -> list[Violation]:
    """A workload that asks for GPUs carries Kueue's queue label (one of `queues`, when configured)."""
    names, queues = list(config["resourceNames"]), list(config["queues"])
    found = []
    for workload in stack.workloads:
        count = gpus(workload, names)
        queue = workload.labels.get(QUEUE_LABEL)
        if not count or is_unknown(queue):
            continue
        field = f'{workload.labels_of if workload.labels_of != workload.kind else ""} metadata.labels["{QUEUE_LABEL}"]'.strip()
        if not queue:
            hint = " (TrainJob(..., queue_name=...))" if workload.labels_of == "JobSet" and workload.kind == c.TRAINJOB_KIND else ""
            problem = f"not set{hint}, and it asks for {plural(count, 'GPU')}: GPU workloads must name a Kueue queue"
        elif queues and queue not in queues:
            problem = f"{queue!r} is not one of the allowed queues {', '.join(queues)}"
        else:
            continue
        found.append(Violation(f"{workload.subject}: {field}: {problem} (policy {NEEDS_QUEUE})", workload.urn))
    return found
