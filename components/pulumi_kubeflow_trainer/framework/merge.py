"""Kubernetes strategic merge patch, over plain dicts, for the JobSet template.

The controller applies each runtime patch as a strategic merge patch against the JobSet spec, using
the patch-merge keys of the Go types. Merging by key (not position) and SMP's ordering rule decide
the order of env vars and containers in the JobSet, so they are reproduced here exactly.
"""

from __future__ import annotations

from typing import Any

# patchMergeKey of every keyed list that can occur below a JobSetSpec (field name -> key).
MERGE_KEYS = {
    "replicatedJobs": "name",
    "dependsOn": "name",
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "imagePullSecrets": "name",
    "schedulingGates": "name",
    "resourceClaims": "name",
    "env": "name",
    "volumeMounts": "mountPath",
    "ports": "containerPort",
    "volumeDevices": "devicePath",
    "ownerReferences": "uid",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
}
# Lists of scalars with patchStrategy merge: union, original items kept.
MERGE_SCALARS = frozenset({"finalizers"})


def clone(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars), several times faster than deepcopy."""
    if type(value) is dict:
        return {key: clone(item) for key, item in value.items()}
    if type(value) is list:
        return [clone(item) for item in value]
    return value


def strategic_merge(original: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """`original` with `patch` merged in; neither argument is modified."""
    merged = dict(original)
    for field, patch_value in patch.items():
        if patch_value is None:
            merged.pop(field, None)
            continue
        current = merged.get(field)
        if isinstance(current, dict) and isinstance(patch_value, dict):
            merged[field] = strategic_merge(current, patch_value)
        elif isinstance(current, list) and isinstance(patch_value, list):
            merged[field] = _merge_list(field, current, patch_value)
        else:
            merged[field] = clone(patch_value)
    return merged


def _merge_list(field: str, original: list[Any], patch: list[Any]) -> list[Any]:
    if field in MERGE_SCALARS:
        return _merge_scalars(original, patch)
    key = MERGE_KEYS.get(field)
    if key is None:
        replaced: list[Any] = clone(patch)  # atomic list: the patch replaces it
        return replaced
    merged = list(original)
    position = {item.get(key): index for index, item in enumerate(original) if isinstance(item, dict)}
    for item in patch:
        index = position.get(item.get(key))
        if index is None:
            merged.append(clone(item))
        else:
            merged[index] = strategic_merge(merged[index], item)
    return _order_like_smp(merged, patch, original, lambda item: item.get(key))


def _merge_scalars(original: list[Any], patch: list[Any]) -> list[Any]:
    merged: list[Any] = []
    for item in original + patch:
        if item not in merged:
            merged.append(item)
    return _order_like_smp(merged, patch, original, lambda item: item)


def _order_like_smp(merged: list[Any], patch: list[Any], original: list[Any], key: Any) -> list[Any]:
    """SMP's `normalizeElementOrder`: patch items in patch order, original-only items interleaved
    before the first patch item that comes after them in the original list."""
    patch_order = {key(item): index for index, item in enumerate(patch)}
    original_order = {key(item): index for index, item in enumerate(original)}
    patched = sorted((item for item in merged if key(item) in patch_order), key=lambda item: patch_order[key(item)])
    server_only = sorted(
        (item for item in merged if key(item) not in patch_order), key=lambda item: original_order.get(key(item), 0)
    )
    result: list[Any] = []
    left = right = 0
    while left < len(server_only) or right < len(patched):
        if right >= len(patched):
            result.append(server_only[left])
            left += 1
        elif left >= len(server_only):
            result.append(patched[right])
            right += 1
        else:
            left_index = original_order.get(key(server_only[left]))
            right_index = original_order.get(key(patched[right]))
            if left_index is not None and right_index is not None and left_index < right_index:
                result.append(server_only[left])
                left += 1
            else:
                result.append(patched[right])
                right += 1
    return result
