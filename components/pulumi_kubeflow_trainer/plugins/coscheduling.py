"""CoScheduling: a scheduler-plugins PodGroup so all pods of the TrainJob start together or not at all."""

from __future__ import annotations

from typing import ClassVar

from ..api.runtime import Runtime
from ..api.trainjob import TrainJob
from ..framework.context import RenderContext
from ..framework.gang import mark_pod_templates, pod_group
from ..framework.info import RuntimeInfo
from ..framework.kube import Manifest

NAME = "CoScheduling"
API_VERSION = "scheduling.x-k8s.io/v1alpha1"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"


class CoSchedulingPlugin:
    name: ClassVar[str] = NAME

    @staticmethod
    def applies_to(runtime: Runtime) -> bool:
        policy = runtime.spec.pod_group_policy
        return policy is not None and policy.coscheduling is not None

    def enforce_pod_group_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        if not self.applies_to(info.runtime):
            return
        mark_pod_templates(info, "labels", POD_GROUP_LABEL, trainjob.name)

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        if not self.applies_to(info.runtime):
            return []
        timeout = info.pod_group_policy.coscheduling.schedule_timeout_seconds  # type: ignore[union-attr]  # applies_to: both set
        return [pod_group(info, API_VERSION, scheduleTimeoutSeconds=timeout)]
