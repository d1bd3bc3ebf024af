"""Kubeflow Trainer v2 as Pulumi components, rendered client side.

Heavy imports (pydantic models, Pulumi) load on first use, so the initializers can run in slim images.
`TrainJob`, `TrainingRuntime` and `ClusterTrainingRuntime` here are the Pulumi components; the API
models of the same names are in `pulumi_kubeflow_trainer.api`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time `__getattr__` imports each on first use
    from .framework.errors import FieldError, RuntimeNotFoundError, TrainerError, TrainJobInvalidError
    from .functions import FunctionTrainer
    from .loading import load
    from .local import LocalRunResult, run_local
    from .rendering import Renderer, TrainerWarning, render
    from .resources import (
        ClusterTrainingRuntime,
        DatasetInitializer,
        ModelInitializer,
        RuntimeCatalog,
        Trainer,
        TrainingRuntime,
        TrainJob,
    )
    from .ssh import seeded_key_generator

_EXPORTS = {
    "render": "rendering",
    "Renderer": "rendering",
    "TrainerWarning": "rendering",
    "load": "loading",
    "TrainJob": "resources",
    "TrainingRuntime": "resources",
    "ClusterTrainingRuntime": "resources",
    "RuntimeCatalog": "resources",
    "Trainer": "resources",
    "DatasetInitializer": "resources",
    "ModelInitializer": "resources",
    "TrainerError": "framework.errors",
    "TrainJobInvalidError": "framework.errors",
    "RuntimeNotFoundError": "framework.errors",
    "FieldError": "framework.errors",
    "seeded_key_generator": "ssh",
    "FunctionTrainer": "functions",
    "run_local": "local",
    "LocalRunResult": "local",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value
