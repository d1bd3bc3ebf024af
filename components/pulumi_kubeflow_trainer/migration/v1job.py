"""A Training Operator v1 job as `migrate()` reads it, refused where v1's own admission refuses it.

The checks are those of v1.8.1's validating webhooks (pkg/webhooks/<framework>) and, for MPIJob,
which has no webhook, of `ValidateV1MpiJobSpec` that its controller runs; plus what a TrainJob
needs (a name v2 accepts). Replica types are matched exactly, as the webhooks match them.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..api.rules import show
from ..framework.errors import FieldError

GROUP_VERSION = "kubeflow.org/v1"
RESTART_POLICIES = ("Always", "OnFailure", "Never", "ExitCode")
_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


@dataclass(frozen=True)
class KindRules:
    """What v1.8.1 fixes for one kind (pkg/apis/kubeflow.org/v1/<kind>_types.go and its defaults)."""

    kind: str
    framework: str  # as the docs and reports name it
    specs_key: str
    replica_types: tuple[str, ...]
    container: str | None  # the container the operator configures, by name; None: MPI's containers[0]
    restart_policy: str  # the replica restartPolicy v1 defaults to
    port: tuple[str, int] | None  # the port v1 adds to that container when absent (name, number)
    required: str | None = None  # the replica type that must be present
    default_replicas: tuple[tuple[str, int], ...] = ()  # where v1's default is not 1
    single: str | None = None  # the replica type whose replicas must be 1
    single_given: bool = True  # ... and must be written (the webhooks refuse it unset; MPI does not)


KINDS: dict[str, KindRules] = {
    rules.kind: rules
    for rules in (
        KindRules("PyTorchJob", "PyTorch", "pytorchReplicaSpecs", ("Master", "Worker"), "pytorch", "OnFailure", ("pytorchjob-port", 23456),
                  single="Master"),
        KindRules("MPIJob", "MPI", "mpiReplicaSpecs", ("Launcher", "Worker"), None, "Never", None, "Launcher", (("Worker", 0),),
                  single="Launcher", single_given=False),
        KindRules("XGBoostJob", "XGBoost", "xgbReplicaSpecs", ("Master", "Worker"), "xgboost", "Never", ("xgboostjob-port", 9999), "Master",
                  single="Master"),
        KindRules("PaddleJob", "PaddlePaddle", "paddleReplicaSpecs", ("Master", "Worker"), "paddle", "OnFailure", ("master", 36543)),
    )
}

REFUSED = {
    "TFJob": "TensorFlow",
    "MXJob": "MXNet",
}


@dataclass(frozen=True)
class ReplicaSpec:
    type: str  # Master, Worker, Launcher
    path: str  # spec.pytorchReplicaSpecs.Worker
    replicas: int  # v1's default applied
    restart_policy: str  # v1's default applied
    template: dict[str, Any]  # a copy: converters may change it


@dataclass(frozen=True)
class V1Job:
    rules: KindRules
    manifest: Mapping[str, Any]
    where: str  # `FILE#N (Kind/name)`

    @property
    def name(self) -> str:
        return str(self.metadata["name"])

    @property
    def metadata(self) -> Mapping[str, Any]:
        metadata: Mapping[str, Any] = self.manifest["metadata"]
        return metadata

    @property
    def spec(self) -> Mapping[str, Any]:
        spec: Mapping[str, Any] = self.manifest["spec"]
        return spec

    @property
    def run_policy(self) -> Mapping[str, Any]:
        policy = self.spec.get("runPolicy")
        return policy if isinstance(policy, Mapping) else {}

    def replica(self, replica_type: str) -> ReplicaSpec | None:
        spec = self.spec[self.rules.specs_key].get(replica_type)
        if spec is None:
            return None
        defaults = dict(self.rules.default_replicas)
        restart = spec.get("restartPolicy") or self.rules.restart_policy
        return ReplicaSpec(
            type=replica_type,
            path=f"spec.{self.rules.specs_key}.{replica_type}",
            replicas=spec["replicas"] if spec.get("replicas") is not None else defaults.get(replica_type, 1),
            restart_policy=restart,
            template=copy.deepcopy(dict(spec["template"])),
        )


def read_job(manifest: Any, where: str) -> V1Job:
    """The v1 job of one document; raises TrainJobInvalidError-ready FieldErrors (as a list) otherwise."""
    kind = manifest.get("kind") if isinstance(manifest, Mapping) else None
    rules = KINDS.get(kind) if isinstance(kind, str) else None
    if rules is None or not isinstance(manifest, Mapping):
        raise JobRefused([_unsupported(manifest, where)])
    errors = _check(manifest, rules)
    if errors:
        raise JobRefused(errors)
    return V1Job(rules=rules, manifest=manifest, where=where)


class JobRefused(Exception):
    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("\n".join(map(str, errors)))
        self.errors = errors


def _unsupported(manifest: Any, where: str) -> FieldError:
    if not isinstance(manifest, Mapping):
        return FieldError("", f"expected a Kubernetes object (a mapping), got {type(manifest).__name__}")
    kind, api_version = manifest.get("kind"), manifest.get("apiVersion")
    if kind in REFUSED and api_version == GROUP_VERSION:
        framework = REFUSED[str(kind)]
        return FieldError("kind", f"Unsupported value: {show(kind)}: v2 has no runtime for {framework}: Kubeflow Trainer v2's "
                                  "ML policies are torch, mpi, jax, xgboost and flux, so this job cannot be migrated; keep "
                                  f"it on Training Operator v1, or write a TrainingRuntime that runs {framework} yourself")
    known = ", ".join(KINDS)
    if kind in KINDS:
        return FieldError("apiVersion", f"Unsupported value: {show(api_version)}: {kind} is migrated from {GROUP_VERSION} only")
    return FieldError("kind", f"Unsupported value: {show(kind)} (apiVersion {show(api_version)}): not a Training Operator v1 "
                              f"job; migrate reads {known} ({GROUP_VERSION}); apply other objects as they are")


def _check(manifest: Mapping[str, Any], rules: KindRules) -> list[FieldError]:
    errors: list[FieldError] = []
    if manifest.get("apiVersion") != GROUP_VERSION:  # the rest is another API's: no use checking it
        return [FieldError("apiVersion", f"Unsupported value: {show(manifest.get('apiVersion'))}: "
                                         f"{rules.kind} is migrated from {GROUP_VERSION} only")]
    metadata = manifest.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    if not isinstance(name, str) or not name:
        errors.append(FieldError("metadata.name", "Required value: a TrainJob needs a name"))
    elif not _DNS1035.match(name) or len(name) > 63:
        errors.append(FieldError("metadata.name", f"Invalid value: {show(name)}: should match a DNS-1035 label (lower-case "
                                                  "letters, digits and '-', starting with a letter, at most 63 characters), "
                                                  "as v1's webhook and v2's TrainJob require"))
    spec = manifest.get("spec")
    if not isinstance(spec, Mapping):
        return [*errors, FieldError("spec", "Required value: must be an object")]
    errors += _check_spec_values(spec, rules)
    specs = spec.get(rules.specs_key)
    path = f"spec.{rules.specs_key}"
    if not isinstance(specs, Mapping) or not specs:
        return [*errors, FieldError(path, "Required value: must be required")]
    for replica_type, replica in specs.items():
        errors += _check_replica(rules, f"{path}.{replica_type}", replica_type, replica)
    if rules.required and rules.required not in specs:
        errors.append(FieldError(f"{path}.{rules.required}", "Required value: must be present"))
    return errors


def _check_spec_values(spec: Mapping[str, Any], rules: KindRules) -> list[FieldError]:
    errors = []
    expected = {"runPolicy": Mapping, "elasticPolicy": Mapping, "nprocPerNode": str, "slotsPerWorker": int,
                "cleanPodPolicy": str, "mainContainer": str}
    for key, kind in expected.items():
        value = spec.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            errors.append(FieldError(f"spec.{key}", f"Invalid value: {show(value)}: must be {_type_name(kind)}"))
    elastic = spec.get("elasticPolicy")
    if rules.kind == "PyTorchJob" and isinstance(elastic, Mapping) and elastic.get("nProcPerNode") is not None \
            and spec.get("nprocPerNode") is not None:
        errors.append(FieldError("spec.elasticPolicy.nProcPerNode", "Forbidden: must not be used with spec.nprocPerNode "
                                                                    "(v1's webhook: it is the deprecated one)"))
    run_policy = spec.get("runPolicy")
    if isinstance(run_policy, Mapping):
        for key in ("ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit"):
            value = run_policy.get(key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                errors.append(FieldError(f"spec.runPolicy.{key}", f"Invalid value: {show(value)}: must be an integer"))
        suspend = run_policy.get("suspend")
        if suspend is not None and not isinstance(suspend, bool):
            errors.append(FieldError("spec.runPolicy.suspend", f"Invalid value: {show(suspend)}: must be a boolean"))
    return errors


def _type_name(kind: type) -> str:
    return {Mapping: "an object", str: "a string", int: "an integer"}.get(kind, kind.__name__)


def _check_replica(rules: KindRules, path: str, replica_type: str, replica: Any) -> list[FieldError]:
    if replica_type not in rules.replica_types:
        supported = ", ".join(show(name) for name in rules.replica_types)
        return [FieldError(path, f"Unsupported value: {show(replica_type)}: supported values: {supported}")]
    if not isinstance(replica, Mapping):
        return [FieldError(path, "Required value: must be an object with a template")]
    errors = []
    replicas = replica.get("replicas")
    if replicas is not None and (not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0):
        errors.append(FieldError(f"{path}.replicas", f"Invalid value: {show(replicas)}: must be an integer of 0 or more"))
    elif replica_type == rules.single and replicas != 1 and (replicas is not None or rules.single_given):
        errors.append(FieldError(f"{path}.replicas", f"Forbidden: {show(replicas)}: must be 1"))
    restart = replica.get("restartPolicy")
    if restart is not None and restart not in RESTART_POLICIES:
        supported = ", ".join(show(value) for value in RESTART_POLICIES)
        errors.append(FieldError(f"{path}.restartPolicy", f"Unsupported value: {show(restart)}: supported values: {supported}"))
    template = replica.get("template")
    pod_spec = template.get("spec") if isinstance(template, Mapping) else None
    containers = pod_spec.get("containers") if isinstance(pod_spec, Mapping) else None
    containers_path = f"{path}.template.spec.containers"
    if not isinstance(containers, list) or not containers or not all(isinstance(item, Mapping) for item in containers):
        return [*errors, FieldError(containers_path, "Required value: must be specified")]
    for index, container in enumerate(containers):
        if not isinstance(container.get("image"), str) or not container.get("image"):
            errors.append(FieldError(f"{containers_path}[{index}].image", "Required value: must be required"))
        if not isinstance(container.get("name"), str) or not container.get("name"):
            errors.append(FieldError(f"{containers_path}[{index}].name", "Required value: must be required"))
    if rules.container and not any(container.get("name") == rules.container for container in containers):
        errors.append(FieldError(containers_path, f"Required value: must have at least one container with name {rules.container}"))
    return errors
