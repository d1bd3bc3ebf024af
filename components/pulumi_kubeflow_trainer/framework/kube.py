"""Upserts into container and pod specs, with the keys the controller's apply helpers use."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..api.core import EnvVar

Manifest = dict[str, Any]


def _upsert(owner: Manifest, field: str, additions: Iterable[Manifest], matches: Any) -> None:
    additions = list(additions)
    if not additions:
        return  # like the apply helpers: no empty list appears where there was none
    items = owner.setdefault(field, [])
    for addition in additions:
        for index, existing in enumerate(items):
            if matches(existing, addition):
                items[index] = addition
                break
        else:
            items.append(addition)


def upsert_env(container: Manifest, env: Iterable[Manifest]) -> None:
    """Replace same-named vars in place, append new ones (`apply.UpsertEnvVars`)."""
    _upsert_named(container, "env", env)


def _upsert_named(owner: Manifest, field: str, additions: Iterable[Manifest]) -> None:
    """`_upsert` for items keyed by name, through an index: env lists are upserted on every render."""
    additions = list(additions)
    if not additions:
        return
    items = owner.get(field)
    if not items and len({addition["name"] for addition in additions}) == len(additions):
        owner[field] = additions  # nothing to replace: the additions are the list
        return
    if items is None:
        items = owner[field] = []
    position: dict[Any, int] = {}
    for index, item in enumerate(items):
        position.setdefault(item.get("name"), index)  # the first of duplicates is the one replaced
    for addition in additions:
        found = position.get(addition["name"])
        if found is None:
            position[addition["name"]] = len(items)
            items.append(addition)
        else:
            items[found] = addition


def upsert_ports(container: Manifest, ports: Iterable[Manifest]) -> None:
    """Ports match by containerPort or by name (`apply.UpsertPort`)."""
    if not container.get("ports"):
        ports = list(ports)
        if len(ports) == 1:  # the one port a policy opens, into a container that has none yet
            container["ports"] = ports
            return

    def same(a: Manifest, b: Manifest) -> bool:
        return a.get("containerPort") == b.get("containerPort") or (b.get("name") is not None and a.get("name") == b.get("name"))

    _upsert(container, "ports", ports, same)


def upsert_volumes(pod_spec: Manifest, volumes: Iterable[Manifest]) -> None:
    _upsert_named(pod_spec, "volumes", volumes)


def upsert_volume_mounts(container: Manifest, mounts: Iterable[Manifest]) -> None:
    """Mounts match by mountPath, not name (`apply.UpsertVolumeMounts`)."""
    _upsert(container, "volumeMounts", mounts, lambda a, b: a.get("mountPath") == b["mountPath"])


_KEPT_SOURCES = ("resourceFieldRef", "configMapKeyRef", "secretKeyRef")


def env_manifest(var: EnvVar) -> Manifest:
    """A TrainJob env var as the controller copies it: fieldRef keeps only fieldPath, unknown sources drop."""
    converted: Manifest = {"name": var.name}
    if var.value is not None:
        converted["value"] = var.value
    if var.value_from is not None:
        source = var.value_from.to_manifest()
        kept: Manifest = {}
        if "fieldRef" in source:
            kept["fieldRef"] = {"fieldPath": source["fieldRef"].get("fieldPath", "")}
        kept.update({name: source[name] for name in _KEPT_SOURCES if name in source})
        if kept:
            converted["valueFrom"] = kept
    return converted


def env_manifests(env: Iterable[EnvVar] | None) -> list[Manifest]:
    return [env_manifest(var) for var in env or ()]


def field_ref_env(name: str, field_path: str) -> Manifest:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}


def pod_spec_of(replicated_job: Manifest) -> Manifest:
    """The pod spec of a replicated job, created on the way if the template lacks levels."""
    job_spec = replicated_job.setdefault("template", {}).setdefault("spec", {})
    pod_spec: Manifest = job_spec.setdefault("template", {}).setdefault("spec", {})
    return pod_spec


def pod_template_of(replicated_job: Manifest) -> Manifest:
    pod_template: Manifest = replicated_job.setdefault("template", {}).setdefault("spec", {}).setdefault("template", {})
    return pod_template


def dig(mapping: Manifest | None, *keys: str) -> Any:
    """`mapping[k1][k2]...`, or None where a level is missing."""
    for key in keys:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


def find_named(items: Iterable[Manifest] | None, name: str) -> Manifest | None:
    for item in items or ():
        if item.get("name") == name:
            return item
    return None
