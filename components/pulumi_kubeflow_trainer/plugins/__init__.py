"""The built-in plugins, one per file, in the order they act within each phase, and the default
registry and framework made of them (the framework itself knows no plugin)."""

from functools import lru_cache

from ..framework.framework import Framework
from ..framework.registry import PluginRegistry, registry_of
from .coscheduling import CoSchedulingPlugin
from .flux import FluxPlugin
from .jax import JAXPlugin
from .jobset import JobSetPlugin
from .mpi import MPIPlugin
from .plainml import PlainMLPlugin
from .snapshot import RuntimeSnapshotPlugin
from .torch import TorchPlugin
from .volcano import VolcanoPlugin
from .xgboost import XGBoostPlugin

# PlainML runs before XGBoost so that user env precedes the framework's, as it does for torch.
BUILTIN_PLUGINS = (
    TorchPlugin,
    MPIPlugin,
    PlainMLPlugin,
    JAXPlugin,
    XGBoostPlugin,
    FluxPlugin,
    CoSchedulingPlugin,
    VolcanoPlugin,
    JobSetPlugin,
    RuntimeSnapshotPlugin,
)


def default_registry(*, include_entry_points: bool = True) -> PluginRegistry:
    """The built-in plugins in upstream's order of effect, then plugins other packages declare."""
    return registry_of(BUILTIN_PLUGINS, include_entry_points=include_entry_points)


@lru_cache(maxsize=1)
def default_framework() -> Framework:
    """The framework of the default registry, built once per process from the built-ins and the
    installed distributions' plugins (`entry_point_plugins`): it changes nothing and nothing changes it
    (its registry is its own; plugins keep no state), so every render may share it. `cache_clear()`
    rebuilds it, after `entry_point_plugins.cache_clear()`, for a process that installs a plugin."""
    return Framework(default_registry())


__all__ = [plugin.__name__ for plugin in BUILTIN_PLUGINS] + ["BUILTIN_PLUGINS", "default_framework", "default_registry"]
