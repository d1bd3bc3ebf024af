"""What a gang scheduler must admit at once: every pod of every replicated job, and their requests."""

from __future__ import annotations

from ..api.quantity import Quantity, add_resource_lists
from ..framework.info import RuntimeInfo
from ..framework.kube import Manifest, pod_template_of


def min_member(info: RuntimeInfo) -> int:
    return sum(pod_set.count for pod_set in info.pod_sets)


def min_resources(info: RuntimeInfo) -> dict[str, str]:
    total: dict[str, Quantity] = {}
    for pod_set in info.pod_sets:
        requests = pod_set.single_pod_requests()
        add_resource_lists(total, {name: quantity.times(pod_set.count) for name, quantity in requests.items()})
    return {name: str(quantity) for name, quantity in sorted(total.items())}


def mark_pod_templates(info: RuntimeInfo, field: str, key: str, value: str) -> None:
    """Set a label or annotation (`field`) on the pod template of every replicated job."""
    for pod_set in info.pod_sets:
        metadata: Manifest = pod_template_of(pod_set.job).setdefault("metadata", {})
        metadata.setdefault(field, {})[key] = value
