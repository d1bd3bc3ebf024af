"""TrainJob: what a data scientist submits."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from . import constants as c
from .admission import admission_of
from .base import KubeModel, ObjectModel
from .core import Condition, EnvVar, LocalObjectReference, ObjectMeta, ResourceRequirements
from .patches import RuntimePatch
from .rules import known_api_version, rule_error, show, unique_by

_RFC1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://.+$")
MANAGED_BY_VALUES = (c.MANAGED_BY_TRAINER, c.MANAGED_BY_MULTIKUEUE)


class RuntimeRef(KubeModel):
    name: str = Field(min_length=1, max_length=253)
    api_group: str = Field(default=c.GROUP, max_length=253)
    kind: str = Field(default=c.CLUSTER_TRAINING_RUNTIME_KIND, max_length=253)


class InitializerSource(KubeModel):
    storage_uri: str | None = Field(default=None, max_length=2048)
    env: list[EnvVar] | None = Field(default=None, max_length=128)
    secret_ref: LocalObjectReference | None = None

    @field_validator("storage_uri")
    @classmethod
    def _uri(cls, value: str | None) -> str | None:
        if value and not _URI.match(value):
            raise rule_error(
                f"Invalid value: {show(value)}: storageUri may be empty, or it must be a valid URI (scheme://...), "
                "e.g. s3://bucket/path or hf://org/repo"
            )
        return value

    _unique_env = unique_by("name", "env")


class DatasetInitializer(InitializerSource):
    pass


class ModelInitializer(InitializerSource):
    pass


class Initializer(KubeModel):
    dataset: DatasetInitializer | None = None
    model: ModelInitializer | None = None


def negative_nodes(value: int) -> str:
    """Why a numNodes below 0 cannot run (v2.3.0's CRD admits it; the API server refuses the Jobs)."""
    return (f"Invalid value: {value}: must be greater than or equal to 0: the Jobs' parallelism would be negative, "
            "which the API server refuses; set the number of nodes")


def too_few_processes(value: int) -> str:
    """Why a numProcPerNode below 1 cannot run (v2.3.0's CRD admits it)."""
    return (f"Invalid value: {value}: must be greater than or equal to 1: no process would start; set the processes "
            "per node, or leave numProcPerNode out")


class Trainer(KubeModel):
    image: str | None = Field(default=None, max_length=500)
    command: list[str] | None = Field(default=None, max_length=128)
    args: list[str] | None = Field(default=None, max_length=128)
    env: list[EnvVar] | None = Field(default=None, max_length=128)
    # int32, without a minimum, as in v2.3.0's CRD: a count below 1 is admitted (a warning of plugins.jobset),
    # unless the validation refuses what cannot be deployed (api.admission: render() and the CLI's render)
    num_nodes: int | None = Field(default=None, ge=-(2**31), le=2**31 - 1)
    resources_per_node: ResourceRequirements | None = None
    num_proc_per_node: int | None = Field(default=None, ge=-(2**31), le=2**31 - 1)

    @field_validator("num_nodes")
    @classmethod
    def _deployable_nodes(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and value < 0 and admission_of(info.context).refuse_undeployable:
            raise rule_error(negative_nodes(value))
        return value

    @field_validator("num_proc_per_node")
    @classmethod
    def _deployable_processes(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and value < 1 and admission_of(info.context).refuse_undeployable:
            raise rule_error(too_few_processes(value))
        return value

    @field_validator("command", "args")
    @classmethod
    def _item_size(cls, items: list[str] | None) -> list[str] | None:
        for index, item in enumerate(items or []):
            if len(item) > 1048576:
                raise rule_error(f"Too long: may not be more than 1048576 bytes, has {len(item)}", path=f"[{index}]")
        return items

    _unique_env = unique_by("name", "env")


class JobStatus(KubeModel):
    name: str
    ready: int = Field(ge=0)
    succeeded: int = Field(ge=0)
    failed: int = Field(ge=0)
    active: int = Field(ge=0)
    suspended: int = Field(ge=0)


class TrainerMetric(KubeModel):
    name: str = Field(min_length=1, max_length=64)
    value: str = Field(min_length=1, max_length=64)


class TrainerStatus(KubeModel):
    """What the training runtime reports (alpha, feature gate TrainJobStatus)."""

    progress_percentage: int | None = Field(default=None, ge=0, le=100)
    estimated_remaining_seconds: int | None = Field(default=None, ge=0)
    metrics: list[TrainerMetric] | None = Field(default=None, max_length=256)
    last_updated_time: str | None = None

    @model_validator(mode="after")
    def _updated_time_required(self) -> TrainerStatus:
        if self.last_updated_time is None:
            raise rule_error("Required value: lastUpdatedTime is required when trainerStatus is present")
        return self


class TrainJobStatus(KubeModel):
    conditions: list[Condition] | None = Field(default=None, max_length=8)
    jobs_status: list[JobStatus] | None = Field(default=None, max_length=100)
    trainer_status: TrainerStatus | None = None

    _unique_types = unique_by("type", "conditions")

    _unique_jobs = unique_by("name", "jobs_status")


class TrainJobSpec(KubeModel):
    runtime_ref: RuntimeRef
    initializer: Initializer | None = None
    trainer: Trainer | None = None
    runtime_patches: list[RuntimePatch] | None = Field(default=None, max_length=16)
    suspend: bool = False
    active_deadline_seconds: int | None = Field(default=None, ge=1)
    managed_by: str = Field(default=c.MANAGED_BY_TRAINER, max_length=253)

    @field_validator("managed_by")
    @classmethod
    def _known_manager(cls, value: str) -> str:
        if value not in MANAGED_BY_VALUES:
            raise rule_error(
                f"Invalid value: {show(value)}: ManagedBy must be trainer.kubeflow.org/trainjob-controller or "
                "kueue.x-k8s.io/multikueue if set"
            )
        return value

    _unique_managers = unique_by("manager", "runtime_patches")


class TrainJob(ObjectModel):
    api_version: str = c.API_VERSION_UPSTREAM
    kind: Literal["TrainJob"] = "TrainJob"
    metadata: ObjectMeta
    spec: TrainJobSpec
    status: TrainJobStatus | None = None

    _known_version = field_validator("api_version")(classmethod(lambda cls, value: known_api_version(value)))

    @field_validator("metadata")
    @classmethod
    def _rfc1035_name(cls, metadata: ObjectMeta) -> ObjectMeta:
        name = metadata.name
        if not name:
            raise rule_error("Required value: name is required", path="name")
        if not _RFC1035_LABEL.match(name):
            raise rule_error(
                f"Invalid value: {show(name)}: metadata.name must match RFC 1035 DNS label format "
                "(lower-case letters, digits and '-', starting with a letter)",
                path="name",
            )
        if len(name) > 63:
            raise rule_error(
                f"Invalid value: {show(name)}: metadata.name must be no more than 63 characters", path="name"
            )
        return metadata

    @property
    def name(self) -> str:
        return self.metadata.name or ""

    @property
    def namespace(self) -> str:
        return self.metadata.namespace or "default"
