"""The pod templates of a JobSet and what they ask for, read from plain manifests."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..api.quantity import Quantity, QuantityError
from .inventory import PodTemplate

POD_SPEC = "template.spec.template.spec"  # of a replicated job: JobTemplateSpec -> JobSpec -> PodTemplateSpec -> PodSpec


def mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def text(value: object, default: str) -> str:
    """A name field, or `default` where it is not a string (absent, unknown at preview)."""
    return value if isinstance(value, str) else default


def items(value: object) -> list[Mapping[str, Any]]:
    """The mappings of a list field; anything else (absent, unknown at preview) is no items."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [item for item in value if isinstance(item, Mapping)]
    return []


def count(value: object, default: int) -> int | None:
    """A replica or parallelism count: the default when absent, None when not known."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        return None
    return int(value)


def pod_templates(jobset: Mapping[str, Any]) -> list[PodTemplate]:
    """One per replicated job, `pods` = replicas x parallelism (both default to 1)."""
    templates = []
    for job in items(mapping(jobset.get("spec")).get("replicatedJobs")):
        name = text(job.get("name"), "?")
        job_spec = mapping(mapping(job.get("template")).get("spec"))
        replicas, parallelism = count(job.get("replicas"), 1), count(job_spec.get("parallelism"), 1)
        pods = replicas * parallelism if replicas is not None and parallelism is not None else None
        spec = mapping(mapping(job_spec.get("template")).get("spec"))
        templates.append(PodTemplate(name, f"spec.replicatedJobs[{name}].{POD_SPEC}", pods, spec))
    return templates


@dataclass(frozen=True)
class ContainerField:
    """A container of a pod spec and the path to it (`...containers[node]`)."""

    path: str
    name: str
    container: Mapping[str, Any]
    init: bool
    sidecar: bool


def containers(pod_spec: Mapping[str, Any], path: str) -> Iterator[ContainerField]:
    for field_name in ("initContainers", "containers"):
        init = field_name == "initContainers"
        for container in items(pod_spec.get(field_name)):
            name = text(container.get("name"), "?")
            sidecar = init and container.get("restartPolicy") == "Always"
            yield ContainerField(f"{path}.{field_name}[{name}]", name, container, init, sidecar)


@dataclass(frozen=True)
class ResourceAsk:
    """How many of the named resources one container asks for, and the field that says so."""

    path: str
    amount: int
    init: bool
    sidecar: bool


def asks(pod_spec: Mapping[str, Any], path: str, resource_names: Sequence[str]) -> list[ResourceAsk]:
    """Every container's ask for `resource_names` (limits, or requests where no limit is given: an
    extended resource's request always equals its limit)."""
    found = []
    for item in containers(pod_spec, path):
        resources = mapping(item.container.get("resources"))
        for resource in resource_names:
            for section in ("limits", "requests"):
                amount = _amount(mapping(resources.get(section)).get(resource))
                if amount:
                    found.append(ResourceAsk(f'{item.path}.resources.{section}["{resource}"]', amount, item.init, item.sidecar))
                    break
    return found


def per_pod(found: Sequence[ResourceAsk]) -> int:
    """Kubernetes' effective pod request: containers and sidecars summed, plain init containers as a peak."""
    running = sum(ask.amount for ask in found if not ask.init or ask.sidecar)
    init_peak = max((ask.amount for ask in found if ask.init and not ask.sidecar), default=0)
    return max(running, init_peak)


def _amount(value: object) -> int:
    if value is None or isinstance(value, bool):
        return 0
    try:
        return Quantity.parse(value).ceil() if isinstance(value, (str, int, float)) else 0
    except QuantityError:
        return 0
