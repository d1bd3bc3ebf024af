"""JobSet: endpoints and pod counts of every replicated job, then the JobSet itself."""

from __future__ import annotations

from typing import ClassVar

from ...api import constants as c
from ...api.trainjob import InitializerSource, TrainJob
from ...framework.context import RenderContext
from ...framework.errors import FieldError, TrainJobInvalidError
from ...framework.info import PodSet, RuntimeInfo
from ...framework.interfaces import Verdict
from ...framework.kube import Manifest, env_manifests, upsert_env
from ...framework.objects import Check, child_metadata
from . import validation as jobset_validation
from .refusals import build_refusals, count_refusals

NAME = "JobSet"
MAX_JOB_PODS = 100_000  # `completions` of an Indexed Job (Kubernetes' job validation)


class JobSetPlugin:
    name: ClassVar[str] = NAME

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        verdict = jobset_validation.validate(info, trainjob)
        checks = count_refusals(info, trainjob)
        return Verdict(errors=list(verdict.errors), warnings=[*verdict.warnings, *checks]) if checks else verdict

    def pre_build_sync(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        name, subdomain = info.name, info.subdomain
        too_many = []
        for pod_set in info.pod_sets:
            count, replicas = pod_set.count, pod_set.job.get("replicas", 1)
            if replicas * count > MAX_JOB_PODS:
                too_many.append(pod_set)
            # The endpoints are listed when a plugin first reads them, from the counts of now.
            pod_set.endpoint_naming = (name, subdomain, replicas, count)
            job_spec = pod_set.job_spec
            job_spec["parallelism"] = count
            job_spec["completions"] = count
        if too_many:
            raise TrainJobInvalidError([_too_many_pods(pod_set) for pod_set in too_many])

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        _configure_initializers(info, trainjob)
        return _build_jobset(info, trainjob, context)


def _build_jobset(info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
    spec = info.jobset_spec
    _configure_trainer(info, trainjob)
    wanted = trainjob.spec
    if "suspend" in wanted.model_fields_set:
        spec["suspend"] = wanted.suspend
    if context.multikueue_jobset and wanted.managed_by == c.MANAGED_BY_MULTIKUEUE:
        spec["managedBy"] = c.MANAGED_BY_MULTIKUEUE
    info.warnings.extend(build_refusals(info))
    if wanted.active_deadline_seconds is not None:
        info.warnings.append(_deadline_check(wanted.active_deadline_seconds))
    metadata = child_metadata(trainjob, info.name)
    labels = {**info.labels, **kueue_labels(trainjob)}
    if labels:
        metadata["labels"] = labels
    if info.annotations:
        metadata["annotations"] = dict(info.annotations)
    return [{"apiVersion": c.JOBSET_API_VERSION, "kind": "JobSet", "metadata": metadata, "spec": spec}]


def _configure_initializers(info: RuntimeInfo, trainjob: TrainJob) -> None:
    initializer = trainjob.spec.initializer
    sources: dict[str, InitializerSource | None] = {
        c.ANCESTOR_DATASET: initializer.dataset if initializer else None,
        c.ANCESTOR_MODEL: initializer.model if initializer else None,
    }
    for pod_set in info.pod_sets:
        if pod_set.ancestor not in sources:
            continue
        pod_set.job["replicas"] = 1
        source = sources[pod_set.ancestor]
        container = pod_set.find_container(pod_set.ancestor)
        if source is None or container is None:
            continue
        if source.storage_uri:
            upsert_env(container, [{"name": c.ENV_STORAGE_URI, "value": source.storage_uri}])
        upsert_env(container, env_manifests(source.env))
        if source.secret_ref is not None:
            container.setdefault("envFrom", []).append({"secretRef": {"name": source.secret_ref.name}})


def _configure_trainer(info: RuntimeInfo, trainjob: TrainJob) -> None:
    trainer = info.trainer
    for pod_set in info.pod_sets:
        is_trainer = pod_set.ancestor == c.ANCESTOR_TRAINER
        if is_trainer:
            pod_set.job["replicas"] = 1
        container = pod_set.find_container(c.NODE)
        if trainer is None or container is None:
            continue
        if is_trainer:
            if trainer.image:
                container["image"] = trainer.image
            # Given, even empty, they replace the runtime's (`command: []` leaves none), as upstream's
            # builder does (`args != nil`).
            _replace(container, "command", info.trainer_command)
            _replace(container, "args", info.trainer_args)
        if trainer.env and info.is_trainer_node(pod_set):
            upsert_env(container, env_manifests(trainer.env))


def _too_many_pods(pod_set: PodSet) -> FieldError:
    """Kubernetes runs at most MAX_JOB_PODS pods per Indexed Job: more would be rejected at deploy time,
    and listing their endpoints would take unbounded memory here. Upstream's controller has no check."""
    pods = pod_set.replicas * pod_set.count
    is_trainer = pod_set.ancestor == c.ANCESTOR_TRAINER
    path, value = ("spec.trainer.numNodes", pod_set.count) if is_trainer else ("spec.runtimeRef", pod_set.name)
    return FieldError(path, f"Invalid value: {value!r}: replicated job {pod_set.name!r} would run {pods} pods; "
                            f"Kubernetes runs at most {MAX_JOB_PODS} per Indexed Job: use fewer nodes")


def _replace(container: Manifest, key: str, value: list[str] | None) -> None:
    if value is None:
        return
    if value:
        container[key] = list(value)
    else:
        container.pop(key, None)


KUEUE_PREFIX = "kueue.x-k8s.io/"


def kueue_labels(trainjob: TrainJob) -> dict[str, str]:
    """The TrainJob's Kueue labels (`kueue.x-k8s.io/queue-name`, `.../priority-class`, ...). Kueue reads
    them from the TrainJob, which the controller owns; rendered, there is no TrainJob object, so they go
    on the JobSet, where Kueue reads them too."""
    return {key: value for key, value in (trainjob.metadata.labels or {}).items() if key.startswith(KUEUE_PREFIX)}


def _deadline_check(seconds: int) -> Check:
    return Check(FieldError(
        "spec.activeDeadlineSeconds",
        f"Invalid value: {seconds}: has no effect once rendered: the Trainer controller enforces it by deleting the "
        "JobSet when the deadline passes, and nothing does that without it. It is not mapped: JobSet v1alpha2 has no "
        "deadline of its own, and a Job's activeDeadlineSeconds counts per Job (it restarts with every JobSet restart "
        "and starts only when the Job does, after the initializers); set one in the runtime's Job templates if that "
        "is what you want",
    ))


