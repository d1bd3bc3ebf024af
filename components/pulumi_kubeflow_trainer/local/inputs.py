"""The objects of one run: rendered children as given, or a TrainJob rendered here against its runtime."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from ..api import constants as c
from ..api.jobset import JobSetSpec
from ..framework.errors import FieldError, TrainJobInvalidError, field_errors
from ..loading import describe, parse, read_manifests
from .plan import LocalRunError

RUNTIME_KINDS = (c.TRAINING_RUNTIME_KIND, c.CLUSTER_TRAINING_RUNTIME_KIND)
PASSED_THROUGH = ("Secret", "ConfigMap")  # what env and volumes of the Pods may refer to
MAX_LOCAL_PODS = 1000  # each Pod is a process (or more) on this host


def prepare_manifests(objects: Any, job: str | None = None, *, bundled: bool = True) -> list[dict[str, Any]]:
    """The JobSet (and its Secrets and ConfigMaps) of one TrainJob.

    `objects`: manifests, models, YAML text, files or directories, or lists of them (loading's limits).
    When a TrainJob is among them it is rendered first, against the runtimes given with it and then
    (unless `bundled=False`) the bundled ones: runtime_lookup's rule; otherwise the objects are taken to
    be `trainjob render` output. Errors name the file and document they are about.
    """
    located = read_manifests(objects)
    errors = []
    for manifest, where in located:  # checked as render checks them; what is run is the text as given
        try:
            parse(manifest, where)
        except TrainJobInvalidError as invalid:
            errors += invalid.errors
    if errors:
        raise TrainJobInvalidError(errors)
    manifests = [manifest for manifest, _ in located]
    trainjobs = [m for m in manifests if m.get("kind") == c.TRAINJOB_KIND]
    if trainjobs:
        chosen, labels = _choose(trainjobs, job), dict(located_labels(located))
        runtimes = [m for m in manifests if m.get("kind") in RUNTIME_KINDS]
        found = _render(chosen, runtimes, bundled, labels) + [m for m in manifests if m.get("kind") in PASSED_THROUGH]
        source = f"{labels.get(describe(chosen, ''), '')}, its JobSet"
        jobsets = [(m, source, "lower spec.trainer.numNodes") for m in found if m.get("kind") == "JobSet"]
    else:
        found = [m for m in manifests if m.get("kind") != "JobSet" or job in (None, _name(m))]
        jobsets = [(m, describe(m, where), "lower replicas, parallelism or completions") for m, where in located
                   if m.get("kind") == "JobSet" and job in (None, _name(m))]
    for jobset, where, fix in jobsets:
        check_jobset(jobset, where, fix)
    return found


def check_jobset(manifest: Mapping[str, Any], where: str, fix: str) -> None:
    """What the API server would refuse in a JobSet given as it is, and more Pods than one host runs
    (in a rendered one too), stop the run before anything starts."""
    try:
        spec = JobSetSpec.model_validate(manifest.get("spec") or {})
    except ValidationError as error:
        raise TrainJobInvalidError(field_errors(error, "spec"), source=where) from None
    errors, pods = [], 0
    for index, job in enumerate(spec.replicated_jobs or []):
        counts = {"replicas": job.replicas, "template.spec.parallelism": job.template.spec.parallelism,
                  "template.spec.completions": job.template.spec.completions}
        errors += [FieldError(f"spec.replicatedJobs[{index}].{path}", f"Invalid value: {count}: must be greater than or equal to 0")
                   for path, count in counts.items() if count is not None and count < 0]
        pods += max(job.replicas, 0) * max(job.template.spec.completions or job.template.spec.parallelism or 1, 0)
    if pods > MAX_LOCAL_PODS:
        errors.append(FieldError("spec.replicatedJobs", f"Invalid value: {pods} Pods: run-local runs at most {MAX_LOCAL_PODS} "
                                                        f"on one host; {fix}"))
    if errors:
        raise TrainJobInvalidError(errors, source=where)


def located_labels(located: list[tuple[dict[str, Any], str]]) -> Iterable[tuple[str, str]]:
    """(how render names an object given as a dict, `Kind/name`; where it really is from)."""
    return ((describe(manifest, ""), describe(manifest, where)) for manifest, where in located)


def _choose(trainjobs: list[dict[str, Any]], job: str | None) -> dict[str, Any]:
    if job is not None:
        for trainjob in trainjobs:
            if _name(trainjob) == job:
                return trainjob
        raise LocalRunError(f"no TrainJob named {job!r}; found {', '.join(map(_name, trainjobs))}")
    if len(trainjobs) > 1:
        raise LocalRunError(f"found {len(trainjobs)} TrainJobs ({', '.join(map(_name, trainjobs))}); choose one with --job NAME")
    return trainjobs[0]


def _render(trainjob: dict[str, Any], runtimes: list[dict[str, Any]], bundled: bool, where: Mapping[str, str]) -> list[dict[str, Any]]:
    from ..rendering import render

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecation notices are `trainjob validate`'s business
        try:
            return render([trainjob, *runtimes], runtime_snapshot=False, bundled=bundled)
        except TrainJobInvalidError as invalid:  # given as dicts, the objects are named `Kind/name`: say the file
            errors = [FieldError(error.path, error.message, where.get(error.source, error.source)) for error in invalid.errors]
            raise TrainJobInvalidError(errors, warnings=invalid.warnings) from None


def _name(manifest: Mapping[str, Any]) -> str:
    return str((manifest.get("metadata") or {}).get("name", ""))
