"""What a JobSet would start: its Pods, their identities, and the order the JobSet controller keeps."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from ..framework.errors import TrainerError

COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"


class LocalRunError(TrainerError):
    """The objects cannot be run locally (no JobSet, a missing Secret, an unsupported volume, ...)."""


@dataclass(frozen=True)
class PodPlan:
    """One Pod of the JobSet: `name` is its hostname, `<job>-<replicatedJob>-<replica>-<index>`."""

    name: str
    replicated_job: str
    replica: int
    index: int
    template: Mapping[str, Any]
    namespace: str
    jobset: str

    @property
    def spec(self) -> Mapping[str, Any]:
        return self.template.get("spec") or {}

    @property
    def labels(self) -> dict[str, str]:
        """The template's labels plus those the Job and JobSet controllers put on every Pod."""
        own = dict((self.template.get("metadata") or {}).get("labels") or {})
        return own | {
            "jobset.sigs.k8s.io/jobset-name": self.jobset,
            "jobset.sigs.k8s.io/replicatedjob-name": self.replicated_job,
            "jobset.sigs.k8s.io/job-index": str(self.replica),
            "jobset.sigs.k8s.io/restart-attempt": "0",
            "batch.kubernetes.io/job-name": f"{self.jobset}-{self.replicated_job}-{self.replica}",
            COMPLETION_INDEX: str(self.index),
        }

    @property
    def annotations(self) -> dict[str, str]:
        own = dict((self.template.get("metadata") or {}).get("annotations") or {})
        return own | {COMPLETION_INDEX: str(self.index)}


@dataclass(frozen=True)
class ReplicatedJobPlan:
    name: str
    pods: tuple[PodPlan, ...]
    depends_on: tuple[tuple[str, str], ...]  # (replicated job, "Ready" | "Complete")

    def jobs(self) -> dict[int, list[PodPlan]]:
        """The pods of each Job (one Job per replica)."""
        grouped: dict[int, list[PodPlan]] = {}
        for pod in self.pods:
            grouped.setdefault(pod.replica, []).append(pod)
        return grouped


@dataclass(frozen=True)
class LocalPlan:
    jobset: str
    namespace: str
    subdomain: str
    replicated_jobs: tuple[ReplicatedJobPlan, ...]
    success_operator: str = "All"
    success_targets: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()  # volumeClaimPolicies templates: volumes every Pod may mount by name
    objects: ObjectStore = field(default_factory=lambda: ObjectStore([]))

    @property
    def pods(self) -> list[PodPlan]:
        return [pod for job in self.replicated_jobs for pod in job.pods]


class ObjectStore:
    """The Secrets and ConfigMaps given with the JobSet, by name: what env and volumes may refer to."""

    def __init__(self, manifests: Iterable[Mapping[str, Any]]) -> None:
        self._data: dict[tuple[str, str], dict[str, bytes]] = {}
        for manifest in manifests:
            kind = manifest.get("kind")
            if kind in ("Secret", "ConfigMap"):
                name = (manifest.get("metadata") or {}).get("name", "")
                self._data[(kind, name)] = _object_data(manifest)

    def get(self, kind: str, name: str) -> dict[str, bytes] | None:
        return self._data.get((kind, name))


def _object_data(manifest: Mapping[str, Any]) -> dict[str, bytes]:
    data: dict[str, bytes] = {}
    if manifest["kind"] == "Secret":
        data.update({k: base64.b64decode(v) for k, v in (manifest.get("data") or {}).items()})
        data.update({k: str(v).encode() for k, v in (manifest.get("stringData") or {}).items()})
    else:
        data.update({k: base64.b64decode(v) for k, v in (manifest.get("binaryData") or {}).items()})
        data.update({k: str(v).encode() for k, v in (manifest.get("data") or {}).items()})
    return data


def plan_jobset(manifests: Sequence[Mapping[str, Any]]) -> LocalPlan:
    """The plan for the one JobSet among `manifests`; Secrets and ConfigMaps beside it are its objects."""
    jobsets = [m for m in manifests if m.get("kind") == "JobSet"]
    if len(jobsets) != 1:
        names = ", ".join((m.get("metadata") or {}).get("name", "?") for m in jobsets) or "none"
        raise LocalRunError(f"run-local runs exactly one JobSet (one TrainJob); found {len(jobsets)}: {names}")
    jobset = jobsets[0]
    metadata, spec = jobset.get("metadata") or {}, jobset.get("spec") or {}
    name, namespace = metadata.get("name", ""), metadata.get("namespace") or "default"
    templates = spec.get("replicatedJobs") or []
    replicated = tuple(_replicated_job(name, namespace, template) for template in templates)
    success = spec.get("successPolicy") or {}
    return LocalPlan(
        jobset=name,
        namespace=namespace,
        subdomain=(spec.get("network") or {}).get("subdomain") or name,
        replicated_jobs=_add_startup_order(spec, replicated),
        success_operator=success.get("operator", "All"),
        success_targets=tuple(success.get("targetReplicatedJobs") or [job.name for job in replicated]),
        claims=_claim_names(spec),
        objects=ObjectStore(manifests),
    )


def _claim_names(spec: Mapping[str, Any]) -> tuple[str, ...]:
    policies = spec.get("volumeClaimPolicies") or []
    return tuple((t.get("metadata") or {}).get("name", "") for policy in policies for t in policy.get("templates") or [])


def _replicated_job(jobset: str, namespace: str, template: Mapping[str, Any]) -> ReplicatedJobPlan:
    job_spec = (template.get("template") or {}).get("spec") or {}
    pod_template = job_spec.get("template") or {}
    count = job_spec.get("completions") or job_spec.get("parallelism") or 1
    rjob = template["name"]
    pods = tuple(
        PodPlan(f"{jobset}-{rjob}-{replica}-{index}", rjob, replica, index, pod_template, namespace, jobset)
        for replica in range(template.get("replicas", 1))
        for index in range(count)
    )
    depends = tuple((dep["name"], dep.get("status", "Complete")) for dep in template.get("dependsOn") or [])
    return ReplicatedJobPlan(rjob, pods, depends)


def _add_startup_order(spec: Mapping[str, Any], jobs: tuple[ReplicatedJobPlan, ...]) -> tuple[ReplicatedJobPlan, ...]:
    """`startupPolicy: InOrder`: each replicated job waits for the previous one to be Ready."""
    if (spec.get("startupPolicy") or {}).get("startupPolicyOrder") != "InOrder":
        return jobs
    ordered = [jobs[0]] if jobs else []
    for previous, job in pairwise(jobs):
        ordered.append(ReplicatedJobPlan(job.name, job.pods, (*job.depends_on, (previous.name, "Ready"))))
    return tuple(ordered)
