"""What a gang scheduler must admit at once: every pod of every replicated job, and their requests."""

from __future__ import annotations

from ..api.quantity import Quantity, add_resource_lists
from .info import RuntimeInfo
from .kube import Manifest, pod_template_of
from .objects import child_metadata


def min_member(info: RuntimeInfo) -> int:
    return sum(pod_set.count for pod_set in info.pod_sets)


def min_resources(info: RuntimeInfo) -> dict[str, str]:
    total: dict[str, Quantity] = {}
    for pod_set in info.pod_sets:
        requests = pod_set.single_pod_requests()
        add_resource_lists(total, {name: quantity.times(pod_set.count) for name, quantity in requests.items()})
    return {name: str(quantity) for name, quantity in sorted(total.items())}


def pod_group(info: RuntimeInfo, api_version: str, **fields: object) -> Manifest:
    """A PodGroup named after the TrainJob that gangs every pod; `fields` add to its spec."""
    # minResources is written even when empty, as upstream's builders write it (`WithMinResources`)
    spec: Manifest = {"minMember": min_member(info), "minResources": min_resources(info)}
    spec.update({key: value for key, value in fields.items() if value is not None})
    metadata = child_metadata(info.trainjob, info.trainjob.name)
    return {"apiVersion": api_version, "kind": "PodGroup", "metadata": metadata, "spec": spec}


def mark_pod_templates(info: RuntimeInfo, field: str, key: str, value: str) -> None:
    """Set a label or annotation (`field`) on the pod template of every replicated job."""
    for pod_set in info.pod_sets:
        metadata: Manifest = pod_template_of(pod_set.job).setdefault("metadata", {})
        metadata.setdefault(field, {})[key] = value
