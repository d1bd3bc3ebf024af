"""The ordered plugin registry. Order is fixed, so renders are deterministic (upstream's is a Go map).

A registry is an object of its caller's: what its plugins declare (their mlPolicy keys and the models
of those keys) is its own, and reaches validation only through the loads and renders given it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any

from ..api.base import KubeModel
from .errors import PluginRegistrationError
from .interfaces import EXTENSION_POINTS
from .ml_policy import MLPolicyTable

ENTRY_POINT_GROUP = "pulumi_kubeflow_trainer.plugins"
PluginFactory = Callable[[], Any]


class PluginRegistry:
    def __init__(self) -> None:
        self._factories: dict[str, PluginFactory] = {}
        self.policies = MLPolicyTable()

    def register(self, factory: PluginFactory) -> None:
        """Add a plugin class (or factory with a `name`); rejects duplicates, plugins with no extension point
        and a second plugin for an mlPolicy key in this registry."""
        name = getattr(factory, "name", None)  # a factory's own attribute: the protocols describe the plugins it makes
        if not isinstance(name, str) or not name:
            raise PluginRegistrationError(f"plugin {factory!r} has no `name`: set a class attribute name = '...'")
        if name in self._factories:
            raise PluginRegistrationError(f"plugin {name!r} is registered twice: rename one of them")
        plugin = factory()
        if not any(isinstance(plugin, point) for point in EXTENSION_POINTS):
            points = ", ".join(point.__name__ for point in EXTENSION_POINTS)
            raise PluginRegistrationError(f"plugin {name!r} implements no extension point; implement one of {points}")
        self.policies.claim(plugin)
        self._factories[name] = factory

    @property
    def names(self) -> list[str]:
        return list(self._factories)

    def instantiate(self) -> list[Any]:
        return [factory() for factory in self._factories.values()]

    def policy_sources(self) -> Mapping[str, type[KubeModel]]:
        """The mlPolicy keys this registry's plugins add, with their models: what a load for it accepts."""
        return self.policies.sources()


@lru_cache(maxsize=1)
def entry_point_plugins() -> tuple[PluginFactory, ...]:
    """The plugins installed distributions declare, read once per process: scanning every installed
    distribution's metadata costs milliseconds, far more than a render. A snapshot of what is installed,
    changed by nothing this library does; `cache_clear()` rereads."""
    return tuple(entry.load() for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name))


def registry_of(plugins: Iterable[PluginFactory], *, include_entry_points: bool = True) -> PluginRegistry:
    """`plugins` in their order, then (unless left out) the plugins other packages declare."""
    registry = PluginRegistry()
    for plugin in plugins:
        registry.register(plugin)
    if include_entry_points:
        for factory in entry_point_plugins():
            registry.register(factory)
    return registry
