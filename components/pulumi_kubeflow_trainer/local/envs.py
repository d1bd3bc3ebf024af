"""A container's environment as the kubelet would build it: envFrom, env, valueFrom and `$(VAR)`."""

from __future__ import annotations

import re
import socket
from collections.abc import Mapping
from typing import Any

from ..api.quantity import Quantity, QuantityError
from .plan import LocalRunError, ObjectStore, PodPlan

# The kubelet's expansion (k8s.io/kubernetes third_party/forked/golang/expansion): `$$` is a literal
# `$`, `$(NAME)` is NAME's value when NAME is defined and stays as written when it is not.
_REFERENCE = re.compile(r"\$(?:(\$)|\(([^)]*)\))")
_LABEL_OR_ANNOTATION = re.compile(r"^metadata\.(labels|annotations)\['([^']*)'\]$")
LOCAL_IP = "127.0.0.1"


def expand(text: str, env: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(1):
            return "$"
        name = match.group(2)
        return env[name] if name in env else match.group(0)

    return _REFERENCE.sub(replace, text)


def container_env(container: Mapping[str, Any], pod: PodPlan, store: ObjectStore) -> dict[str, str]:
    """envFrom first, then env in order (later wins); each value may refer to the ones before it."""
    env: dict[str, str] = {}
    for source in container.get("envFrom") or []:
        env.update(_env_from(source, store, pod))
    for var in container.get("env") or []:
        value = _value(var, env, container, pod, store)
        if value is not None:
            env[var["name"]] = value
    return env


def _env_from(source: Mapping[str, Any], store: ObjectStore, pod: PodPlan) -> dict[str, str]:
    kind, ref = ("ConfigMap", source["configMapRef"]) if "configMapRef" in source else ("Secret", source.get("secretRef") or {})
    data = store.get(kind, ref.get("name", ""))
    if data is None:
        if ref.get("optional"):
            return {}
        raise LocalRunError(f"{pod.name}: envFrom {kind} {ref.get('name')!r} is not among the given objects; pass its file with -f")
    prefix = source.get("prefix", "")
    return {prefix + key: _text(value) for key, value in data.items()}


def _value(var: Mapping[str, Any], env: dict[str, str], container: Mapping[str, Any], pod: PodPlan, store: ObjectStore) -> str | None:
    source = var.get("valueFrom")
    if source is None:
        return expand(str(var.get("value", "")), env)
    if "fieldRef" in source:
        return pod_field(pod, source["fieldRef"]["fieldPath"])
    if "resourceFieldRef" in source:
        return _resource_field(container, source["resourceFieldRef"], pod)
    for key, kind in (("secretKeyRef", "Secret"), ("configMapKeyRef", "ConfigMap")):
        if key in source:
            return _key_ref(kind, source[key], store, pod, var["name"])
    raise LocalRunError(f"{pod.name}: env {var['name']}: valueFrom {sorted(source)} is not emulated locally")


def _key_ref(kind: str, ref: Mapping[str, Any], store: ObjectStore, pod: PodPlan, name: str) -> str | None:
    data = store.get(kind, ref.get("name", ""))
    if data is not None and ref.get("key") in data:
        return _text(data[ref["key"]])
    if ref.get("optional"):
        return None
    missing = f"key {ref.get('key')!r} of {kind} {ref.get('name')!r}" if data is not None else f"{kind} {ref.get('name')!r}"
    raise LocalRunError(f"{pod.name}: env {name}: {missing} is not among the given objects; pass its file with -f")


def pod_field(pod: PodPlan, path: str) -> str:
    """The downward API, as far as one host can answer it."""
    match = _LABEL_OR_ANNOTATION.match(path)
    if match:
        values = pod.labels if match.group(1) == "labels" else pod.annotations
        return str(values.get(match.group(2), ""))
    fields = {
        "metadata.name": pod.name,
        "metadata.namespace": pod.namespace,
        "metadata.uid": f"local-{pod.name}",
        "spec.nodeName": socket.gethostname(),
        "spec.serviceAccountName": pod.spec.get("serviceAccountName", "default"),
        "status.podIP": LOCAL_IP,
        "status.podIPs": LOCAL_IP,
        "status.hostIP": LOCAL_IP,
        "status.hostIPs": LOCAL_IP,
    }
    if path not in fields:
        raise LocalRunError(f"{pod.name}: fieldRef {path!r} is not emulated locally")
    return str(fields[path])


def _resource_field(container: Mapping[str, Any], ref: Mapping[str, Any], pod: PodPlan) -> str:
    # The kubelet falls back to the node's allocatable for an unset limit; one host has no such number.
    kind, _, resource = ref["resource"].partition(".")
    value = ((container.get("resources") or {}).get(kind) or {}).get(resource)
    if value is None:
        raise LocalRunError(f"{pod.name}: resourceFieldRef {ref['resource']} is unset; node allocatable is not emulated")
    try:
        quantity, divisor = Quantity.parse(value), Quantity.parse(ref.get("divisor", "1"))
    except QuantityError as error:
        raise LocalRunError(f"{pod.name}: resourceFieldRef {ref['resource']}: {error}") from None
    return str(-(-quantity.nanos // divisor.nanos))  # rounded up, as the kubelet does


def _text(value: bytes) -> str:
    return value.decode("utf-8", "surrogateescape")
