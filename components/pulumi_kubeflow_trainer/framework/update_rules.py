"""Rules for updating a TrainJob: CEL immutability and the webhook's runtime-patch rules."""

from __future__ import annotations

from typing import Any

from ..api.trainjob import TrainJob
from .errors import FieldError
from .kube import Manifest, dig

IMMUTABLE_SPEC_FIELDS = ("runtimeRef", "initializer", "trainer", "activeDeadlineSeconds", "managedBy")
IMMUTABLE_PATCH_POD_FIELDS = (
    "serviceAccountName",
    "volumes",
    "initContainers",
    "containers",
    "imagePullSecrets",
    "securityContext",
    "terminationGracePeriodSeconds",
)


def _stored(trainjob: TrainJob) -> Manifest:
    """The object as the API server stores it: CRD defaults included."""
    return trainjob.model_dump(by_alias=True, exclude_none=True, mode="json")


def _type_name(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer"}.get(type(value), "object")


def _immutable(path: str, value: Any) -> FieldError:
    return FieldError(path, f'Invalid value: "{_type_name(value)}": field is immutable; create a new TrainJob instead')


def validate_update(old: TrainJob, new: TrainJob, jobset: Manifest | None = None) -> list[FieldError]:
    old_spec, new_spec = _stored(old)["spec"], _stored(new)["spec"]
    errors = [
        _immutable(f"spec.{field}", new_spec[field])
        for field in IMMUTABLE_SPEC_FIELDS
        # CEL transition rules only run when the field exists before and after the update.
        if field in old_spec and field in new_spec and old_spec[field] != new_spec[field]
    ]
    errors.extend(_immutable_patch_fields(old_spec, new_spec))
    errors.extend(runtime_patch_update_errors(old_spec, new_spec, jobset))
    return errors


def _by(items: list[Manifest] | None, key: str) -> dict[Any, tuple[int, Manifest]]:
    return {item.get(key): (index, item) for index, item in enumerate(items or [])}


def _immutable_patch_fields(old_spec: Manifest, new_spec: Manifest) -> list[FieldError]:
    errors: list[FieldError] = []
    old_patches = _by(old_spec.get("runtimePatches"), "manager")
    for index, patch in enumerate(new_spec.get("runtimePatches") or []):
        if patch.get("manager") not in old_patches:
            continue
        old_jobs = _by(dig(old_patches[patch["manager"]][1], "trainingRuntimeSpec", "template", "spec", "replicatedJobs"), "name")
        new_jobs = dig(patch, "trainingRuntimeSpec", "template", "spec", "replicatedJobs") or []
        for job_index, job in enumerate(new_jobs):
            if job.get("name") not in old_jobs:
                continue
            old_pod = dig(old_jobs[job["name"]][1], "template", "spec", "template", "spec") or {}
            new_pod = dig(job, "template", "spec", "template", "spec") or {}
            prefix = (
                f"spec.runtimePatches[{index}].trainingRuntimeSpec.template.spec.replicatedJobs[{job_index}]"
                ".template.spec.template.spec"
            )
            errors.extend(
                _immutable(f"{prefix}.{field}", new_pod[field])
                for field in IMMUTABLE_PATCH_POD_FIELDS
                if field in old_pod and field in new_pod and old_pod[field] != new_pod[field]
            )
    return errors


def _without_time(patches: list[Manifest] | None) -> list[Manifest]:
    return [{key: value for key, value in patch.items() if key != "time"} for patch in patches or []]


def runtime_patch_update_errors(old_spec: Manifest, new_spec: Manifest, jobset: Manifest | None) -> list[FieldError]:
    """The webhook's rule: patches change only while suspended, before or after, and with no job active."""
    if _without_time(old_spec.get("runtimePatches")) == _without_time(new_spec.get("runtimePatches")):
        return []
    if not old_spec.get("suspend") and not new_spec.get("suspend"):
        return [
            FieldError(
                "spec.runtimePatches",
                "Forbidden: RuntimePatches can only be modified when the TrainJob is suspended before or after the update; "
                "set spec.suspend to true in the same update or before it",
            )
        ]
    errors = []
    for job in dig(jobset, "status", "replicatedJobsStatus") or []:
        if (job.get("active") or 0) > 0:
            errors.append(
                FieldError(
                    "spec.runtimePatches",
                    f"Forbidden: RuntimePatches cannot be modified when the JobSet's ReplicatedJob {job.get('name')} is still "
                    "active; wait until its jobs are suspended",
                )
            )
    return errors
