"""The Framework runs the plugins' phases in order over one RuntimeInfo."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..api.runtime import Runtime
from ..api.trainjob import TrainJob
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
from .memo import IdentityMemo
from .registry import PluginRegistry

# Children are listed, and applied, dependencies first.
KIND_RANK = {"Secret": 0, "ConfigMap": 1, "PodGroup": 2, "JobSet": 3}


def manifest_sort_key(manifest: Manifest) -> tuple[int, str, str]:
    return (KIND_RANK.get(manifest["kind"], len(KIND_RANK)), manifest["kind"], manifest["metadata"]["name"])


@dataclass(frozen=True)
class Phases:
    """The plugin methods that act on one runtime, phase by phase, in registry order."""

    validate: tuple[Callable[..., Verdict], ...]
    enforce_ml_policy: tuple[Callable[..., None], ...]
    enforce_pod_group_policy: tuple[Callable[..., None], ...]
    enforce_pod_spec: tuple[Callable[..., None], ...]
    pre_build_sync: tuple[Callable[..., None], ...]
    build: tuple[Callable[..., list[Manifest]], ...]


class Framework:
    """Plugins classified once by extension point (upstream `framework.New`)."""

    def __init__(self, registry: PluginRegistry) -> None:
        plugins = registry.instantiate()
        self.validators = _implementing(plugins, CustomValidationPlugin)
        self.ml_policy_enforcers = _implementing(plugins, EnforceMLPolicyPlugin)
        self.pod_group_enforcers = _implementing(plugins, EnforcePodGroupPolicyPlugin)
        self.pod_spec_enforcers = _implementing(plugins, EnforcePodSpecPlugin)
        self.pre_build_syncers = _implementing(plugins, PreBuildSyncPlugin)
        self.builders = _implementing(plugins, ComponentBuilderPlugin)
        self._phases: IdentityMemo[Runtime, Phases] = IdentityMemo()

    def phases(self, runtime: Runtime) -> Phases:
        """The plugins that act on `runtime`, found once per runtime: a plugin with an `applies_to(runtime)`
        that answers False would return at once in every phase, so it is left out of them."""
        found = self._phases.get(runtime)
        if found is not None:
            return found

        def acting(plugins: list[Any], method: str) -> tuple[Callable[..., Any], ...]:
            return tuple(getattr(plugin, method) for plugin in plugins if _applies(plugin, runtime))

        return self._phases.put(runtime, Phases(
            validate=acting(self.validators, "validate"),
            enforce_ml_policy=acting(self.ml_policy_enforcers, "enforce_ml_policy"),
            enforce_pod_group_policy=acting(self.pod_group_enforcers, "enforce_pod_group_policy"),
            enforce_pod_spec=acting(self.pod_spec_enforcers, "enforce_pod_spec"),
            pre_build_sync=acting(self.pre_build_syncers, "pre_build_sync"),
            build=acting(self.builders, "build"),
        ))

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext, phases: Phases | None = None) -> Verdict:
        verdict = NO_FINDINGS  # shared and immutable: replaced by a Verdict of its own at the first finding
        for validate in (phases or self.phases(info.runtime)).validate:
            found = validate(info, trainjob, context)
            if found is not NO_FINDINGS:
                if verdict is NO_FINDINGS:
                    verdict = Verdict()
                verdict.extend(found)
        return verdict

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext, phases: Phases | None = None) -> list[Manifest]:
        """The children, after every enforcement phase; `phases` are `self.phases(info.runtime)`, passed by
        a caller that found them already."""
        phases = phases or self.phases(info.runtime)
        for enforce in phases.enforce_ml_policy:
            enforce(info, trainjob)
        for enforce in phases.enforce_pod_group_policy:
            enforce(info, trainjob)
        for enforce in phases.enforce_pod_spec:
            enforce(info, trainjob)
        for sync in phases.pre_build_sync:
            sync(info, trainjob)
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
