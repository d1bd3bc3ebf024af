"""The ordered plugin registry. Order is fixed, so renders are deterministic (upstream's is a Go map)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any

from .errors import PluginRegistrationError
from .interfaces import EXTENSION_POINTS
from .ml_policy import ML_POLICIES

ENTRY_POINT_GROUP = "pulumi_kubeflow_trainer.plugins"
PluginFactory = Callable[[], Any]


class PluginRegistry:
    def __init__(self) -> None:
        self._factories: dict[str, PluginFactory] = {}

    def register(self, factory: PluginFactory) -> None:
        """Add a plugin class (or factory with a `name`); rejects duplicates, plugins with no extension point
        and a second plugin for an mlPolicy key (the key's plugin is the process's: framework.ml_policy)."""
        name = getattr(factory, "name", None)
        if not isinstance(name, str) or not name:
            raise PluginRegistrationError(f"plugin {factory!r} has no `name`: set a class attribute name = '...'")
        if name in self._factories:
            raise PluginRegistrationError(f"plugin {name!r} is registered twice: rename one of them")
        if not any(isinstance(factory(), point) for point in EXTENSION_POINTS):
            points = ", ".join(point.__name__ for point in EXTENSION_POINTS)
            raise PluginRegistrationError(f"plugin {name!r} implements no extension point; implement one of {points}")
        ML_POLICIES.claim(factory)
        self._factories[name] = factory

    @property
    def names(self) -> list[str]:
        return list(self._factories)

    def instantiate(self) -> list[Any]:
        return [factory() for factory in self._factories.values()]


@lru_cache(maxsize=1)
def entry_point_plugins() -> tuple[PluginFactory, ...]:
    """The plugins other packages declare, read once per process: scanning every installed
    distribution's metadata costs milliseconds, far more than a render. `cache_clear()` rereads."""
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


# A runtime naming a key no registered plugin claims may name an entry-point plugin's: read them then.
ML_POLICIES.read_on_miss(entry_point_plugins)
