"""JobSet: endpoints and pod counts of every replicated job, then the JobSet itself."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ..api import constants as c
from ..api.trainjob import InitializerSource, TrainJob
from ..framework.compiled import CompiledRuntime, Derived
from ..framework.context import RenderContext
from ..framework.errors import FieldError, TrainJobInvalidError
from ..framework.info import PodSet, RuntimeInfo
from ..framework.interfaces import NO_FINDINGS, Verdict
from ..framework.kube import Manifest, env_manifests, upsert_env
from ..framework.plan import template_pod_sets
from . import jobset_validation
from .objects import Check, child_metadata

NAME = "JobSet"
INITIALIZER_STEPS = (c.ANCESTOR_DATASET, c.ANCESTOR_MODEL)
MAX_JOB_PODS = 100_000  # `completions` of an Indexed Job (Kubernetes' job validation)


class JobSetPlugin:
    name: ClassVar[str] = NAME

    def compile(self, compiled: CompiledRuntime) -> dict[str, Callable[..., Any] | None]:
        """The validation of a TrainJob with no initializer and no patch: only its counts, since the
        runtime's own count checks are known here."""
        if compiled.derive(RUNTIME_COUNT_CHECKS):
            return {}
        policy = compiled.runtime.spec.ml_policy
        steps: dict[str, Callable[..., Any] | None] = {
            "validate": _compiled_validate(self.validate, flux=policy is not None and policy.flux is not None)
        }
        if not any(pod_set.ancestor in INITIALIZER_STEPS for pod_set in template_pod_sets(compiled)):
            steps["build"] = _compiled_build(self.build)
        return steps

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        verdict = jobset_validation.validate(info, trainjob)
        checks = count_checks(info, trainjob)
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


