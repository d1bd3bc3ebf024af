"""The live differential's comparison: render()'s objects against the ones the Kubeflow Trainer
controller created in the cluster, field by field and both ways.

Both sides are taken as the API server stores them (ours through a server-side dry-run create, so
the CRDs' and the JobSet webhook's defaults are on both), without what only the server sets (uid,
resourceVersion, managedFields, status). What remains is rewritten by the offline parity test's own
list of deliberate differences (tests/parity/compare.py `apply_deliberate`, docs/parity.md), the
runtime snapshot compared as `snapshot-form` says, and must then be equal.

Ours is rendered with the live TrainJob's uid (read once the TrainJob exists), so that owner
references are compared too: the controller's carry the uid, and a render given it writes the same.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import yaml

from pulumi_kubeflow_trainer.resources.controller_check import differences
from tests.parity.compare import Facts, apply_deliberate, first_differences, mask_secrets
from tests.parity.generator import Case

from .conftest import Cluster

SERVER_METADATA = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields")
PLURALS = {"JobSet": "jobsets.jobset.x-k8s.io", "PodGroup": "podgroups.scheduling.x-k8s.io",
           "Secret": "secrets", "ConfigMap": "configmaps"}
VOLCANO_GROUP = "scheduling.volcano.sh/"  # Volcano's PodGroup, the same kind in another group
DRY_RUN_NAMESPACE = "parity-dry-run"  # ours is dry-run created here: the controller's object has its name
SNAPSHOT_SUFFIX = "-runtime-snapshot"


def as_stored(obj: dict[str, Any]) -> dict[str, Any]:
    """An object without what only the API server sets, its Secret data masked (`generated-keys`)."""
    obj = mask_secrets(copy.deepcopy(obj))
    obj.pop("status", None)
    for key in SERVER_METADATA:
        obj["metadata"].pop(key, None)
    return obj


def through_the_api_server(cluster: Cluster, obj: dict[str, Any]) -> dict[str, Any]:
    """Ours as the API server would store it: a server-side dry-run create in DRY_RUN_NAMESPACE. Its
    owner references are put back afterwards (they get no defaults): sent, they would name a TrainJob
    that is not in that namespace, and Kueue's JobSet webhook looks the owner up (NotFound)."""
    moved = copy.deepcopy(obj)
    namespace = moved["metadata"].get("namespace")
    owners = moved["metadata"].pop("ownerReferences", None)
    moved["metadata"]["namespace"] = DRY_RUN_NAMESPACE
    stored = json.loads(cluster.kubectl("create", "--dry-run=server", "-o", "json", "-f", "-",
                                        stdin=json.dumps(moved)).stdout)
    stored["metadata"]["namespace"] = namespace
    if owners is not None:
        stored["metadata"]["ownerReferences"] = owners
    return as_stored(stored)


def live_object(cluster: Cluster, ours: dict[str, Any], wait: float) -> dict[str, Any] | None:
    kind, name, namespace = ours["kind"], ours["metadata"]["name"], ours["metadata"].get("namespace") or "default"
    plural = "podgroups.scheduling.volcano.sh" if ours["apiVersion"].startswith(VOLCANO_GROUP) else PLURALS[kind]
    try:
        return cluster.wait(f"{kind} {namespace}/{name}", lambda: cluster.get(plural, name, namespace), timeout=wait)
    except AssertionError:
        return None


def snapshot_differences(ours: dict[str, Any], upstream: dict[str, Any]) -> list[str]:
    """`snapshot-form`: ours holds the runtime as written, upstream's as stored (defaults, server
    metadata): the rest of the ConfigMap must be equal and every field of ours in upstream's runtime."""
    mine, theirs = yaml.safe_load(ours["data"]["runtime"]), yaml.safe_load(upstream["data"]["runtime"])
    rest = first_differences({**ours, "data": {}}, {**upstream, "data": {}})
    return rest + [f".data.runtime: {line}" for line in differences(mine, theirs)]


def same_env_in_another_order(ours: Any, upstream: Any) -> bool:
    """`plugin-order` live: upstream orders its plugins by Go map iteration, once per controller start,
    so a framework's env may come before or after the user's; offline the oracle gives every order it
    saw, live there is one. A container's env holding the same items in another order is put in
    upstream's order (True when one was)."""
    if isinstance(ours, dict) and isinstance(upstream, dict):
        changed = False
        env, their_env = ours.get("env"), upstream.get("env")
        if isinstance(env, list) and isinstance(their_env, list) and env != their_env and all(
                isinstance(item, dict) and "name" in item for item in (*env, *their_env)):
            by_name = {item["name"]: item for item in env}
            if len(by_name) == len(env) and sorted(by_name) == sorted(item["name"] for item in their_env):
                ours["env"] = [by_name[item["name"]] for item in their_env]
                changed = True
        return any([same_env_in_another_order(ours[key], upstream[key]) for key in ours if key in upstream]) or changed
    if isinstance(ours, list) and isinstance(upstream, list) and len(ours) == len(upstream):
        return any([same_env_in_another_order(a, b) for a, b in zip(ours, upstream, strict=True)])
    return False


def compare_trainjob(cluster: Cluster, case: Case, rendered: list[dict[str, Any]], wait: float) -> tuple[dict[str, list[str]], list[str]]:
    """({"Kind/name": differences}, the deliberate rows used) for the objects render() gave for one
    TrainJob; an object the controller did not create (within `wait` s for the first) is one line."""
    found: dict[str, list[str]] = {}
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for ours in rendered:
        key = f"{ours['kind']}/{ours['metadata']['name']}"
        live = live_object(cluster, ours, wait)
        if live is None:
            found[key] = [f"not created by the controller (waited {wait:.0f} s)"]
        else:
            pairs.append((through_the_api_server(cluster, ours), as_stored(live)))
        wait = min(wait, 10.0)  # by then the controller has made the others too
    mine, theirs = [p[0] for p in pairs], [p[1] for p in pairs]
    used = apply_deliberate(Facts.of(case), mine, theirs)
    if any([same_env_in_another_order(ours, upstream) for ours, upstream in zip(mine, theirs, strict=True)]):
        used.append("plugin-order")
    for ours, upstream in zip(mine, theirs, strict=True):
        name = ours["metadata"]["name"]
        lines = (snapshot_differences(ours, upstream) if ours["kind"] == "ConfigMap" and name.endswith(SNAPSHOT_SUFFIX)
                 else first_differences(ours, upstream))
        if lines:
            found[f"{ours['kind']}/{name}"] = lines
        if name.endswith(SNAPSHOT_SUFFIX):
            used.append("snapshot-form")
    return found, sorted(set(used))
