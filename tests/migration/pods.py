"""Pods on both sides, made comparable: v1's from the oracle (the operator's own code), v2's from the
JobSet render() makes (one per completion index, with the index's fieldRefs resolved as the kubelet
resolves them), each paired with the v1 Pod of the same rank."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.migration.v1job import KINDS

V1_LABEL_PREFIX = "training.kubeflow.org/"


@dataclass(frozen=True)
class Pod:
    role: str  # v1: Master, Worker, Launcher; v2: the replicated job
    index: int
    labels: dict[str, str]
    annotations: dict[str, str]
    spec: dict[str, Any]


def v1_pods(answer: dict[str, Any]) -> list[Pod]:
    rules = KINDS[answer["kind"]]
    pods = []
    for pod in answer.get("pods") or []:
        labels = pod.get("labels") or {}
        role = next(name for name in rules.replica_types if name.lower() == labels[V1_LABEL_PREFIX + "replica-type"])
        index = int(labels.get(V1_LABEL_PREFIX + "replica-index", "0"))
        pods.append(Pod(role, index, labels, pod.get("annotations") or {}, pod["spec"]))
    return pods


def v2_pods(jobset: dict[str, Any]) -> list[Pod]:
    pods = []
    for job in jobset["spec"]["replicatedJobs"]:
        template = job["template"]["spec"]
        for index in range(template.get("completions") or 1):
            pod = _resolved(template["template"], index)
            metadata = pod.get("metadata") or {}
            pods.append(Pod(job["name"], index, metadata.get("labels") or {}, metadata.get("annotations") or {}, pod["spec"]))
    return pods


def _resolved(template: dict[str, Any], index: int) -> dict[str, Any]:
    """The Pod of one completion index: a fieldRef to the completion index is that index."""
    pod = copy.deepcopy(template)
    for container in pod["spec"].get("containers") or []:
        for variable in container.get("env") or []:
            field = ((variable.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath")
            if field == c.COMPLETION_INDEX_FIELD:
                variable.pop("valueFrom")
                variable["value"] = str(index)
    return pod


def rank_of(pod: Pod, has_master: bool) -> int:
    """v1's rank of a Master/Worker Pod: the Master is 0, Worker i is i+1 (i without a Master)."""
    return pod.index + (1 if has_master and pod.role == "Worker" else 0)


def pairs(kind: str, v1: list[Pod], v2: list[Pod]) -> list[tuple[Pod, Pod | None]]:
    """Each v1 Pod with the v2 Pod that does its work: same rank on the `node` job; MPI's launcher with
    the launcher, worker i with node i."""
    by_key = {(pod.role, pod.index): pod for pod in v2}
    if kind == "MPIJob":
        return [(pod, by_key.get((c.LAUNCHER, 0) if pod.role == "Launcher" else (c.NODE, pod.index))) for pod in v1]
    has_master = any(pod.role == "Master" for pod in v1)
    return [(pod, by_key.get((c.NODE, rank_of(pod, has_master)))) for pod in v1]


def v1_host(job: str, role: str, index: int) -> str:
    return f"{job}-{role.lower()}-{index}"


def same(a: Any, b: Any) -> bool:
    """Equal once empty values are dropped (an empty value and none at all are alike)."""
    return clean({"value": a}) == clean({"value": b})


def leaf_differences(a: Any, b: Any, path: str) -> list[str]:
    """Where `a` and `b` differ, to the leaf (lists of other lengths differ as a whole), empty values alike."""
    a, b = clean({"value": a}).get("value"), clean({"value": b}).get("value")
    if isinstance(a, dict) and isinstance(b, dict):
        return [found for key in sorted(set(a) | set(b)) for found in leaf_differences(a.get(key), b.get(key), f"{path}.{key}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [found for index in range(len(a)) for found in leaf_differences(a[index], b[index], f"{path}[{index}]")]
    return [] if a == b else [path]


def clean(value: Any) -> Any:
    """Without empty values: Go writes `resources: {}`, render() writes nothing."""
    if isinstance(value, dict):
        kept = {key: clean(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item not in ({}, [], None, "")}
    if isinstance(value, list):
        return [clean(item) for item in value]
    return value
