"""What the policies judge: the training workloads of a stack and the runtimes it knows, as plain data.

A workload is a TrainJob (its rendered JobSet in the default mode, its object in controller mode) or a
JobSet that other code registers. Field paths in messages are those of the JobSet as rendered (pod
specs) or of the TrainJob (`spec.runtimeRef`, `spec.runtimePatches`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..api import constants as c


class Unknown:
    """A value the engine does not know yet (an Output at preview); the pack judges it at `pulumi up`."""

    _instance: Unknown | None = None

    def __new__(cls) -> Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "(unknown at preview)"


UNKNOWN = Unknown()
UNKNOWN_NAMESPACE = "(namespace unknown at preview)"  # a workload's namespace when it is an Output


def is_unknown(value: object) -> bool:
    return isinstance(value, Unknown)


@dataclass(frozen=True)
class StackResource:
    """One resource as the engine shows it to a stack policy, and a component's inputs when a resource
    policy saw them (the engine shows a stack policy a component's outputs only)."""

    type: str
    urn: str
    props: Mapping[str, Any]
    parent: str | None = None
    inputs: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class RuntimeRef:
    """A TrainJob's `spec.runtimeRef`, with upstream's defaults."""

    name: str
    kind: str = c.CLUSTER_TRAINING_RUNTIME_KIND
    api_group: str = c.GROUP

    @classmethod
    def of(cls, manifest: object) -> RuntimeRef | None:
        if not isinstance(manifest, Mapping) or not isinstance(manifest.get("name"), str):
            return None
        kind, group = manifest.get("kind"), manifest.get("apiGroup")
        return cls(manifest["name"], kind if isinstance(kind, str) else c.CLUSTER_TRAINING_RUNTIME_KIND,
                   group if isinstance(group, str) else c.GROUP)

    def __str__(self) -> str:
        return f"{self.kind} {self.name}"


@dataclass(frozen=True)
class KnownRuntime:
    """A runtime whose labels the pack knows: declared in the stack, or bundled with the library."""

    kind: str
    namespace: str  # "" for a ClusterTrainingRuntime
    name: str
    labels: Mapping[str, str]
    manifest: Mapping[str, Any]
    source: str  # where it was found, for messages


@dataclass(frozen=True)
class PodTemplate:
    """The pod template of one replicated job and how many pods run from it (replicas x parallelism;
    None when that is not known at preview)."""

    job: str
    path: str
    pods: int | None
    spec: Mapping[str, Any]


@dataclass(frozen=True)
class Workload:
    """A TrainJob or a JobSet of the stack, with the pods it will run."""

    kind: str  # TrainJob or JobSet
    namespace: str
    name: str
    urn: str  # the resource violations are reported on
    labels: Mapping[str, Any]  # metadata.labels of `labels_of`: the JobSet (default mode), the TrainJob object
    labels_of: str
    runtime_ref: RuntimeRef | None = None
    runtime_patches: list[Mapping[str, Any]] = field(default_factory=list)
    pods: list[PodTemplate] = field(default_factory=list)
    # Why the pods are not known (a TrainJob object the pack could not render), or None.
    unrendered: str | None = None
    # A TrainJob whose runtime the pack cannot tell (its component's record lacks runtimeRef).
    runtime_unknown: str | None = None

    @property
    def subject(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass(frozen=True)
class Violation:
    """A message for `report_violation`, on the resource of `urn` (None: the stack)."""

    message: str
    urn: str | None = None


@dataclass
class Inventory:
    """What the rules judge: the stack's workloads, and the runtimes the pack knows by (kind, namespace, name)."""

    workloads: list[Workload]
    runtimes: dict[tuple[str, str, str], KnownRuntime]

    def runtime(self, ref: RuntimeRef, namespace: str) -> KnownRuntime | None:
        scope = namespace if ref.kind == c.TRAINING_RUNTIME_KIND else ""
        return self.runtimes.get((ref.kind, scope, ref.name))


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def unjudged(stack: Inventory, policy: str) -> list[Violation]:
    """For the policies that judge pods: the TrainJob objects whose JobSet the pack could not render."""
    return [Violation(f"{workload.subject}: cannot judge its pods: {workload.unrendered} (policy {policy})", workload.urn)
            for workload in stack.workloads if workload.unrendered]
