"""Volcano: a Volcano PodGroup with queue, priority and network topology for gang scheduling."""

from __future__ import annotations

from typing import ClassVar

from ..api.rules import show
from ..api.runtime import Runtime
from ..api.trainjob import TrainJob
from ..framework.context import RenderContext
from ..framework.errors import FieldError
from ..framework.gang import mark_pod_templates, pod_group
from ..framework.info import RuntimeInfo
from ..framework.interfaces import NO_FINDINGS, Verdict
from ..framework.kube import Manifest

NAME = "Volcano"
API_VERSION = "scheduling.volcano.sh/v1beta1"
GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
BUILTIN_PRIORITY_CLASSES = ("system-cluster-critical", "system-node-critical")


class VolcanoPlugin:
    name: ClassVar[str] = NAME

    @staticmethod
    def applies_to(runtime: Runtime) -> bool:
        policy = runtime.spec.pod_group_policy
        return policy is not None and policy.volcano is not None

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        if not self.applies_to(info.runtime):
            return NO_FINDINGS
        verdict = Verdict()
        if QUEUE_ANNOTATION in info.annotations and not info.annotations[QUEUE_ANNOTATION]:
            verdict.errors.append(
                FieldError(
                    f"metadata.annotations[{QUEUE_ANNOTATION}]",
                    "Invalid value: \"\": Volcano queue name must not be empty; set it in the runtime template "
                    "or a runtime patch, or remove the annotation",
                )
            )
        verdict.errors.extend(_missing_priority_classes(info, context))
        return verdict

    def enforce_pod_group_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        if not self.applies_to(info.runtime):
            return
        mark_pod_templates(info, "annotations", GROUP_NAME_ANNOTATION, trainjob.name)

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        if not self.applies_to(info.runtime):
            return []
        topology = info.pod_group_policy.volcano.network_topology  # type: ignore[union-attr]  # applies_to: both set
        return [
            pod_group(
                info,
                API_VERSION,
                queue=info.annotations.get(QUEUE_ANNOTATION) or None,
                priorityClassName=_last_priority_class(info),
                networkTopology={"mode": topology.mode, "highestTierAllowed": topology.highest_tier_allowed} if topology else None,
            )
        ]


def _last_priority_class(info: RuntimeInfo) -> str | None:
    found = None
    for pod_set in info.pod_sets:
        found = pod_set.pod_spec.get("priorityClassName") or found
    return found


def _missing_priority_classes(info: RuntimeInfo, context: RenderContext) -> list[FieldError]:
    if not context.cluster.knows("PriorityClass"):
        return []
    errors = []
    for pod_set in info.pod_sets:
        name = pod_set.pod_spec.get("priorityClassName")
        if not name:
            continue
        if name in BUILTIN_PRIORITY_CLASSES:
            break  # upstream stops checking at the first built-in class
        if context.cluster.get("PriorityClass", name) is None:
            errors.append(
                FieldError(
                    "spec.templateSpec.priorityClassName",
                    f'Invalid value: {show(name)}: PriorityClass "{name}" doesn\'t exist: '
                    f"replicated job {pod_set.name!r} names it; create it or change priorityClassName",
                )
            )
    return errors
