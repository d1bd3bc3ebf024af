"""`resources_per_node={"gpu": 2, "cpu": 4, "memory": "16Gi"}`: the Kubeflow SDK's shorthand, spelled out;
`TrainerArgs(resources_per_node=...)` and `TrainerArgs.from_function(resources_per_node=...)` take it alike.

Mapping (as the SDK): `gpu` → `nvidia.com/gpu`, `storage` → `ephemeral-storage`, `mig-<profile>` →
`nvidia.com/mig-<profile>`; `cpu`, `memory`, `ephemeral-storage`, `hugepages-<size>` and any name with
a `/` pass through. Requests equal limits, so the Pod is Guaranteed for what it asks and no more.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api.quantity import Quantity, QuantityError
from .source import FunctionPackagingError

ALIASES = {"gpu": "nvidia.com/gpu", "storage": "ephemeral-storage"}
PLAIN_NAMES = ("cpu", "memory", "ephemeral-storage")
GPU = "nvidia.com/gpu"
MIG_PREFIX = "nvidia.com/mig-"


def resources_per_node(shorthand: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """`spec.trainer.resourcesPerNode` from the shorthand; a full `{limits, requests}` form passes as is."""
    if shorthand is None:
        return None
    if not isinstance(shorthand, Mapping):
        raise FunctionPackagingError(f"resources_per_node: expected a dict such as {{'gpu': 1}}, got {shorthand!r}")
    if shorthand and set(shorthand) <= {"limits", "requests", "claims"}:
        return {key: dict(value) if isinstance(value, Mapping) else value for key, value in shorthand.items()}
    resources: dict[str, Any] = {}
    for key, value in shorthand.items():
        name = resource_name(key)
        if name in resources:
            raise FunctionPackagingError(f"resources_per_node: {key!r} names {name} a second time")
        resources[name] = _quantity(key, value)
    if GPU in resources and any(name.startswith(MIG_PREFIX) for name in resources):
        raise FunctionPackagingError(
            "resources_per_node: a GPU and a MIG profile together cannot be scheduled; ask for one of them"
        )
    return {"limits": dict(resources), "requests": dict(resources)}


def resource_name(key: Any) -> str:
    if not isinstance(key, str) or not key:
        raise FunctionPackagingError(f"resources_per_node: resource names are strings, got {key!r}")
    if "/" in key or key in PLAIN_NAMES or key.startswith("hugepages-"):
        return key
    if key in ALIASES:
        return ALIASES[key]
    if key.startswith("mig-") and len(key) > len("mig-"):
        return MIG_PREFIX + key[len("mig-"):]
    raise FunctionPackagingError(
        f"resources_per_node: unknown resource {key!r}; use cpu, memory, gpu, storage, mig-<profile>, "
        "hugepages-<size> or a full name with a '/' such as amd.com/gpu"
    )


def _quantity(key: str, value: Any) -> Any:
    if not isinstance(value, (str, int, float)):
        return value  # a Pulumi Output (TrainerArgs): checked as a quantity once known, like the Kubernetes form's
    try:
        Quantity.parse(value)
    except QuantityError as error:
        raise FunctionPackagingError(f"resources_per_node[{key!r}]: {error}") from None
    return value
