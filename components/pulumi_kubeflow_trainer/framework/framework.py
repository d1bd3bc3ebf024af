"""The Framework runs the plugins' phases in order over one RuntimeInfo."""

from __future__ import annotations

from typing import Any

from ..api.trainjob import TrainJob
from .context import RenderContext
from .info import RuntimeInfo
from .interfaces import (
    ComponentBuilderPlugin,
    CustomValidationPlugin,
    EnforceMLPolicyPlugin,
    EnforcePodGroupPolicyPlugin,
    EnforcePodSpecPlugin,
    PreBuildSyncPlugin,
    NO_FINDINGS,
    Verdict,
)
from .kube import Manifest
from .registry import PluginRegistry, default_registry

# Children are listed, and applied, dependencies first.
KIND_RANK = {"Secret": 0, "ConfigMap": 1, "PodGroup": 2, "JobSet": 3}


def manifest_sort_key(manifest: Manifest) -> tuple[int, str, str]:
    return (KIND_RANK.get(manifest["kind"], len(KIND_RANK)), manifest["kind"], manifest["metadata"]["name"])


class Framework:
    """Plugins classified once by extension point (upstream `framework.New`)."""

    def __init__(self, registry: PluginRegistry | None = None) -> None:
        plugins = (registry or default_registry()).instantiate()
        self.validators = _implementing(plugins, CustomValidationPlugin)
        self.ml_policy_enforcers = _implementing(plugins, EnforceMLPolicyPlugin)
        self.pod_group_enforcers = _implementing(plugins, EnforcePodGroupPolicyPlugin)
        self.pod_spec_enforcers = _implementing(plugins, EnforcePodSpecPlugin)
        self.pre_build_syncers = _implementing(plugins, PreBuildSyncPlugin)
        self.builders = _implementing(plugins, ComponentBuilderPlugin)

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        verdict = Verdict()
        for plugin in self.validators:
            found = plugin.validate(info, trainjob, context)
            if found is not NO_FINDINGS:
                verdict.extend(found)
        return verdict

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        for plugin in self.ml_policy_enforcers:
            plugin.enforce_ml_policy(info, trainjob)
        for plugin in self.pod_group_enforcers:
            plugin.enforce_pod_group_policy(info, trainjob)
        for plugin in self.pod_spec_enforcers:
            plugin.enforce_pod_spec(info, trainjob)
        for plugin in self.pre_build_syncers:
            plugin.pre_build_sync(info, trainjob)
        manifests: list[Manifest] = []
        for plugin in self.builders:
            manifests.extend(plugin.build(info, trainjob, context))
        return sorted(manifests, key=manifest_sort_key)


def _implementing(plugins: list[Any], point: type) -> list[Any]:
    return [plugin for plugin in plugins if isinstance(plugin, point)]
