"""ML-policy plugins: the mlPolicy key each plugin of a registry handles, and what is derived from them.

A plugin that handles an mlPolicy source says so with class attributes (the protocols of
framework.interfaces), and nothing else has to change for a new policy:

- `ml_policy = "paddle"`: the key under `spec.mlPolicy`. A key that is no field of `api.runtime.MLPolicy`
  needs `ml_policy_source`, the model its value is validated with (a `KubeModel`); runtimes loaded for
  the plugin's registry then accept the key, and the "only one policy" rule counts it. A key no plugin
  of the registry claims is refused.
- `leaves_trainer_to_plainml = True`: the PlainML plugin sets the trainer's node count and the user's env
  for this policy, before the plugin acts (XGBoost, Flux). Default False: the plugin does both itself.
- `function_launcher`: how `TrainerArgs.from_function` starts a function on this policy's nodes (default
  `python`), or, with a `refusal`, why it cannot.

Each `PluginRegistry` has its own table: what one registry knows changes nothing for another, nor for
the API models, which know the CRD's keys only unless a load passes a registry's (`policy_sources`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ..api.admission import Admission
from ..api.base import KubeModel
from ..api.runtime import BUILTIN_SOURCE_FIELDS, MLPolicy, Runtime
from .errors import PluginRegistrationError
from .interfaces import (
    PYTHON_LAUNCHER,
    FunctionLauncher,
    FunctionLauncherPlugin,
    MLPolicyPlugin,
    PlainMLTrainerPlugin,
    PolicySourcePlugin,
)

__all__ = ["PYTHON_LAUNCHER", "FunctionLauncher", "MLPolicyTable", "function_launcher"]


class MLPolicyTable:
    """Which plugin of one registry handles each mlPolicy key; a second plugin for a key is refused."""

    def __init__(self) -> None:
        self._plugins: dict[str, MLPolicyPlugin] = {}
        self._left_to_plainml: set[str] = set()
        self._sources: dict[str, type[KubeModel]] = {}  # read on every load: kept, not derived per call
        self._admissions: dict[bool, Admission] = {}  # the same, as loads pass it; made again after a claim

    def claim(self, plugin: object) -> None:
        """Record `plugin`'s key, if it declares one (`MLPolicyPlugin`)."""
        if not isinstance(plugin, MLPolicyPlugin):
            return
        key = plugin.ml_policy
        _check_declaration(plugin, key)
        holder = self._plugins.setdefault(key, plugin)
        if holder is not plugin:
            raise PluginRegistrationError(
                f"plugin {plugin.name!r} handles mlPolicy.{key}, which plugin {holder.name!r} handles already: one plugin per policy"
            )
        if isinstance(plugin, PlainMLTrainerPlugin) and plugin.leaves_trainer_to_plainml:
            self._left_to_plainml.add(key)
        if key not in BUILTIN_SOURCE_FIELDS and isinstance(plugin, PolicySourcePlugin):
            self._sources[key] = plugin.ml_policy_source
        self._admissions.clear()

    def plugin_for(self, key: str) -> MLPolicyPlugin | None:
        return self._plugins.get(key)

    def plugin_of(self, runtime: Runtime) -> MLPolicyPlugin | None:
        """The plugin of the runtime's policy; None without a policy or for a key no plugin handles."""
        policy = runtime.spec.ml_policy
        key = policy.source_key if policy is not None else None
        return self._plugins.get(key) if key is not None else None

    def plainml_sets_trainer(self, runtime: Runtime) -> bool:
        """Whether PlainML sets the trainer's node count and env: without a policy, for a policy whose
        plugin leaves them to it, and for a key no plugin handles."""
        policy = runtime.spec.ml_policy
        key = policy.source_key if policy is not None else None
        return key is None or key in self._left_to_plainml or key not in self._plugins

    def sources(self) -> Mapping[str, type[KubeModel]]:
        """The keys plugins add that the CRD lacks, with the model of each: how a load of runtimes for
        this registry validates them (`loading.load(..., registry=...)`)."""
        return MappingProxyType(self._sources)

    def admission(self, *, refuse_undeployable: bool = False) -> Admission:
        """What a load for this table's registry admits beyond the CRD (api.admission)."""
        found = self._admissions.get(refuse_undeployable)
        if found is None:
            found = self._admissions[refuse_undeployable] = Admission(self.sources(), refuse_undeployable)
        return found

    def launchers(self) -> list[tuple[str, FunctionLauncher]]:
        """(key, launcher) of every claimed policy, in the order they were claimed."""
        return [(key, function_launcher(plugin)) for key, plugin in self._plugins.items()]


def function_launcher(plugin: object) -> FunctionLauncher:
    """The launcher a policy plugin declares; `python` when it declares none."""
    if not isinstance(plugin, FunctionLauncherPlugin):
        return PYTHON_LAUNCHER
    launcher = plugin.function_launcher
    if not isinstance(launcher, FunctionLauncher):
        raise PluginRegistrationError(f"plugin {getattr(plugin, 'name', plugin)!r}: function_launcher must be a FunctionLauncher")
    return launcher


def _check_declaration(plugin: MLPolicyPlugin, key: object) -> None:
    name = plugin.name
    if not isinstance(key, str) or not key or key in MLPolicy.NOT_A_SOURCE or key == "numNodes":
        raise PluginRegistrationError(f"plugin {name!r}: ml_policy must be the policy's key under spec.mlPolicy, not {key!r}")
    source = plugin.ml_policy_source if isinstance(plugin, PolicySourcePlugin) else None
    if key not in BUILTIN_SOURCE_FIELDS and not (isinstance(source, type) and issubclass(source, KubeModel)):
        raise PluginRegistrationError(
            f"plugin {name!r} handles mlPolicy.{key}, which the CRD lacks: set ml_policy_source to the KubeModel of its value"
        )
    function_launcher(plugin)
