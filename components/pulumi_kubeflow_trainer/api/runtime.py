"""TrainingRuntime and ClusterTrainingRuntime: the blueprints platform engineers keep."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field, ValidationError, ValidationInfo, ValidatorFunctionWrapHandler, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from . import constants as c
from .admission import admission_of
from .base import KubeModel, ObjectModel
from .core import ObjectMeta
from .jobset import JobSetTemplateSpec
from .rules import known_api_version, require_unique, rule_error, show, unique_by

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

    _unique_jobs = unique_by("job_name", "targets")


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
    """The CRD's policies as fields. A plugin may add one of its own (framework.ml_policy): a validation
    whose Admission lists the key (api.admission: a load for the plugin's registry) accepts it and validates
    it with the plugin's model; without one, any other key is refused as the CRD refuses it."""

    # Plugin policies are kept as extra fields (serialized with the rest); unclaimed keys never get this far.
    model_config = ConfigDict(extra="allow")

    num_nodes: int | None = None
    torch: TorchMLPolicySource | None = None
    mpi: MPIMLPolicySource | None = None
    jax: JAXMLPolicySource | None = None
    xgboost: XGBoostMLPolicySource | None = None
    flux: FluxMLPolicySource | None = None

    NOT_A_SOURCE: ClassVar[frozenset[str]] = frozenset({"num_nodes"})

    @model_validator(mode="wrap")
    @classmethod
    def _known_sources(cls, data: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> MLPolicy:
        unknown = [key for key in data if key not in _FIELD_KEYS] if isinstance(data, dict) else []
        if not unknown:
            policy: MLPolicy = handler(data)
        else:
            policy = _with_plugin_sources(cls.__name__, data, unknown, handler, info)
        found = policy.source_keys
        if len(found) > 1:
            raise rule_error(f"Only one of the policy can be configured: found {', '.join(found)}; keep one")
        return policy

    @property
    def source_keys(self) -> list[str]:
        """The configured policies' keys, the CRD's in field order, then a plugin's."""
        builtin = [key for key, name in BUILTIN_SOURCE_FIELDS.items() if getattr(self, name) is not None]
        return builtin + list(self.__pydantic_extra__ or ())

    @property
    def source_key(self) -> str | None:
        """The configured policy's key (the first, were there several), None without one: per render, so cheap."""
        fields = self.__dict__
        for key, name in BUILTIN_SOURCE_FIELDS.items():
            if fields[name] is not None:
                return key
        return next(iter(self.__pydantic_extra__ or ()), None)

    def source(self, key: str) -> KubeModel | None:
        """The policy under `key` (`torch`, or a plugin's), None when it is not configured."""
        name = BUILTIN_SOURCE_FIELDS.get(key)
        if name is not None:
            value: KubeModel | None = getattr(self, name)
            return value
        return (self.__pydantic_extra__ or {}).get(key)


def _with_plugin_sources(
    title: str, data: dict[str, Any], unknown: list[str], handler: ValidatorFunctionWrapHandler, info: ValidationInfo,
) -> MLPolicy:
    """Validate the CRD's fields, each plugin key with its plugin's model; refuse other keys as
    `extra="forbid"` does, all errors together in pydantic's order (fields, then unknown keys)."""
    errors: list[InitErrorDetails] = []
    policy: MLPolicy | None = None
    try:
        policy = handler({key: value for key, value in data.items() if key not in unknown})
    except ValidationError as error:
        errors.extend(_details(error, ()))
    sources: dict[str, KubeModel] = {}
    known = admission_of(info.context).policy_sources
    for key in unknown:
        model = known.get(key)
        if model is None:
            errors.append(InitErrorDetails(type="extra_forbidden", loc=(key,), input=data[key]))
            continue
        try:
            sources[key] = model.model_validate(data[key], context=info.context)
        except ValidationError as error:
            errors.extend(_details(error, (key,)))
    if errors or policy is None:
        raise ValidationError.from_exception_data(title, errors)
    object.__setattr__(policy, "__pydantic_extra__", sources)
    return policy


def _details(error: ValidationError, prefix: tuple[str, ...]) -> list[InitErrorDetails]:
    """A ValidationError's errors, to raise again under `prefix` (a rule error keeps its context)."""
    details: list[InitErrorDetails] = []
    for found in error.errors(include_url=False):
        context = found.get("ctx")
        kind: Any = PydanticCustomError("rule", "{message}", context) if found["type"] == "rule" else found["type"]
        detail = InitErrorDetails(type=kind, loc=(*prefix, *found["loc"]), input=found["input"])
        if context is not None and found["type"] != "rule":
            detail["ctx"] = context
        details.append(detail)
    return details


BUILTIN_SOURCE_FIELDS = {field.alias or name: name for name, field in MLPolicy.model_fields.items() if name not in MLPolicy.NOT_A_SOURCE}
"""The CRD's mlPolicy keys (`torch`, ...) and their MLPolicy field names, in field order."""
_FIELD_KEYS = frozenset(MLPolicy.model_fields) | frozenset(field.alias for field in MLPolicy.model_fields.values() if field.alias)


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


class _RuntimeBase(ObjectModel):
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
