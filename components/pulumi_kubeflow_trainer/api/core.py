"""The Kubernetes core types this library reads; everything else in them passes through."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from .base import KubeModel, ObjectModel, OpenKubeModel
from .quantity import canonical
from .rules import rule_error, unique_by


def _quantity(value: Any) -> str:
    """The CRDs type quantities int-or-string: a number with a fraction (`cpu: 1.5`) is refused, as the
    API server refuses it; a whole one (`2.0`, `1e3` as YAML reads it) reaches it as an integer."""
    if isinstance(value, float):
        if not value.is_integer():
            raise rule_error(
                f"Invalid value: {value!r}: must be an integer or a string (the CRD types quantities int-or-string); "
                f'quote it ("{value!r}") or write it in units ({canonical(value)})'
            )
        value = int(value)
    return canonical(value)


# A quantity is stored canonically at load time, as the API server stores it.
QuantityStr = Annotated[str, BeforeValidator(_quantity)]
ResourceList = dict[str, QuantityStr]
Labels = dict[str, str]


class ObjectMeta(OpenKubeModel):
    """Object metadata; server-set fields (uid, resourceVersion, managedFields, ...) pass through."""

    name: str | None = None
    generate_name: str | None = None
    namespace: str | None = None
    labels: Labels | None = None
    annotations: Labels | None = None
    uid: str | None = None


class TemplateMeta(KubeModel):
    """Metadata of a template: only labels and annotations are used, as in the CRD's ObjectMeta subset."""

    name: str | None = None
    namespace: str | None = None
    labels: Labels | None = None
    annotations: Labels | None = None
    finalizers: list[str] | None = None


class EnvVarSource(OpenKubeModel):
    field_ref: dict[str, Any] | None = None
    resource_field_ref: dict[str, Any] | None = None
    config_map_key_ref: dict[str, Any] | None = None
    secret_key_ref: dict[str, Any] | None = None


class EnvVar(KubeModel):
    name: str = Field(min_length=1)
    value: str | None = None
    value_from: EnvVarSource | None = None


class ResourceRequirements(KubeModel):
    limits: ResourceList | None = None
    requests: ResourceList | None = None
    claims: list[dict[str, Any]] | None = None


class LocalObjectReference(KubeModel):
    name: str = ""


class VolumeMount(OpenKubeModel):
    name: str
    mount_path: str


class ContainerPort(OpenKubeModel):
    container_port: int


class Container(OpenKubeModel):
    name: str = Field(min_length=1)
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    env: list[EnvVar] | None = None
    env_from: list[dict[str, Any]] | None = None
    ports: list[ContainerPort] | None = None
    volume_mounts: list[VolumeMount] | None = None
    resources: ResourceRequirements | None = None

    # The list-maps of the CRD schema: a key may appear once (ports are keyed with their defaulted protocol).
    _unique_env = unique_by("name", "env")

    _unique_mounts = unique_by("mount_path", "volume_mounts")

    _unique_ports = unique_by(
        lambda port: (port.container_port, (port.model_extra or {}).get("protocol") or "TCP"), "ports", key_name="containerPort and protocol"
    )


class Volume(OpenKubeModel):
    name: str = Field(min_length=1)


class PodSpec(OpenKubeModel):
    containers: list[Container] | None = None
    init_containers: list[Container] | None = None
    volumes: list[Volume] | None = None
    overhead: ResourceList | None = None
    resources: ResourceRequirements | None = None
    priority_class_name: str | None = None

    _unique_names = unique_by("name", "containers", "init_containers", "volumes")


class PodTemplateSpec(KubeModel):
    metadata: TemplateMeta | None = None
    spec: PodSpec | None = None


class Condition(KubeModel):
    """metav1.Condition."""

    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_transition_time: str | None = None
    observed_generation: int | None = None


class KubeObject(ObjectModel, OpenKubeModel):
    """Any other Kubernetes object given alongside TrainJobs (Secrets, PriorityClasses, ...)."""

    api_version: str
    kind: str
    metadata: ObjectMeta | None = None
