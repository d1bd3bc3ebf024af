"""From a runtime and a TrainJob to the RuntimeInfo plugins work on (upstream `newRuntimeInfo`)."""

from __future__ import annotations

import pickle

from ..api import constants as c
from ..api.core import ResourceRequirements
from ..api.patches import RuntimePatch
from ..api.runtime import Runtime
from ..api.trainjob import TrainJob
from .compiled import CompiledRuntime
from .info import PodSet, RuntimeInfo
from .kube import Manifest
from .memo import IdentityMemo
from .merge import strategic_merge


def build_runtime_info(trainjob: TrainJob, compiled: CompiledRuntime) -> RuntimeInfo:
    patches = trainjob.spec.runtime_patches
    spec = _apply_runtime_patches(patches, compiled.spec_copy()) if patches else compiled.spec_copy()
    runtime = compiled.runtime
    pod_sets = _pod_sets(runtime, spec)
    trainer = trainjob.spec.trainer
    requested = _requested_resources(trainer.resources_per_node) if trainer and trainer.resources_per_node is not None else None
    if requested is not None:
        _merge_resources_per_node(requested, runtime, pod_sets)
    labels, annotations = _jobset_metadata(patches, compiled) if patches else (dict(compiled.labels), dict(compiled.annotations))
    return RuntimeInfo(
        trainjob=trainjob,
        compiled=compiled,
        labels=labels,
        annotations=annotations,
        jobset_spec=spec,
        pod_sets=pod_sets,
        ml_policy=runtime.spec.ml_policy,
        pod_group_policy=runtime.spec.pod_group_policy,
        # [] is kept: given, even empty, they replace the runtime's (upstream: `command != nil`)
        trainer_command=list(trainer.command) if trainer and trainer.command is not None else None,
        trainer_args=list(trainer.args) if trainer and trainer.args is not None else None,
        requested_resources=requested,
    )


def _requested_resources(resources: ResourceRequirements) -> Manifest:
    """The TrainJob's resourcesPerNode as a manifest of its own: dumped once per (frozen) model, copied
    per render, since the merge may put its claims into the JobSet."""
    pickled = _REQUESTED.get(resources)
    if pickled is None:
        pickled = _REQUESTED.put(resources, pickle.dumps(resources.to_manifest(), protocol=pickle.HIGHEST_PROTOCOL))
    manifest: Manifest = pickle.loads(pickled)
    return manifest


_REQUESTED: IdentityMemo[ResourceRequirements, bytes] = IdentityMemo()


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


def _merge_resources_per_node(wanted: Manifest, runtime: Runtime, pod_sets: list[PodSet]) -> None:
    ml_policy = runtime.spec.ml_policy
    launcher_as_node = bool(ml_policy and ml_policy.mpi and ml_policy.mpi.run_launcher_as_node)
    for pod_set in pod_sets:
        is_trainer = pod_set.ancestor == c.ANCESTOR_TRAINER and ml_policy is not None
        if is_trainer or (launcher_as_node and pod_set.name == c.NODE):
            node = pod_set.find_container(c.NODE)
            if node is not None:
                node["resources"] = _merge_resources(node.get("resources") or {}, wanted)


def _merge_resources(current: Manifest, wanted: Manifest) -> Manifest:
    # Upstream serialises the TrainJob's resources before merging (omitempty): empty lists and maps vanish.
    wanted = {key: value for key, value in wanted.items() if value or value is None}
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


def _pod_sets(runtime: Runtime, spec: Manifest) -> list[PodSet]:
    ml_policy = runtime.spec.ml_policy
    pod_sets = []
    for job in spec.get("replicatedJobs") or []:
        template = job.setdefault("template", {})
        ancestor = ((template.get("metadata") or {}).get("labels") or {}).get(c.LABEL_ANCESTOR)
        if ancestor == c.ANCESTOR_TRAINER and ml_policy is not None:
            count = ml_policy.num_nodes if ml_policy.num_nodes is not None else 1
        else:
            parallelism = (template.get("spec") or {}).get("parallelism")
            count = parallelism if parallelism is not None else 1
        pod_sets.append(PodSet(job=job, ancestor=ancestor, count=max(count, 1)))
    return pod_sets
