"""The JobSet v1alpha2 types embedded in a runtime's template, and the JobSet status read back."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from .base import KubeModel, ObjectModel, OpenKubeModel
from .core import Condition, ObjectMeta, PodTemplateSpec, TemplateMeta
from .rules import rule_error, unique_by


class JobSpec(OpenKubeModel):
    parallelism: int | None = None
    completions: int | None = None
    template: PodTemplateSpec


class JobTemplateSpec(KubeModel):
    metadata: TemplateMeta | None = None
    spec: JobSpec


class DependsOn(KubeModel):
    name: str
    status: Literal["Ready", "Complete"]


class ReplicatedJob(KubeModel):
    name: str = Field(min_length=1)
    group_name: str = "default"
    replicas: int = 1
    depends_on: list[DependsOn] | None = Field(default=None, max_length=5)
    template: JobTemplateSpec

    _unique_dependencies = unique_by("name", "depends_on")


class Network(KubeModel):
    enable_dns_hostnames: bool | None = Field(default=None, alias="enableDNSHostnames")
    publish_not_ready_addresses: bool | None = None
    subdomain: str | None = None


class VolumeClaimPolicy(OpenKubeModel):
    templates: list[dict[str, Any]] | None = None

    @model_validator(mode="after")
    def _templates_have_no_namespace(self) -> VolumeClaimPolicy:
        for template in self.templates or []:
            if ((template.get("metadata") or {}).get("namespace") or "") != "":
                raise rule_error(
                    "Invalid value: namespace cannot be set for VolumeClaimPolicies templates; remove metadata.namespace"
                )
        return self


class SuccessPolicy(KubeModel):
    operator: Literal["All", "Any"]
    target_replicated_jobs: list[str] | None = None


class StartupPolicy(KubeModel):
    startup_policy_order: Literal["AnyOrder", "InOrder"]


class JobSetSpec(KubeModel):
    replicated_jobs: list[ReplicatedJob] | None = None
    network: Network | None = None
    success_policy: SuccessPolicy | None = None
    failure_policy: dict[str, Any] | None = None
    startup_policy: StartupPolicy | None = None
    suspend: bool | None = None
    coordinator: dict[str, Any] | None = None
    managed_by: str | None = None
    ttl_seconds_after_finished: int | None = Field(default=None, ge=0)
    volume_claim_policies: list[VolumeClaimPolicy] | None = Field(default=None, max_length=50)

    _unique_jobs = unique_by("name", "replicated_jobs")

    @model_validator(mode="after")
    def _startup_policy_excludes_depends_on(self) -> JobSetSpec:
        in_order = self.startup_policy is not None and self.startup_policy.startup_policy_order == "InOrder"
        if in_order and any(job.depends_on is not None for job in self.replicated_jobs or []):
            raise rule_error(
                "Invalid value: StartupPolicy and DependsOn APIs are mutually exclusive; "
                "drop startupPolicy InOrder or the replicatedJobs' dependsOn"
            )
        return self


class JobSetTemplateSpec(KubeModel):
    metadata: TemplateMeta | None = None
    spec: JobSetSpec | None = None


class ReplicatedJobStatus(OpenKubeModel):
    name: str
    ready: int = 0
    succeeded: int = 0
    failed: int = 0
    active: int = 0
    suspended: int = 0


class JobSetStatus(OpenKubeModel):
    conditions: list[Condition] | None = None
    replicated_jobs_status: list[ReplicatedJobStatus] | None = None


class JobSet(ObjectModel, OpenKubeModel):
    """A JobSet read back from a cluster (for status and runtime-patch update rules)."""

    api_version: str
    kind: Literal["JobSet"]
    metadata: ObjectMeta
    spec: dict[str, Any] | None = None
    status: JobSetStatus | None = None
