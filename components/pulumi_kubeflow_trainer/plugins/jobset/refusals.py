"""What the API server or the JobSet webhook would refuse in the JobSet this plugin builds, though
v2.3.0's webhooks admit the TrainJob and its controller renders it: counts below what can run, a
container without an image, a resource requested beyond its limit (an extended one without an equal
limit), a job that depends on one listed after it. Each is a `Refused` finding (framework.objects):
an error where this library creates the JobSet, a warning where a TrainJob object is only admitted."""

from __future__ import annotations

from collections.abc import Sequence

from ...api import constants as c
from ...api.quantity import Quantity, QuantityError
from ...api.rules import show
from ...api.trainjob import TrainJob, negative_nodes, too_few_processes
from ...framework.compiled import CompiledRuntime, Derived
from ...framework.errors import FieldError
from ...framework.info import PodSet, RuntimeInfo
from ...framework.kube import Manifest
from ...framework.objects import Check, Refused


def count_refusals(info: RuntimeInfo, trainjob: TrainJob) -> list[Check]:
    """Counts the CRDs accept (int32, no minimum) and upstream renders, though nothing could run them."""
    found: list[Check] = []
    trainer = info.trainer
    if trainer is not None and trainer.num_nodes is not None and trainer.num_nodes < 0:
        found.append(Refused(FieldError("spec.trainer.numNodes", negative_nodes(trainer.num_nodes))))
    flux = info.ml_policy is not None and info.ml_policy.flux is not None  # its webhook refuses it (plugins.flux)
    if trainer is not None and trainer.num_proc_per_node is not None and trainer.num_proc_per_node < 1 and not flux:
        found.append(Refused(FieldError("spec.trainer.numProcPerNode", too_few_processes(trainer.num_proc_per_node))))
    runtime_counts: tuple[Check, ...] = info.compiled.derive(RUNTIME_COUNT_REFUSALS)  # typed: mypy solves derive() from extend()
    found.extend(runtime_counts)
    return found


def _runtime_count_refusals(compiled: CompiledRuntime) -> tuple[Check, ...]:
    """`count_refusals` of the runtime's own counts: the same for every TrainJob."""
    runtime = compiled.runtime
    policy = runtime.spec.ml_policy
    if policy is None:
        return ()
    where = f"{runtime.kind}/{runtime.name}"
    found: list[Check] = []
    if policy.num_nodes is not None and policy.num_nodes < 0:
        found.append(Refused(FieldError("spec.runtimeRef", f"Invalid value: {policy.num_nodes}: {where} sets "
                                        "mlPolicy.numNodes below 0; the Jobs' parallelism would be negative: fix the runtime")))
    if policy.mpi is not None and policy.mpi.num_proc_per_node < 1:  # Flux's webhook refuses it (plugins.flux)
        found.append(Refused(FieldError("spec.runtimeRef", f"Invalid value: {policy.mpi.num_proc_per_node}: {where} sets "
                                        "numProcPerNode below 1: no process would start: fix the runtime")))
    return tuple(found)


RUNTIME_COUNT_REFUSALS: Derived[tuple[Check, ...]] = Derived("runtime count refusals", _runtime_count_refusals)


def _job_order_refusals(compiled: CompiledRuntime) -> tuple[Check, ...]:
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
            found.append(Refused(FieldError("spec.runtimeRef", f"Invalid value: {name!r}: {where} {problem}: the JobSet "
                                            "webhook refuses a job that depends on one not listed before it")))
        before.append(name)
    return tuple(found)


JOB_ORDER_REFUSALS: Derived[tuple[Check, ...]] = Derived("replicated job order refusals", _job_order_refusals)


