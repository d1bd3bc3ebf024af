"""RuntimePatches: changes to the runtime's JobSet template owned by named managers (Kueue, SDK, ...).

Only the fields the CRD lists are accepted; anything else (an image, a command) is rejected here,
before it could reach the JobSet.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from .base import KubeModel
from .core import EnvVar, LocalObjectReference, TemplateMeta, Volume, VolumeMount
from .rules import require_unique


class SchedulingGate(KubeModel):
    name: str


class Toleration(KubeModel):
    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = None


class ContainerPatch(KubeModel):
    name: str = Field(min_length=1, max_length=253)
    env: list[EnvVar] | None = Field(default=None, max_length=128)
    volume_mounts: list[VolumeMount] | None = Field(default=None, max_length=128)
    security_context: dict[str, Any] | None = None

    @field_validator("env")
    @classmethod
    def _unique_env(cls, env: list[EnvVar] | None) -> list[EnvVar] | None:
        require_unique(env, lambda var: var.name, "name")
        return env

    @field_validator("volume_mounts")
    @classmethod
    def _unique_mounts(cls, mounts: list[VolumeMount] | None) -> list[VolumeMount] | None:
        require_unique(mounts, lambda mount: mount.name, "name")  # the CRD keys them by name (§7.11)
        return mounts


class PodSpecPatch(KubeModel):
    service_account_name: str | None = Field(default=None, max_length=253)
    volumes: list[Volume] | None = Field(default=None, max_length=128)
    init_containers: list[ContainerPatch] | None = Field(default=None, max_length=64)
    containers: list[ContainerPatch] | None = Field(default=None, max_length=64)
    image_pull_secrets: list[LocalObjectReference] | None = Field(default=None, max_length=64)
    security_context: dict[str, Any] | None = None
    node_selector: dict[str, str] | None = None
    affinity: dict[str, Any] | None = None
    tolerations: list[Toleration] | None = Field(default=None, max_length=128)
    scheduling_gates: list[SchedulingGate] | None = Field(default=None, max_length=16)
    termination_grace_period_seconds: int | None = Field(default=None, ge=0)

    @field_validator("volumes", "image_pull_secrets", "scheduling_gates")
    @classmethod
    def _named_and_unique(cls, items: list[Any] | None) -> list[Any] | None:
        require_unique(items, lambda item: item.name, "name")
        return items

    @field_validator("containers", "init_containers")
    @classmethod
    def _unique_containers(cls, items: list[ContainerPatch] | None) -> list[ContainerPatch] | None:
        require_unique(items, lambda item: item.name, "name")
        return items


class PodTemplatePatch(KubeModel):
    metadata: TemplateMeta | None = None
    spec: PodSpecPatch | None = None


class JobSpecPatch(KubeModel):
    template: PodTemplatePatch | None = None


class JobTemplatePatch(KubeModel):
    metadata: TemplateMeta | None = None
    spec: JobSpecPatch | None = None


class ReplicatedJobPatch(KubeModel):
    name: str = Field(min_length=1, max_length=253)
    template: JobTemplatePatch | None = None


class JobSetSpecPatch(KubeModel):
    replicated_jobs: list[ReplicatedJobPatch] | None = Field(default=None, max_length=100)

    @field_validator("replicated_jobs")
    @classmethod
    def _unique_jobs(cls, jobs: list[ReplicatedJobPatch] | None) -> list[ReplicatedJobPatch] | None:
        require_unique(jobs, lambda job: job.name, "name")
        return jobs


class JobSetTemplatePatch(KubeModel):
    metadata: TemplateMeta | None = None
    spec: JobSetSpecPatch | None = None


class TrainingRuntimeSpecPatch(KubeModel):
    template: JobSetTemplatePatch | None = None


class RuntimePatch(KubeModel):
    manager: str = Field(min_length=1, max_length=253)
    time: str | None = None
    training_runtime_spec: TrainingRuntimeSpecPatch | None = None
