"""RuntimePatches: changes to the runtime's JobSet template owned by named managers (Kueue, SDK, ...).

Only the fields the CRD lists are accepted; anything else (an image, a command) is rejected here,
before it could reach the JobSet.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import KubeModel
from .core import EnvVar, LocalObjectReference, TemplateMeta, Volume, VolumeMount
from .rules import unique_by


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

    _unique_env = unique_by("name", "env")

    _unique_mounts = unique_by("name", "volume_mounts")  # the CRD keys them by name (§7.11)


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

    _unique_names = unique_by("name", "volumes", "image_pull_secrets", "scheduling_gates", "containers", "init_containers")


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

    _unique_jobs = unique_by("name", "replicated_jobs")


class JobSetTemplatePatch(KubeModel):
    metadata: TemplateMeta | None = None
    spec: JobSetSpecPatch | None = None


class TrainingRuntimeSpecPatch(KubeModel):
    template: JobSetTemplatePatch | None = None


class RuntimePatch(KubeModel):
    manager: str = Field(min_length=1, max_length=253)
    time: str | None = None
    training_runtime_spec: TrainingRuntimeSpecPatch | None = None
