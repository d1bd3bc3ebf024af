"""The built-in plugins, one per file, in the order they act within each phase, and the default
registry and framework made of them (the framework itself knows no plugin)."""

from functools import lru_cache

from ..framework.framework import Framework
from ..framework.ml_policy import ML_POLICIES
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

# The built-in policies are known as soon as any plugin is, whichever registry renders (PlainML and the
# function launcher read them even where a registry leaves their plugin out).
for _plugin in BUILTIN_PLUGINS:
    ML_POLICIES.claim(_plugin)


def default_registry(*, include_entry_points: bool = True) -> PluginRegistry:
    """The built-in plugins in upstream's order of effect, then plugins other packages declare."""
    return registry_of(BUILTIN_PLUGINS, include_entry_points=include_entry_points)


@lru_cache(maxsize=1)
def default_framework() -> Framework:
    """The framework of the default registry, built once per process; plugins keep no state, so
    every render may share it."""
    return Framework(default_registry())


__all__ = [plugin.__name__ for plugin in BUILTIN_PLUGINS] + ["BUILTIN_PLUGINS", "default_framework", "default_registry"]
