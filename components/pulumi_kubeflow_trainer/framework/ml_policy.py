"""ML-policy plugins: the mlPolicy key each one handles, and what the library derives from them.

A plugin that handles an mlPolicy source says so with class attributes, and nothing else has to
change for a new policy:

- `ml_policy = "paddle"`: the key under `spec.mlPolicy`. A key that is no field of `api.runtime.MLPolicy`
  needs `ml_policy_source`, the model its value is validated with (a `KubeModel`); it is then accepted
  by every runtime model, and counted by the "only one policy" rule. A key no plugin claims is refused.
- `leaves_trainer_to_plainml = True`: the PlainML plugin sets the trainer's node count and the user's env
  for this policy, before the plugin acts (XGBoost, Flux). Default False: the plugin does both itself.
- `function_launcher`: how `TrainerArgs.from_function` starts a function on this policy's nodes (default
  `python`), or, with a `refusal`, why it cannot.

The table is the process's: built-in plugins (claimed when the plugins package is imported), plugins
registered in any PluginRegistry, and the entry-point group, read when a key is asked for that no
plugin has claimed yet. So a runtime is read alike whichever registry later renders it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..api.base import KubeModel
from ..api.runtime import BUILTIN_SOURCE_FIELDS, MLPolicy, Runtime, set_policy_source_lookup
from .errors import PluginRegistrationError

PolicyPlugin = Any  # a plugin class (or factory) with an `ml_policy` attribute


@dataclass(frozen=True)
class FunctionLauncher:
    """How a node starts a packaged function: `argv`, then `python -c <bootstrap> <digest> <payload>`;
    or, with a `refusal`, why functions cannot run on this policy's runtimes."""

    name: str
    argv: tuple[str, ...] = ()
    refusal: str = ""


PYTHON_LAUNCHER = FunctionLauncher("python")


class MLPolicyTable:
    """Which plugin handles each mlPolicy key; the first plugin to claim a key keeps it."""

    def __init__(self) -> None:
        self._plugins: dict[str, PolicyPlugin] = {}
        self._left_to_plainml: set[str] = set()  # read per render: no getattr of an absent attribute then
        self._unclaimed_sources: Callable[[], Iterable[PolicyPlugin]] = tuple

    def read_on_miss(self, plugins: Callable[[], Iterable[PolicyPlugin]]) -> None:
        """Where plugins not registered yet come from (the entry-point group) when a key is missing."""
        self._unclaimed_sources = plugins

    def claim(self, plugin: PolicyPlugin) -> None:
        """Record `plugin`'s key, if it declares one; a second plugin for the same key is refused."""
        key = getattr(plugin, "ml_policy", None)
        if key is None:
            return
        _check_declaration(plugin, key)
        holder = self._plugins.setdefault(key, plugin)
        if holder is not plugin:
            raise PluginRegistrationError(
                f"plugin {getattr(plugin, 'name', plugin)!r} handles mlPolicy.{key}, which plugin "
                f"{getattr(holder, 'name', holder)!r} handles already: "
                "one plugin per policy"
            )
        if getattr(plugin, "leaves_trainer_to_plainml", False):
            self._left_to_plainml.add(key)

    def plugin_for(self, key: str) -> PolicyPlugin | None:
        """The plugin of `key`; a key not claimed yet is looked for among the plugins not registered yet."""
        if key not in self._plugins:
            for plugin in self._unclaimed_sources():
                if getattr(plugin, "ml_policy", None) == key and key not in self._plugins:
                    self.claim(plugin)
        return self._plugins.get(key)

    def plugin_of(self, runtime: Runtime) -> PolicyPlugin | None:
        """The plugin of the runtime's policy; None without a policy or for a key no plugin handles."""
        policy = runtime.spec.ml_policy
        key = policy.source_key if policy is not None else None
        if key is None:
            return None
        plugin = self._plugins.get(key)
        return plugin if plugin is not None else self.plugin_for(key)

    def plainml_sets_trainer(self, runtime: Runtime) -> bool:
        """Whether PlainML sets the trainer's node count and env: without a policy, for a policy whose
        plugin leaves them to it, and for a key no plugin handles."""
        policy = runtime.spec.ml_policy
        key = policy.source_key if policy is not None else None
        if key is None or key in self._left_to_plainml:
            return True
        return key not in self._plugins and self.plugin_for(key) is None

    def source_model(self, key: str) -> type[KubeModel] | None:
        """The model of a plugin's own key (not a field of MLPolicy), for the API's validation."""
        if key in MLPolicy.model_fields or key in BUILTIN_SOURCE_FIELDS:
            return None
        plugin = self.plugin_for(key)
        return getattr(plugin, "ml_policy_source", None) if plugin is not None else None

    def launchers(self) -> list[tuple[str, FunctionLauncher]]:
        """(key, launcher) of every claimed policy, in the order they were claimed."""
        return [(key, function_launcher(plugin)) for key, plugin in self._plugins.items()]

    def forget(self, plugin: PolicyPlugin) -> None:
        """Drop `plugin`'s claim (tests that register a policy of their own clean up with it)."""
        key = getattr(plugin, "ml_policy", None)
        if key is not None and self._plugins.get(key) is plugin:
            del self._plugins[key]
            self._left_to_plainml.discard(key)


def function_launcher(plugin: PolicyPlugin) -> FunctionLauncher:
    launcher = getattr(plugin, "function_launcher", PYTHON_LAUNCHER)
    assert isinstance(launcher, FunctionLauncher), f"{plugin.name}.function_launcher is no FunctionLauncher"
    return launcher


def _check_declaration(plugin: PolicyPlugin, key: object) -> None:
    name = getattr(plugin, "name", plugin)
    if not isinstance(key, str) or not key or key in MLPolicy.NOT_A_SOURCE or key == "numNodes":
        raise PluginRegistrationError(f"plugin {name!r}: ml_policy must be the policy's key under spec.mlPolicy, not {key!r}")
    source = getattr(plugin, "ml_policy_source", None)
    if key not in BUILTIN_SOURCE_FIELDS and not (isinstance(source, type) and issubclass(source, KubeModel)):
        raise PluginRegistrationError(
            f"plugin {name!r} handles mlPolicy.{key}, which the CRD lacks: set ml_policy_source to the KubeModel of its value"
        )


ML_POLICIES = MLPolicyTable()
set_policy_source_lookup(ML_POLICIES.source_model)
