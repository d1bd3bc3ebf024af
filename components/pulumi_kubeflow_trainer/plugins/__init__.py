"""The built-in plugins, one per file, in the order they act within each phase."""

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

__all__ = [plugin.__name__ for plugin in BUILTIN_PLUGINS] + ["BUILTIN_PLUGINS"]
