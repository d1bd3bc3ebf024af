"""The render plan: what the renders of every TrainJob against one runtime share, found once.

A runtime fixes most of a render: which plugins act, where the replicated jobs are and how many pods
each runs before the TrainJob says otherwise, which jobs run trainer nodes. The plan holds that, so a
render only reads the TrainJob and fills in what it decides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..api import constants as c
from ..api.runtime import MLPolicy, PodGroupPolicy
from .compiled import CompiledRuntime
from .info import PodSet
from .interfaces import TrainerNodeJobsPlugin, Verdict
from .kube import Manifest


@dataclass(frozen=True)
class Phases:
    """The plugin methods that act on one runtime, phase by phase, in registry order."""

    validate: tuple[Callable[..., Verdict], ...]
    enforce_ml_policy: tuple[Callable[..., None], ...]
    enforce_pod_group_policy: tuple[Callable[..., None], ...]
    enforce_pod_spec: tuple[Callable[..., None], ...]
    pre_build_sync: tuple[Callable[..., None], ...]
    build: tuple[Callable[..., list[Manifest]], ...]
    # The four phases between validation and build, in order: all take (info, trainjob), so they run as one.
    enforcement: tuple[Callable[..., None], ...] = field(init=False)

    def __post_init__(self) -> None:
        enforcement = self.enforce_ml_policy + self.enforce_pod_group_policy + self.enforce_pod_spec + self.pre_build_sync
        object.__setattr__(self, "enforcement", enforcement)


@dataclass(frozen=True)
class PodSetLayout:
    """A replicated job of the runtime's own template: where it is and what it runs before any TrainJob."""

    index: int  # in spec.replicatedJobs
    ancestor: str | None  # its trainjob-ancestor-step label
    count: int  # pods per replica: mlPolicy.numNodes for the trainer job, else its parallelism; at least 1


@dataclass(frozen=True)
class RenderPlan:
    """One runtime as a framework renders it."""

    compiled: CompiledRuntime
    phases: Phases
    ml_policy: MLPolicy | None
    pod_group_policy: PodGroupPolicy | None
    layout: tuple[PodSetLayout, ...]  # of the template as the runtime has it; a runtime patch may change it
    # Jobs besides the trainer's whose `node` container is a trainer node too (the TrainJob's resources and
    # env go there), as plugins declare them (`trainer_node_jobs`: MPI's node job when the launcher is one).
    trainer_node_jobs: frozenset[str]
    # Whether PlainML sets the trainer's node count and the user's env: without a policy, for a policy whose
    # plugin leaves them to it (XGBoost, Flux), and for a key no plugin of the framework's registry handles.
    plainml_sets_trainer: bool


def pod_set_layout(spec: Manifest, compiled: CompiledRuntime) -> tuple[PodSetLayout, ...]:
    """The layout of `spec`'s replicated jobs (upstream `newRuntimeInfo`'s pod sets); levels a job's
    template lacks are added on the way, as every render adds them."""
    ml_policy = compiled.runtime.spec.ml_policy
    trainer_count = (ml_policy.num_nodes if ml_policy.num_nodes is not None else 1) if ml_policy is not None else None
    layout = []
    for index, job in enumerate(spec.get("replicatedJobs") or []):
        template = job.setdefault("template", {})
        ancestor = ((template.get("metadata") or {}).get("labels") or {}).get(c.LABEL_ANCESTOR)
        if ancestor == c.ANCESTOR_TRAINER and trainer_count is not None:
            count = trainer_count
        else:
            parallelism = (template.get("spec") or {}).get("parallelism")
            count = parallelism if parallelism is not None else 1
        layout.append(PodSetLayout(index=index, ancestor=ancestor, count=max(count, 1)))
    return tuple(layout)


def pod_sets_of(spec: Manifest, layout: tuple[PodSetLayout, ...]) -> list[PodSet]:
    jobs = spec.get("replicatedJobs") or []
    return [PodSet(job=jobs[entry.index], ancestor=entry.ancestor, count=entry.count) for entry in layout]


def template_pod_sets(compiled: CompiledRuntime) -> list[PodSet]:
    """The pod sets of a runtime's own template, to read: what a plugin derives from the runtime alone."""
    spec = compiled.spec_copy()
    return pod_sets_of(spec, pod_set_layout(spec, compiled))


def make_plan(
    compiled: CompiledRuntime, phases: Phases, node_job_plugins: Iterable[TrainerNodeJobsPlugin], plainml_sets_trainer: bool,
) -> RenderPlan:
    runtime = compiled.runtime
    node_jobs: set[str] = set()
    for plugin in node_job_plugins:
        node_jobs.update(plugin.trainer_node_jobs(runtime))
    return RenderPlan(
        compiled=compiled,
        phases=phases,
        ml_policy=runtime.spec.ml_policy,
        pod_group_policy=runtime.spec.pod_group_policy,
        layout=pod_set_layout(compiled.spec_copy(), compiled),
        trainer_node_jobs=frozenset(node_jobs),
        plainml_sets_trainer=plainml_sets_trainer,
    )


__all__ = ["Phases", "PodSetLayout", "RenderPlan", "make_plan", "pod_set_layout", "pod_sets_of", "template_pod_sets"]
