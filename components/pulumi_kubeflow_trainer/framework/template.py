"""From a runtime's render plan and a TrainJob to the RuntimeInfo plugins work on (upstream `newRuntimeInfo`)."""

from __future__ import annotations

import copy

from ..api import constants as c
from ..api.core import ResourceRequirements
from ..api.patches import RuntimePatch
from ..api.trainjob import TrainJob
from .compiled import CompiledRuntime
from .info import PodSet, RuntimeInfo
from .kube import Manifest
from .merge import strategic_merge
from .plan import RenderPlan, pod_set_layout, pod_sets_of


def build_runtime_info(trainjob: TrainJob, plan: RenderPlan) -> RuntimeInfo:
    compiled = plan.compiled
    wanted = trainjob.spec
    patches = wanted.runtime_patches
    if patches:
        spec = _apply_runtime_patches(patches, compiled.spec_copy())
        layout = pod_set_layout(spec, compiled)  # a patch may add, drop or relabel jobs
        labels, annotations = _jobset_metadata(patches, compiled)
    else:
        spec, layout = compiled.spec_copy(), plan.layout
        labels, annotations = dict(compiled.labels), dict(compiled.annotations)
    pod_sets = pod_sets_of(spec, layout)
    trainer = wanted.trainer
    requested = command = args = None
    if trainer is not None:
        resources = trainer.resources_per_node
        if resources is not None:
            requested = _resources_manifest(resources)
            _merge_resources_per_node(requested, plan, pod_sets)
        # [] is kept: given, even empty, they replace the runtime's (upstream: `command != nil`)
        command = list(trainer.command) if trainer.command is not None else None
        args = list(trainer.args) if trainer.args is not None else None
    metadata = trainjob.metadata
    return RuntimeInfo(
        trainjob=trainjob, plan=plan, compiled=compiled, name=metadata.name or "", namespace=metadata.namespace or "default",
        trainer=trainer, patched=bool(patches), labels=labels, annotations=annotations, jobset_spec=spec, pod_sets=pod_sets,
        ml_policy=plan.ml_policy, pod_group_policy=plan.pod_group_policy, trainer_command=command, trainer_args=args,
        requested_resources=requested,
    )


def _resources_manifest(resources: ResourceRequirements) -> Manifest:
    """The TrainJob's resourcesPerNode as a manifest of its own, as upstream serialises it before merging
    (omitempty: empty lists and maps vanish). Its own, since the merge may put its parts into the JobSet;
    quantities are canonical strings already, so no serializer is needed."""
    manifest: Manifest = {}
    if resources.limits:
        manifest["limits"] = dict(resources.limits)
    if resources.requests:
        manifest["requests"] = dict(resources.requests)
    if resources.claims:
        manifest["claims"] = copy.deepcopy(resources.claims)
    return manifest


def _jobset_metadata(patches: list[RuntimePatch], compiled: CompiledRuntime) -> tuple[dict[str, str], dict[str, str]]:
    """Runtime template metadata, then each patch's in list order; the TrainJob's own labels do not propagate."""
    labels, annotations = dict(compiled.labels), dict(compiled.annotations)
    for patch in patches:
        template = patch.training_runtime_spec.template if patch.training_runtime_spec else None
        if template is not None and template.metadata is not None:
            labels.update(template.metadata.labels or {})
            annotations.update(template.metadata.annotations or {})
    return labels, annotations


def _apply_runtime_patches(patches: list[RuntimePatch], spec: Manifest) -> Manifest:
    original_order = {job["name"]: index for index, job in enumerate(spec.get("replicatedJobs") or [])}
    patched = False
    for patch in patches:
        template = patch.training_runtime_spec.template if patch.training_runtime_spec else None
        if template is not None and template.spec is not None:
            spec = strategic_merge(spec, template.spec.to_manifest())
            patched = True
    if patched and "replicatedJobs" in spec:
        # The controller restores the runtime's job order; a job added by a patch sorts as index 0.
        spec["replicatedJobs"].sort(key=lambda job: original_order.get(job.get("name"), 0))
    return spec


def _merge_resources_per_node(wanted: Manifest, plan: RenderPlan, pod_sets: list[PodSet]) -> None:
    """Into the `node` container of every trainer node: the trainer job's, and the jobs plugins declare."""
    has_policy = plan.ml_policy is not None
    for pod_set in pod_sets:
        is_trainer = pod_set.ancestor == c.ANCESTOR_TRAINER and has_policy
        if is_trainer or pod_set.name in plan.trainer_node_jobs:
            node = pod_set.find_container(c.NODE)
            if node is not None:
                node["resources"] = _merge_resources(node.get("resources") or {}, wanted)


def _merge_resources(current: Manifest, wanted: Manifest) -> Manifest:
    if not current and "claims" not in wanted:  # the common case: requests and limits, lists of strings
        return {key: dict(value) if type(value) is dict else value for key, value in wanted.items()}
    merged = strategic_merge(current, {key: value for key, value in wanted.items() if key != "claims"})
    if "claims" in wanted:
        merged["claims"] = _merge_claims(current.get("claims") or [], wanted["claims"])
    return merged


def _merge_claims(current: list[Manifest], wanted: list[Manifest]) -> list[Manifest]:
    by_name = {claim.get("name"): claim for claim in current}
    by_name.update({claim.get("name"): claim for claim in wanted})
    return list(by_name.values())
