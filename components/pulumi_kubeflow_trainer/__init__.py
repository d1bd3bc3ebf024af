"""Kubeflow Trainer v2 as Pulumi components, rendered client side.

Heavy imports (pydantic models, Pulumi) load on first use, so the initializers can run in slim images.
`TrainJob`, `TrainingRuntime` and `ClusterTrainingRuntime` here are the Pulumi components; the API
models of the same names are in `pulumi_kubeflow_trainer.api`. The components' typed arguments are
`TrainerArgs`, `DatasetInitializerArgs` and `ModelInitializerArgs` (Outputs allowed in leaf values).
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time `__getattr__` imports each on first use
    from .blueprints import BundledRuntime as BundledRuntime
    from .blueprints import list_runtimes as list_runtimes
    from .framework.errors import FieldError as FieldError
    from .framework.errors import RuntimeNotFoundError as RuntimeNotFoundError
    from .framework.errors import TrainerError as TrainerError
    from .framework.errors import TrainJobInvalidError as TrainJobInvalidError
    from .functions import FunctionTrainer as FunctionTrainer
    from .loading import load as load
    from .local import LocalRunResult as LocalRunResult
    from .local import run_local as run_local
    from .migration import MigrationResult as MigrationResult
    from .migration import migrate as migrate
    from .rendering import Renderer as Renderer
    from .rendering import TrainerWarning as TrainerWarning
    from .rendering import render as render
    from .resources import ClusterTrainingRuntime as ClusterTrainingRuntime
    from .resources import DatasetInitializerArgs as DatasetInitializerArgs
    from .resources import ModelInitializerArgs as ModelInitializerArgs
    from .resources import RuntimeCatalog as RuntimeCatalog
    from .resources import TrainerArgs as TrainerArgs
    from .resources import TrainingRuntime as TrainingRuntime
    from .resources import TrainJob as TrainJob
    from .ssh import seeded_key_generator as seeded_key_generator
    from .watch import TrainerClient as TrainerClient

_EXPORTS = {
    "render": "rendering",
    "Renderer": "rendering",
    "TrainerWarning": "rendering",
    "load": "loading",
    "list_runtimes": "blueprints",
    "BundledRuntime": "blueprints",
    "TrainJob": "resources",
    "TrainingRuntime": "resources",
    "ClusterTrainingRuntime": "resources",
    "RuntimeCatalog": "resources",
    "TrainerArgs": "resources",
    "DatasetInitializerArgs": "resources",
    "ModelInitializerArgs": "resources",
    "TrainerError": "framework.errors",
    "TrainJobInvalidError": "framework.errors",
    "RuntimeNotFoundError": "framework.errors",
    "FieldError": "framework.errors",
    "seeded_key_generator": "ssh",
    "FunctionTrainer": "functions",
    "run_local": "local",
    "LocalRunResult": "local",
    "migrate": "migration",
    "MigrationResult": "migration",
    "TrainerClient": "watch",
}

# The names before the Args types were named so (they read like the API models `api.Trainer`, ...):
# still served, with a DeprecationWarning; type checkers do not see them.
_RENAMED = {"Trainer": "TrainerArgs", "DatasetInitializer": "DatasetInitializerArgs", "ModelInitializer": "ModelInitializerArgs"}

__all__ = [
    "BundledRuntime",
    "ClusterTrainingRuntime",
    "DatasetInitializerArgs",
    "FieldError",
    "FunctionTrainer",
    "LocalRunResult",
    "MigrationResult",
    "ModelInitializerArgs",
    "Renderer",
    "RuntimeCatalog",
    "RuntimeNotFoundError",
    "TrainJob",
    "TrainJobInvalidError",
    "TrainerArgs",
    "TrainerClient",
    "TrainerError",
    "TrainerWarning",
    "TrainingRuntime",
    "list_runtimes",
    "load",
    "migrate",
    "render",
    "run_local",
    "seeded_key_generator",
]

if not TYPE_CHECKING:  # hidden from type checkers, which would read every unknown name as Any through it

    def __getattr__(name: str) -> Any:
        if name in _RENAMED:
            warnings.warn(f"pulumi_kubeflow_trainer.{name} is now {_RENAMED[name]}", DeprecationWarning, stacklevel=2)
            return __getattr__(_RENAMED[name])
        if name not in _EXPORTS:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
