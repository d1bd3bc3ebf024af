"""From a runtime and a TrainJob to the RuntimeInfo plugins work on (upstream `newRuntimeInfo`)."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any

from ..api import constants as c
from ..api.runtime import Runtime
from ..api.trainjob import TrainJob
from .info import PodSet, RuntimeInfo
from .kube import Manifest, dig, find_named, pod_spec_of
from .merge import strategic_merge


@dataclass
class CompiledRuntime:
    """A runtime made ready to render many TrainJobs: its JobSet spec dumped once, copied per render."""

    runtime: Runtime
    jobset_spec: Manifest
    labels: dict[str, str]
    annotations: dict[str, str]
    cache: dict[str, Any] = field(default_factory=dict)

    def spec_copy(self) -> Manifest:
        """A private copy of the JobSet spec for one render; unpickling is the fastest deep copy."""
        if "pickled" not in self.cache:
            self.cache["pickled"] = pickle.dumps(self.jobset_spec, protocol=pickle.HIGHEST_PROTOCOL)
        return pickle.loads(self.cache["pickled"])

    @classmethod
    def of(cls, runtime: Runtime) -> CompiledRuntime:
        template = runtime.spec.template
        metadata = template.metadata
        spec = template.spec.to_manifest() if template.spec is not None else {}
        return cls(
            runtime=runtime,
            jobset_spec=spec,
            labels=dict((metadata.labels if metadata else None) or {}),
            annotations=dict((metadata.annotations if metadata else None) or {}),
        )


    @property
    def job_names(self) -> tuple[str, ...]:
        if "job_names" not in self.cache:
            self.cache["job_names"] = tuple(job.get("name") for job in self.jobset_spec.get("replicatedJobs") or [])
        return self.cache["job_names"]

    def containers_of(self, job_name: str, field: str = "containers") -> list[Manifest]:
        """The runtime's own containers (or initContainers) of a replicated job, before any patch."""
        job = find_named(self.jobset_spec.get("replicatedJobs"), job_name)
        return list(dig(job, "template", "spec", "template", "spec", field) or [])


def build_runtime_info(trainjob: TrainJob, compiled: CompiledRuntime) -> RuntimeInfo:
    labels, annotations = _jobset_metadata(trainjob, compiled)
    spec = _apply_runtime_patches(trainjob, compiled.spec_copy())
    trainer = trainjob.spec.trainer
    requested = trainer.resources_per_node.to_manifest() if trainer and trainer.resources_per_node is not None else None
    if requested is not None:
        _merge_resources_per_node(requested, compiled.runtime, spec)
    return RuntimeInfo(
        trainjob=trainjob,
        compiled=compiled,
        labels=labels,
        annotations=annotations,
        jobset_spec=spec,
        pod_sets=_pod_sets(compiled.runtime, spec),
        ml_policy=compiled.runtime.spec.ml_policy,
        pod_group_policy=compiled.runtime.spec.pod_group_policy,
        trainer_command=list(trainer.command) if trainer and trainer.command else None,
        trainer_args=list(trainer.args) if trainer and trainer.args else None,
        requested_resources=requested,
    )


def _jobset_metadata(trainjob: TrainJob, compiled: CompiledRuntime) -> tuple[dict[str, str], dict[str, str]]:
    """Runtime template metadata, then each patch's in list order; the TrainJob's own labels do not propagate."""
    labels, annotations = dict(compiled.labels), dict(compiled.annotations)
    for patch in trainjob.spec.runtime_patches or ():
        template = patch.training_runtime_spec.template if patch.training_runtime_spec else None
        if template is not None and template.metadata is not None:
            labels.update(template.metadata.labels or {})
            annotations.update(template.metadata.annotations or {})
    return labels, annotations


def _apply_runtime_patches(trainjob: TrainJob, spec: Manifest) -> Manifest:
    original_order = {job["name"]: index for index, job in enumerate(spec.get("replicatedJobs") or [])}
    patched = False
    for patch in trainjob.spec.runtime_patches or ():
        template = patch.training_runtime_spec.template if patch.training_runtime_spec else None
        if template is not None and template.spec is not None:
            spec = strategic_merge(spec, template.spec.to_manifest())
            patched = True
    if patched and "replicatedJobs" in spec:
        # The controller restores the runtime's job order; a job added by a patch sorts as index 0.
        spec["replicatedJobs"].sort(key=lambda job: original_order.get(job.get("name"), 0))
    return spec


def _merge_resources_per_node(wanted: Manifest, runtime: Runtime, spec: Manifest) -> None:
    ml_policy = runtime.spec.ml_policy
    launcher_as_node = bool(ml_policy and ml_policy.mpi and ml_policy.mpi.run_launcher_as_node)
    for job in spec.get("replicatedJobs") or []:
        is_trainer = _ancestor(job) == c.ANCESTOR_TRAINER and ml_policy is not None
        if is_trainer or (launcher_as_node and job.get("name") == c.NODE):
            node = find_named(pod_spec_of(job).get("containers"), c.NODE)
            if node is not None:
                node["resources"] = _merge_resources(node.get("resources") or {}, wanted)


def _merge_resources(current: Manifest, wanted: Manifest) -> Manifest:
    merged = strategic_merge(current, {key: value for key, value in wanted.items() if key != "claims"})
    if "claims" in wanted:
        merged["claims"] = _merge_claims(current.get("claims") or [], wanted["claims"])
    return merged


def _merge_claims(current: list[Manifest], wanted: list[Manifest]) -> list[Manifest]:
    by_name = {claim.get("name"): claim for claim in current}
    by_name.update({claim.get("name"): claim for claim in wanted})
    return list(by_name.values())


def _ancestor(job: Manifest) -> str | None:
    return dig(job, "template", "metadata", "labels", c.LABEL_ANCESTOR)


def _pod_sets(runtime: Runtime, spec: Manifest) -> list[PodSet]:
    ml_policy = runtime.spec.ml_policy
    pod_sets = []
    for job in spec.get("replicatedJobs") or []:
        ancestor = _ancestor(job)
        if ancestor == c.ANCESTOR_TRAINER and ml_policy is not None:
            count = ml_policy.num_nodes if ml_policy.num_nodes is not None else 1
        else:
            parallelism = dig(job, "template", "spec", "parallelism")
            count = parallelism if parallelism is not None else 1
        pod_sets.append(PodSet(job=job, ancestor=ancestor, count=max(count, 1)))
    return pod_sets
