"""From a `Plan` to manifests: the TrainJob (metadata and run policy of the v1 job) and, when the
bundled runtime does not fit, the TrainingRuntime generated for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import constants as c
from ..api.rules import show
from .plan import PATCH_CONTAINER_FIELDS, PATCH_MANAGER, PATCH_POD_FIELDS, JobPart, Plan, bundled_misfits, trainer_of
from .plan import without_trainer_fields as runtime_template
from .report import Losses

KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# Metadata the API server keeps of the v1 object itself: it describes that object, not the job.
SERVER_METADATA = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink",
                   "deletionTimestamp", "deletionGracePeriodSeconds")
CARRIED_METADATA = ("name", "namespace", "labels", "annotations", "ownerReferences", "finalizers")
SCHEDULING_POLICY_WHY = {
    "minAvailable": "v1 made a PodGroup of this size when its gang scheduling was on; v2 sizes the PodGroup from the "
                    "runtime's podGroupPolicy (e.g. torch-distributed-coscheduling) and every node",
    "minResources": "v1 put it in its PodGroup; v2 computes the PodGroup's minResources from the Pods of a runtime with a "
                    "podGroupPolicy",
    "scheduleTimeoutSeconds": "v1 put it in its PodGroup; in v2 it is the runtime's podGroupPolicy.coscheduling."
                              "scheduleTimeoutSeconds",
    "priorityClass": "v1 set it on its PodGroup only; v2 has no such field: set priorityClassName in the runtime's pod "
                     "templates, or a Kueue WorkloadPriorityClass label",
}


def assemble(plan: Plan) -> tuple[list[dict[str, Any]], str, list[str]]:
    """(manifests: the generated runtime, if any, then the TrainJob; the runtime's name; why it was generated)."""
    job = plan.job
    spec: dict[str, Any] = {}
    queue = _run_policy(plan, spec)
    misfits = bundled_misfits(plan)
    trainer = trainer_of(plan)
    manifests: list[dict[str, Any]] = []
    if misfits:
        runtime = _generated_runtime(plan)
        manifests.append(runtime)
        spec["runtimeRef"] = {"name": runtime["metadata"]["name"], "apiGroup": c.GROUP, "kind": c.TRAINING_RUNTIME_KIND}
        name = runtime["metadata"]["name"]
    else:
        assert plan.bundled is not None
        spec["runtimeRef"] = {"name": plan.bundled, "apiGroup": c.GROUP, "kind": c.CLUSTER_TRAINING_RUNTIME_KIND}
        name = plan.bundled
        patch = _runtime_patch(plan.jobs[0])
        if patch:
            spec["runtimePatches"] = [{"manager": PATCH_MANAGER, "trainingRuntimeSpec": patch}]
    spec["trainer"] = trainer
    metadata = _metadata(job.manifest, plan.losses)
    if queue is not None:
        _set_queue(metadata, queue, plan.losses)
    trainjob = {"apiVersion": c.API_VERSION_UPSTREAM, "kind": c.TRAINJOB_KIND, "metadata": metadata,
                "spec": {key: spec[key] for key in ("runtimeRef", "trainer", "runtimePatches", "suspend", "activeDeadlineSeconds")
                         if key in spec}}
    manifests.append(trainjob)
    return manifests, name, misfits


def _metadata(manifest: Mapping[str, Any], losses: Losses) -> dict[str, Any]:
    metadata = manifest["metadata"]
    for key in manifest:
        if key not in ("apiVersion", "kind", "metadata", "spec", "status"):
            losses.add(key, "not a field of a v1 job: the API server pruned it for v1 too")
    carried = {key: metadata[key] for key in CARRIED_METADATA if metadata.get(key)}
    for key in metadata:
        if key not in (*CARRIED_METADATA, *SERVER_METADATA, "generateName"):
            losses.add(f"metadata.{key}", "not carried: a TrainJob's metadata has no such field")
    annotations = carried.get("annotations")
    if isinstance(annotations, Mapping) and LAST_APPLIED in annotations:
        losses.add(f"metadata.annotations.{LAST_APPLIED}", "kubectl's record of the v1 object; kubectl apply writes the "
                                                           "TrainJob's own")
        carried["annotations"] = {key: value for key, value in annotations.items() if key != LAST_APPLIED}
        if not carried["annotations"]:
            del carried["annotations"]
    return carried


def _run_policy(plan: Plan, spec: dict[str, Any]) -> str | None:
    """spec.suspend and activeDeadlineSeconds into `spec`, the rest into the plan or its losses; the queue."""
    losses, queue = plan.losses, None
    for key, value in plan.job.run_policy.items():
        path = f"spec.runPolicy.{key}"
        if value is None:
            continue
        if key in ("suspend", "activeDeadlineSeconds"):
            spec[key] = value
        elif key == "ttlSecondsAfterFinished":
            plan.jobset_spec["ttlSecondsAfterFinished"] = value
            plan.needs_runtime.append("ttlSecondsAfterFinished")
            losses.add(path, "v2 has it on the JobSet (the generated runtime sets it): after it the JobSet and its Pods are "
                             "deleted, the TrainJob stays")
        elif key == "backoffLimit":
            plan.job_spec["backoffLimit"] = value
            plan.needs_runtime.append("backoffLimit")
            losses.add(path, "v1 counted restarts over the whole job; v2 has it per Job of the JobSet (the generated "
                             "runtime sets it on each), and a failed Job fails the JobSet")
        elif key == "cleanPodPolicy":
            clean_pod_policy(value, path, losses)
        elif key == "schedulingPolicy":
            queue = _scheduling_policy(value, losses)
        else:
            losses.add(path, "not a field of RunPolicy in v1.8.1: the API server pruned it for v1 too")
    return queue


def clean_pod_policy(value: Any, path: str, losses: Losses) -> None:
    """v2 has no cleanPodPolicy; it does what Running did: a finished JobSet deletes the Jobs still
    active (their Pods with them) and keeps the finished ones (JobSet v0.12's controller)."""
    why = {
        "None": "v2 has no cleanPodPolicy: when the job finishes, the Pods still running are deleted (as Running did), "
                "the finished ones kept",
        "All": "v2 has no cleanPodPolicy: when the job finishes, the finished Pods are kept until the TrainJob (or its "
               "JobSet's ttlSecondsAfterFinished) goes; only the Pods still running are deleted (as Running did)",
    }.get(value)
    if value != "Running":
        losses.add(path, f"{value}: {why or 'not a cleanPodPolicy of v1 (None, Running, All)'}")


def _scheduling_policy(policy: Any, losses: Losses) -> str | None:
    """The queue; what else the policy says is v1's PodGroup's, reported."""
    if not isinstance(policy, Mapping):
        losses.add("spec.runPolicy.schedulingPolicy", f"Invalid value: {show(policy)}: not an object")
        return None
    queue = None
    for key, value in policy.items():
        path = f"spec.runPolicy.schedulingPolicy.{key}"
        if key == "queue" and isinstance(value, str) and value:
            queue = value
        elif key in SCHEDULING_POLICY_WHY and value is not None:
            losses.add(path, SCHEDULING_POLICY_WHY[key])
        elif value is not None and key != "queue":
            losses.add(path, "not a field of SchedulingPolicy in v1.8.1: the API server pruned it for v1 too")
    return queue


def _set_queue(metadata: dict[str, Any], queue: str, losses: Losses) -> None:
    labels = dict(metadata.get("labels") or {})
    written = labels.get(KUEUE_QUEUE_LABEL)
    if written is not None and written != queue:
        losses.add(f"metadata.labels.{KUEUE_QUEUE_LABEL}", f"{show(written)}: the TrainJob takes the queue of "
                                                           f"spec.runPolicy.schedulingPolicy.queue ({show(queue)}) instead")
    labels[KUEUE_QUEUE_LABEL] = queue
    metadata["labels"] = labels


def _runtime_patch(job: JobPart) -> dict[str, Any]:
    """The pod fields of the trainer job that only a runtime patch can set, as one patch."""
    template = job.template
    pod: dict[str, Any] = {key: template["spec"][key] for key in PATCH_POD_FIELDS if key in template["spec"]}
    node = next(item for item in template["spec"]["containers"] if item.get("name") == c.NODE)
    container = {key: node[key] for key in PATCH_CONTAINER_FIELDS if key in node}
    if container:
        pod["containers"] = [{"name": c.NODE, **container}]
    pod_template: dict[str, Any] = {}
    if template.get("metadata"):
        pod_template["metadata"] = template["metadata"]
    if pod:
        pod_template["spec"] = pod
    if not pod_template:
        return {}
    replicated = {"name": job.name, "template": {"spec": {"template": pod_template}}}
    return {"template": {"spec": {"replicatedJobs": [replicated]}}}


def _generated_runtime(plan: Plan) -> dict[str, Any]:
    job = plan.job
    metadata: dict[str, Any] = {"name": job.name}
    if job.metadata.get("namespace"):
        metadata["namespace"] = job.metadata["namespace"]
    metadata["labels"] = {c.LABEL_FRAMEWORK: plan.framework}
    replicated = []
    for part in plan.jobs:
        pod = runtime_template(part.template, plan.trainer_fields) if part.trainer else part.template
        pod["spec"]["restartPolicy"] = part.restart_policy
        job_template: dict[str, Any] = {"spec": {**plan.job_spec, "template": pod}}
        if part.trainer:
            job_template = {"metadata": {"labels": {c.LABEL_ANCESTOR: c.ANCESTOR_TRAINER}}, **job_template}
        entry: dict[str, Any] = {"name": part.name}
        if part.depends_on:
            entry["dependsOn"] = part.depends_on
        entry["template"] = job_template
        replicated.append(entry)
    template_spec = {**plan.jobset_spec, "replicatedJobs": replicated}
    return {
        "apiVersion": c.API_VERSION_UPSTREAM,
        "kind": c.TRAINING_RUNTIME_KIND,
        "metadata": metadata,
        "spec": {"mlPolicy": plan.ml_policy, "template": {"spec": template_spec}},
    }