def _compiled_build(general: Callable[..., list[Manifest]]) -> Callable[..., list[Manifest]]:
    """`build` for a runtime without initializer jobs: nothing to configure for them, unless a patch adds one."""

    def build(info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        return general(info, trainjob, context) if info.patched else _build_jobset(info, trainjob, context)

    return build


def _build_jobset(info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
    """The JobSet, once the initializer jobs are configured."""
    spec = info.jobset_spec
    _configure_trainer(info, trainjob)
    wanted = trainjob.spec
    if "suspend" in wanted.model_fields_set:
        spec["suspend"] = wanted.suspend
    if context.multikueue_jobset and wanted.managed_by == c.MANAGED_BY_MULTIKUEUE:
        spec["managedBy"] = c.MANAGED_BY_MULTIKUEUE
    info.warnings.extend(_undeployable(info))
    if wanted.active_deadline_seconds is not None:
        info.warnings.append(_deadline_check(wanted.active_deadline_seconds))
    metadata = child_metadata(trainjob, info.name)
    labels = {**info.labels, **kueue_labels(trainjob)}
    if labels:
        metadata["labels"] = labels
    if info.annotations:
        metadata["annotations"] = dict(info.annotations)
    return [{"apiVersion": c.JOBSET_API_VERSION, "kind": "JobSet", "metadata": metadata, "spec": spec}]


def _compiled_validate(general: Callable[..., Verdict], *, flux: bool) -> Callable[..., Verdict]:
    def validate(info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        spec, trainer = trainjob.spec, info.trainer
        if spec.initializer is not None or spec.runtime_patches:
            return general(info, trainjob, context)
        if trainer is not None and ((trainer.num_nodes is not None and trainer.num_nodes < 0) or (
                not flux and trainer.num_proc_per_node is not None and trainer.num_proc_per_node < 1)):
            return general(info, trainjob, context)
        return NO_FINDINGS

    return validate


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


def count_checks(info: RuntimeInfo, trainjob: TrainJob) -> list[Check]:
    """Counts the CRDs accept (int32, no minimum) and upstream renders, though nothing could run them."""
    found: list[Check] = []
    trainer = info.trainer
    if trainer is not None and trainer.num_nodes is not None and trainer.num_nodes < 0:
        found.append(Check(FieldError("spec.trainer.numNodes", f"Invalid value: {trainer.num_nodes}: must be greater than or "
                                      "equal to 0: the Jobs' parallelism would be negative, which the API server refuses")))
    flux = info.ml_policy is not None and info.ml_policy.flux is not None  # its webhook refuses it (plugins.flux)
    if trainer is not None and trainer.num_proc_per_node is not None and trainer.num_proc_per_node < 1 and not flux:
        found.append(Check(FieldError("spec.trainer.numProcPerNode", f"Invalid value: {trainer.num_proc_per_node}: must be "
                                      "greater than or equal to 1: no process would start")))
    count_checks: tuple[Check, ...] = info.compiled.derive(RUNTIME_COUNT_CHECKS)  # typed: mypy solves derive() from extend()
    found.extend(count_checks)
    return found


def _runtime_count_checks(compiled: CompiledRuntime) -> tuple[Check, ...]:
    """`count_checks` of the runtime's own counts: the same for every TrainJob."""
    runtime = compiled.runtime
    policy = runtime.spec.ml_policy
    if policy is None:
        return ()
    where = f"{runtime.kind}/{runtime.name}"
    found = []
    if policy.num_nodes is not None and policy.num_nodes < 0:
        found.append(Check(FieldError("spec.runtimeRef", f"Invalid value: {policy.num_nodes}: {where} sets mlPolicy.numNodes "
                                      "below 0; the Jobs' parallelism would be negative")))
    if policy.mpi is not None and policy.mpi.num_proc_per_node < 1:  # Flux's webhook refuses it (plugins.flux)
        found.append(Check(FieldError("spec.runtimeRef", f"Invalid value: {policy.mpi.num_proc_per_node}: {where} sets "
                                      "numProcPerNode below 1: no process would start")))
    return tuple(found)


RUNTIME_COUNT_CHECKS: Derived[tuple[Check, ...]] = Derived("runtime count checks", _runtime_count_checks)


def _job_order_checks(compiled: CompiledRuntime) -> tuple[Check, ...]:
    """JobSet's webhook (v0.12.0, jobset_webhook.go) refuses a JobSet whose first replicated job sets
    `dependsOn`, or whose job depends on one not listed before it; the Trainer controller renders
    such a runtime, and its JobSet is then refused. The same for every TrainJob of the runtime."""
    runtime = compiled.runtime
    where = f"{runtime.kind}/{runtime.name}"
    found: list[Check] = []
    before: list[str | None] = []
    for job in compiled.jobset_spec.get("replicatedJobs") or ():
        name, depends_on = job.get("name"), job.get("dependsOn")
        later = [item.get("name") for item in depends_on or () if item.get("name") not in before]
        if later:
            targets = ", ".join(map(repr, later))
            problem = f"lists replicated job {name!r} before {targets}, which it depends on; list {targets} first"
        elif depends_on is not None and not before:
            problem = f"sets dependsOn on its first replicated job {name!r}; drop it"
        else:
            problem = ""
        if problem:
            found.append(Check(FieldError("spec.runtimeRef", f"Invalid value: {name!r}: {where} {problem}: the JobSet webhook "
                                          "refuses a job that depends on one not listed before it")))
        before.append(name)
    return tuple(found)


JOB_ORDER_CHECKS: Derived[tuple[Check, ...]] = Derived("replicated job order checks", _job_order_checks)


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


def _undeployable(info: RuntimeInfo) -> Sequence[Check]:
    """Jobs or containers the API server would reject (no image, or added by a patch with a wrong name).
    Upstream renders them and the JobSet is then refused; here they are warnings (errors in strict mode)."""
    errors = []
    runtime_jobs = info.compiled.job_names
    for pod_set in info.pod_sets:
        if info.patched and pod_set.name not in runtime_jobs:  # only a patch adds jobs
            errors.append(
                FieldError(
                    "spec.runtimePatches",
                    f"Invalid value: {pod_set.name!r}: a runtime patch adds replicated job {pod_set.name!r}, which the "
                    f"runtime does not have (it has: {', '.join(map(repr, runtime_jobs))}): fix the name",
                )
            )
            continue
        pod_spec = pod_set.pod_spec
        for field in ("initContainers", "containers"):
            for container in pod_spec.get(field) or ():
                if not container.get("image"):
                    runtime_names = [item.get("name") for item in info.compiled.containers_of(pod_set.name, field)]
                    errors.append(_missing_image(pod_set.name, field, container.get("name"), runtime_names))
    order_checks: tuple[Check, ...] = info.compiled.derive(JOB_ORDER_CHECKS)
    return [*map(Check, errors), *order_checks] if errors else order_checks


def _missing_image(job: str, field: str, name: str | None, runtime_names: list[str | None]) -> FieldError:
    where = f"{field[:-1]} {name!r} of replicated job {job!r} has no image, so the JobSet would be rejected"
    if name not in runtime_names:
        known = ", ".join(repr(known) for known in runtime_names) or "none"
        return FieldError(
            "spec.runtimePatches",
            f"Invalid value: {name!r}: {where}; a runtime patch adds it because the runtime has no such "
            f"{field[:-1]} (it has: {known}): fix the name",
        )
    if name == c.NODE:
        return FieldError("spec.trainer.image", f"Required value: {where}; set spec.trainer.image")
    return FieldError("spec.runtimeRef", f"Invalid value: {where}; give it an image in the runtime")
