"""TrainingRuntime and ClusterTrainingRuntime: the blueprints platform engineers keep."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from . import constants as c
from .base import KubeModel
from .core import ObjectMeta
from .jobset import JobSetTemplateSpec
from .rules import known_api_version, require_unique, rule_error, show

MPI_IMPLEMENTATIONS_UPSTREAM = ("OpenMPI", "")
MPI_IMPLEMENTATIONS_KEP = ("OpenMPI", "Intel", "MPICH", "")


class EnvInjectionTarget(KubeModel):
    job_name: str = Field(min_length=1, max_length=253)
    container_names: list[str] = Field(min_length=1, max_length=8)

    @field_validator("container_names")
    @classmethod
    def _not_the_node_container(cls, names: list[str]) -> list[str]:
        require_unique(names, lambda name: name, "container name")
        for index, name in enumerate(names):
            if len(name) > 63:
                raise rule_error(f"Too long: may not be more than 63 bytes, has {len(name)}", path=f"[{index}]")
        if c.NODE in names:
            raise rule_error(
                f"Invalid value: {show(names)}: containerNames must not include the main node container "
                "because PET_* envs are always injected into it; remove 'node'"
            )
        return names


class EnvInjection(KubeModel):
    targets: list[EnvInjectionTarget] | None = Field(default=None, max_length=16)

    @field_validator("targets")
    @classmethod
    def _unique_jobs(cls, targets: list[EnvInjectionTarget] | None) -> list[EnvInjectionTarget] | None:
        require_unique(targets, lambda target: target.job_name, "jobName")
        return targets


class TorchMLPolicySource(KubeModel):
    env_injection: EnvInjection | None = None


class MPIMLPolicySource(KubeModel):
    # int32 without a minimum, as in the CRD (below 1: a warning, plugins.jobset)
    num_proc_per_node: int = Field(default=1, ge=-(2**31), le=2**31 - 1)
    mpi_implementation: str = "OpenMPI"
    ssh_auth_mount_path: str = Field(default="/root/.ssh", max_length=4096)
    run_launcher_as_node: bool = False


class JAXMLPolicySource(KubeModel):
    pass


class XGBoostMLPolicySource(KubeModel):
    pass


class FluxMLPolicySource(KubeModel):
    num_proc_per_node: int = Field(default=1, ge=-(2**31), le=2**31 - 1)  # as mpi's


class MLPolicy(KubeModel):
    num_nodes: int | None = None
    torch: TorchMLPolicySource | None = None
    mpi: MPIMLPolicySource | None = None
    jax: JAXMLPolicySource | None = None
    xgboost: XGBoostMLPolicySource | None = None
    flux: FluxMLPolicySource | None = None

    @model_validator(mode="after")
    def _one_source(self) -> MLPolicy:
        sources = [name for name in ("torch", "mpi", "jax", "xgboost", "flux") if getattr(self, name) is not None]
        if len(sources) > 1:
            raise rule_error(f"Only one of the policy can be configured: found {', '.join(sources)}; keep one")
        return self


class CoschedulingPodGroupPolicySource(KubeModel):
    schedule_timeout_seconds: int = 60


class NetworkTopology(KubeModel):
    mode: Literal["hard", "soft"] = "hard"
    highest_tier_allowed: int = 1


class VolcanoPodGroupPolicySource(KubeModel):
    network_topology: NetworkTopology | None = None


class PodGroupPolicy(KubeModel):
    coscheduling: CoschedulingPodGroupPolicySource | None = None
    volcano: VolcanoPodGroupPolicySource | None = None


class TrainingRuntimeSpec(KubeModel):
    ml_policy: MLPolicy | None = None
    pod_group_policy: PodGroupPolicy | None = None
    template: JobSetTemplateSpec = Field(default_factory=JobSetTemplateSpec)


class _RuntimeBase(KubeModel):
    api_version: str
    metadata: ObjectMeta
    spec: TrainingRuntimeSpec

    _known_version = field_validator("api_version")(classmethod(lambda cls, value: known_api_version(value)))

    @field_validator("metadata")
    @classmethod
    def _named(cls, metadata: ObjectMeta) -> ObjectMeta:
        if not metadata.name:
            raise rule_error("Required value: name is required", path="name")
        return metadata

    @model_validator(mode="after")
    def _known_mpi_implementation(self) -> _RuntimeBase:
        """The CRD enum of the object's apiVersion: upstream's has OpenMPI only, the KEP's adds Intel and MPICH."""
        mpi = self.spec.ml_policy.mpi if self.spec.ml_policy else None
        allowed = MPI_IMPLEMENTATIONS_UPSTREAM if self.api_version == c.API_VERSION_UPSTREAM else MPI_IMPLEMENTATIONS_KEP
        if mpi is not None and mpi.mpi_implementation not in allowed:
            kep_only = mpi.mpi_implementation in MPI_IMPLEMENTATIONS_KEP
            hint = f" (Intel and MPICH need apiVersion {c.API_VERSION_KEP})" if kep_only else ""
            raise rule_error(
                f"Unsupported value: {show(mpi.mpi_implementation)}: supported values: {', '.join(map(show, allowed))}{hint}",
                path="spec.mlPolicy.mpi.mpiImplementation",
            )
        return self

    @property
    def name(self) -> str:
        return self.metadata.name or ""

    @property
    def labels(self) -> dict[str, str]:
        return self.metadata.labels or {}

    @property
    def is_deprecated(self) -> bool:
        return self.labels.get(c.LABEL_SUPPORT) == c.SUPPORT_DEPRECATED


class TrainingRuntime(_RuntimeBase):
    """A namespaced runtime, visible to TrainJobs of its own namespace."""

    kind: Literal["TrainingRuntime"] = "TrainingRuntime"


class ClusterTrainingRuntime(_RuntimeBase):
    """A cluster-scoped runtime, visible to TrainJobs of every namespace."""

    kind: Literal["ClusterTrainingRuntime"] = "ClusterTrainingRuntime"


Runtime = TrainingRuntime | ClusterTrainingRuntime
