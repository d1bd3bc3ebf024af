"""The Framework runs the plugins' phases in order over one RuntimeInfo, as a runtime's render plan lists them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..api.runtime import Runtime
from ..api.trainjob import TrainJob
from .compiled import CompiledRuntime, Derived
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

    def __init__(self, registry: PluginRegistry, *, compile_steps: bool = True) -> None:
        plugins = self._plugins = registry.instantiate()
        # False: every plugin runs its general methods, never its compiled steps (tests compare the two).
        self.compile_steps = compile_steps
        self.validators = _implementing(plugins, CustomValidationPlugin)
        self.ml_policy_enforcers = _implementing(plugins, EnforceMLPolicyPlugin)
        self.pod_group_enforcers = _implementing(plugins, EnforcePodGroupPolicyPlugin)
        self.pod_spec_enforcers = _implementing(plugins, EnforcePodSpecPlugin)
        self.pre_build_syncers = _implementing(plugins, PreBuildSyncPlugin)
        self.builders = _implementing(plugins, ComponentBuilderPlugin)
        # Kept with each compiled runtime, as long as it lives; one per framework, since plans differ by plugins.
        self._plan: Derived[RenderPlan] = Derived(
            "render plan", lambda compiled: make_plan(compiled, plugins, self.phases(compiled))
        )

    def plan(self, compiled: CompiledRuntime) -> RenderPlan:
        """How this framework renders TrainJobs against `compiled`, made once per runtime."""
        plan: RenderPlan | None = compiled._derived.get(self._plan)  # `derive`, inlined: asked on every render
        return plan if plan is not None else compiled.derive(self._plan)

    def phases(self, compiled: CompiledRuntime) -> Phases:
        """The plugins that act on a runtime, phase by phase: a plugin with an `applies_to(runtime)` that
        answers False would return at once in every phase, so it is left out of them; a plugin with
        `compile(compiled)` acts through the steps it compiled for this runtime where it gives one."""
        runtime = compiled.runtime
        acting = [plugin for plugin in self._plugins if _applies(plugin, runtime)]
        steps = {id(plugin): self._compiled_steps(plugin, compiled) for plugin in acting}

        def phase(plugins: list[Any], method: str) -> tuple[Callable[..., Any], ...]:
            found = []
            for plugin in plugins:
                if id(plugin) not in steps:
                    continue
                own = steps[id(plugin)]
                step = own[method] if method in own else getattr(plugin, method)
                if step is not None:
                    found.append(step)
            return tuple(found)

        return Phases(
            validate=phase(self.validators, "validate"),
            enforce_ml_policy=phase(self.ml_policy_enforcers, "enforce_ml_policy"),
            enforce_pod_group_policy=phase(self.pod_group_enforcers, "enforce_pod_group_policy"),
            enforce_pod_spec=phase(self.pod_spec_enforcers, "enforce_pod_spec"),
            pre_build_sync=phase(self.pre_build_syncers, "pre_build_sync"),
            build=phase(self.builders, "build"),
        )

    def _compiled_steps(self, plugin: Any, compiled: CompiledRuntime) -> Mapping[str, Callable[..., Any] | None]:
        compile_for = getattr(plugin, "compile", None) if self.compile_steps else None
        return compile_for(compiled) if compile_for is not None else {}

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


def _applies(plugin: Any, runtime: Runtime) -> bool:
    applies_to = getattr(plugin, "applies_to", None)
    return applies_to is None or bool(applies_to(runtime))


def _implementing(plugins: list[Any], point: type) -> list[Any]:
    return [plugin for plugin in plugins if isinstance(plugin, point)]