def build_refusals(info: RuntimeInfo) -> Sequence[Check]:
    """Jobs and containers of the built JobSet the API server would refuse, or that a patch invents."""
    found: list[Check] = []
    runtime_jobs = info.compiled.job_names
    for pod_set in info.pod_sets:
        if info.patched and pod_set.name not in runtime_jobs:  # only a patch adds jobs
            found.append(Check(FieldError(
                "spec.runtimePatches",
                f"Invalid value: {pod_set.name!r}: a runtime patch adds replicated job {pod_set.name!r}, which the "
                f"runtime does not have (it has: {', '.join(map(repr, runtime_jobs))}): fix the name",
            )))
            continue
        for field in ("initContainers", "containers"):
            for container in pod_set.pod_spec.get(field) or ():
                if not container.get("image"):
                    runtime_names = [item.get("name") for item in info.compiled.containers_of(pod_set.name, field)]
                    found.append(Refused(_missing_image(pod_set.name, field, container.get("name"), runtime_names)))
                resources = container.get("resources")
                if resources and resources.get("requests"):  # nothing to check otherwise: most containers
                    found.extend(map(Refused, resource_refusals(info, pod_set, container)))
    order: tuple[Check, ...] = info.compiled.derive(JOB_ORDER_REFUSALS)
    return [*found, *order] if found else order


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


def overcommit_allowed(resource: str) -> bool:
    """Kubernetes' `IsOvercommitAllowed`: native resources (no domain, or a kubernetes.io one) but
    hugepages may request less than their limit; any other (nvidia.com/gpu, ...) must request its limit."""
    native = "/" not in resource or "kubernetes.io/" in resource
    return native and not resource.startswith("hugepages-")


def resource_refusals(info: RuntimeInfo, pod_set: PodSet, container: Manifest) -> list[FieldError]:
    """The API server's rule on a container's requests against its limits (`validateResourceRequirements`):
    a request above its limit is refused; so is an extended resource's request without a limit equal to it."""
    resources = container.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    found = []
    for resource, request in requests.items():
        limit = limits.get(resource)
        if limit is None and overcommit_allowed(resource):
            continue
        try:
            requested, limited = Quantity.parse(request), (Quantity.parse(limit) if limit is not None else None)
        except QuantityError:
            continue  # a malformed quantity is the schema's error, reported where it was given
        if limited is not None and (requested.nanos == limited.nanos or (overcommit_allowed(resource) and requested.nanos < limited.nanos)):
            continue
        given, where = _given_by_trainjob(info, pod_set, container, resource)
        path = ("spec.trainer.resourcesPerNode." + ("limits" if limit is None else "requests")) if given else "spec.runtimeRef"
        found.append(FieldError(path, _resource_message(resource, request, limit, where)))
    return found


def _given_by_trainjob(info: RuntimeInfo, pod_set: PodSet, container: Manifest, resource: str) -> tuple[bool, str]:
    """Whether the TrainJob's resourcesPerNode gave the resource, else which runtime container has it."""
    wanted = info.requested_resources or {}
    if container.get("name") == c.NODE and info.is_trainer_node(pod_set) and any(resource in (wanted.get(part) or {}) for part in ("requests", "limits")):
        return True, ""
    source = "the runtime and its patches give" if info.patched else "the runtime gives"
    return False, f" ({source} it to container {container.get('name')!r} of replicated job {pod_set.name!r})"


def _resource_message(resource: str, request: object, limit: object, where: str) -> str:
    if limit is None:
        return (f"Required value: {resource} is requested ({request}) without a limit{where}; the API "
                f'server refuses the Pod ("Limit must be set for non overcommitable resources"): set limits {show({resource: str(request)})} '
                "too, or give limits alone (requests default to them)")
    if overcommit_allowed(resource):
        return (f"Invalid value: {show(str(request))}: must be less than or equal to {resource} limit of "
                f"{limit}{where}; the API server refuses the Pod: lower the request or raise the limit")
    return (f"Invalid value: {show(str(request))}: must be equal to {resource} limit of {limit}{where}: "
            f"an extended resource is requested exactly as limited, or the API server refuses the Pod; set both to one value")
