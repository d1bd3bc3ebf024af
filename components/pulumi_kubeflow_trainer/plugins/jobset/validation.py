"""The TrainJob webhook rules the JobSet plugin owns: initializer jobs and runtime patches."""

from __future__ import annotations

import re
from typing import Any

from ...api import constants as c
from ...api.rules import show
from ...api.trainjob import TrainJob
from ...framework.errors import FieldError
from ...framework.info import RuntimeInfo
from ...framework.interfaces import NO_FINDINGS, Verdict
from ...framework.kube import dig

_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_HTTP_PATH = re.compile(r"^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$")
ENV_LOCKED_CONTAINERS = (c.DATASET_INITIALIZER, c.MODEL_INITIALIZER, c.NODE)


def validate(info: RuntimeInfo, trainjob: TrainJob) -> Verdict:
    initializer, patches = trainjob.spec.initializer, trainjob.spec.runtime_patches
    if initializer is None and not patches:
        return NO_FINDINGS  # most TrainJobs: nothing of theirs this plugin checks
    verdict = Verdict()
    if initializer is not None and initializer.dataset is not None:
        verdict.errors.extend(_initializer_errors(info, c.ANCESTOR_DATASET, "datasetConfig"))
    if initializer is not None and initializer.model is not None:
        verdict.errors.extend(_initializer_errors(info, c.ANCESTOR_MODEL, "modelConfig"))
    for index, patch in enumerate(patches or []):
        verdict.errors.extend(manager_errors(patch.manager, index))
    if patches:
        verdict.extend(_patch_findings(info, trainjob))
    return verdict


def _initializer_errors(info: RuntimeInfo, step: str, config: str) -> list[FieldError]:
    runtime = show(info.runtime.name)
    pod_set = info.find_pod_set(ancestor=step) or info.find_pod_set(name=step)
    if pod_set is None:
        return [FieldError("spec.runtimeRef", f"Invalid value: {runtime}: must have {step} job when trainJob is configured with input {config}")]
    container = pod_set.find_container(step)
    if container is None:
        return [FieldError("spec.runtimeRef", f"Invalid value: {runtime}: must have container with name - {step} in the {step} job")]
    if not any(mount.get("name") == c.INITIALIZER_VOLUME for mount in container.get("volumeMounts") or []):
        return [
            FieldError(
                "spec.runtimeRef",
                f"Invalid value: {runtime}: must have volumeMount with name - {c.INITIALIZER_VOLUME} in container {step} "
                f"of the {step} job",
            )
        ]
    return []


def manager_errors(manager: str, index: int) -> list[FieldError]:
    """`IsDomainPrefixedPath`: `<DNS subdomain>/<path>`, e.g. `kueue.x-k8s.io/manager`."""
    path = "spec.runtimePatches.manager"
    host, slash, rest = manager.partition("/")
    if not slash or not host or not rest:
        return [FieldError(path, f'Invalid value: {show(manager)}: must be a domain-prefixed path (such as "acme.io/foo") (runtimePatches[{index}])')]
    errors = []
    if len(host) > 253:
        errors.append(FieldError(path, f"Invalid value: {show(host)}: must be no more than 253 characters"))
    if not _DNS1123_SUBDOMAIN.match(host):
        errors.append(
            FieldError(
                path,
                f"Invalid value: {show(host)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com')",
            )
        )
    if not _HTTP_PATH.match(rest):
        errors.append(FieldError(path, f"Invalid value: {show(rest)}: Invalid path (e.g. 'acme.io/foo')"))
    return errors


def _patch_findings(info: RuntimeInfo, trainjob: TrainJob) -> Verdict:
    """Env on the managed containers is an error; names the runtime lacks are warnings, because the
    upstream webhook checks them after merging the patch, where they always exist."""
    verdict = Verdict()
    runtime_jobs = info.compiled.job_names
    for index, patch in enumerate(trainjob.spec.runtime_patches or []):
        for job in dig(patch.to_manifest(), "trainingRuntimeSpec", "template", "spec", "replicatedJobs") or []:
            name = job.get("name")
            if name not in runtime_jobs:
                verdict.warnings.append(
                    f"spec.runtimePatches[{index}]: replicated job {name!r} does not exist in the runtime job template"
                )
                continue
            pod_spec = dig(job, "template", "spec", "template", "spec") or {}
            verdict.extend(_container_findings(info, index, name, pod_spec))
    return verdict


def _container_findings(info: RuntimeInfo, index: int, job: str, pod_spec: dict[str, Any]) -> Verdict:
    verdict = Verdict()
    for field, label in (("initContainers", "initContainer"), ("containers", "container")):
        known = {item.get("name") for item in info.compiled.containers_of(job, field)}
        for container in pod_spec.get(field) or []:
            name = container.get("name")
            if name not in known:
                verdict.warnings.append(
                    f"spec.runtimePatches[{index}]: must not have {label} that doesn't exist in the runtime job {job}: {name!r}"
                )
            if container.get("env") and name in ENV_LOCKED_CONTAINERS:
                verdict.errors.append(
                    FieldError(
                        "spec.runtimePatches",
                        f"Invalid value: {show(name)}: must not have envs for the dataset-initializer, model-initializer, "
                        f"node containers; set env through spec.trainer.env or spec.initializer (runtimePatches[{index}])",
                    )
                )
    return verdict
