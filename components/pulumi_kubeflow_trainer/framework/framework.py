"""The Framework runs the plugins' phases in order over one RuntimeInfo, as a runtime's render plan lists them."""

from __future__ import annotations

from typing import Any

from ..api.trainjob import TrainJob
from .compiled import CompiledRuntime
from .context import RenderContext
from .info import RuntimeInfo
from .interfaces import (
    NO_FINDINGS,
    ComponentBuilderPlugin,
    CustomValidationPlugin,
    EnforceMLPolicyPlugin,
    EnforcePodGroupPolicyPlugin,
    EnforcePodSpecPlugin,
    PreBuildSyncPlugin,
    SelectivePlugin,
    TrainerNodeJobsPlugin,
    Verdict,
)
from .kube import Manifest
from .plan import Phases, RenderPlan, make_plan
from .registry import PluginRegistry

# Children are listed, and applied, dependencies first.
KIND_RANK = {"Secret": 0, "ConfigMap": 1, "PodGroup": 2, "JobSet": 3}


def manifest_sort_key(manifest: Manifest) -> tuple[int, str, str]:
    return (KIND_RANK.get(manifest["kind"], len(KIND_RANK)), manifest["kind"], manifest["metadata"]["name"])


class Framework:
    """Plugins classified once by extension point (upstream `framework.New`)."""

    def __init__(self, registry: PluginRegistry) -> None:
        plugins = self._plugins = registry.instantiate()
        self.policies = registry.policies
        self.validators: list[CustomValidationPlugin] = _implementing(plugins, CustomValidationPlugin)
        self.ml_policy_enforcers: list[EnforceMLPolicyPlugin] = _implementing(plugins, EnforceMLPolicyPlugin)
        self.pod_group_enforcers: list[EnforcePodGroupPolicyPlugin] = _implementing(plugins, EnforcePodGroupPolicyPlugin)
        self.pod_spec_enforcers: list[EnforcePodSpecPlugin] = _implementing(plugins, EnforcePodSpecPlugin)
        self.pre_build_syncers: list[PreBuildSyncPlugin] = _implementing(plugins, PreBuildSyncPlugin)
        self.builders: list[ComponentBuilderPlugin] = _implementing(plugins, ComponentBuilderPlugin)

    def plan(self, compiled: CompiledRuntime) -> RenderPlan:
        """How this framework renders TrainJobs against `compiled`, made once per runtime and kept with
        it for as long as both the runtime and this framework live (plans differ by plugins)."""
        plan: RenderPlan | None = compiled.plans.get(self)
        if plan is None:
            plan = compiled.plans[self] = self._make_plan(compiled)
        return plan

    def _make_plan(self, compiled: CompiledRuntime) -> RenderPlan:
        runtime = compiled.runtime
        acting = [plugin for plugin in self._plugins if not isinstance(plugin, SelectivePlugin) or plugin.applies_to(runtime)]
        node_jobs = [plugin for plugin in acting if isinstance(plugin, TrainerNodeJobsPlugin)]
        return make_plan(compiled, self.phases(acting), node_jobs, self.policies.plainml_sets_trainer(runtime))

    def phases(self, acting: list[Any]) -> Phases:
        """The methods of the plugins that act on a runtime (those whose `applies_to` does not say no),
        phase by phase, in registry order."""

        def among(plugins: list[Any]) -> list[Any]:
            return [plugin for plugin in plugins if any(plugin is other for other in acting)]

        return Phases(
            validate=tuple(plugin.validate for plugin in among(self.validators)),
            enforce_ml_policy=tuple(plugin.enforce_ml_policy for plugin in among(self.ml_policy_enforcers)),
            enforce_pod_group_policy=tuple(plugin.enforce_pod_group_policy for plugin in among(self.pod_group_enforcers)),
            enforce_pod_spec=tuple(plugin.enforce_pod_spec for plugin in among(self.pod_spec_enforcers)),
            pre_build_sync=tuple(plugin.pre_build_sync for plugin in among(self.pre_build_syncers)),
            build=tuple(plugin.build for plugin in among(self.builders)),
        )

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        verdict = NO_FINDINGS  # shared and immutable: replaced by a Verdict of its own at the first finding
        for validate in info.plan.phases.validate:
            found = validate(info, trainjob, context)
            if found is not NO_FINDINGS:
                if verdict is NO_FINDINGS:
                    verdict = Verdict()
                verdict.extend(found)
        return verdict

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        """The children, after every enforcement phase."""
        phases = info.plan.phases
        for enforce in phases.enforcement:  # the ML policy, the pod group policy, the pod spec, the pre-build sync
            enforce(info, trainjob)
        manifests: list[Manifest] = []
        for build in phases.build:
            manifests.extend(build(info, trainjob, context))
        if len(manifests) > 1:
            manifests.sort(key=manifest_sort_key)
        return manifests


def _implementing(plugins: list[Any], point: type) -> list[Any]:
    return [plugin for plugin in plugins if isinstance(plugin, point)]
