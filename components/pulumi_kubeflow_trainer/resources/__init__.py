"""The Pulumi layer: thin components over `render()`, and the types of their arguments."""

from .args import (
    DatasetInitializerArgs,
    DatasetInitializerInput,
    EnvArgs,
    ModelInitializerArgs,
    ModelInitializerInput,
    TrainerArgs,
    TrainerInput,
)
from .catalog import RuntimeCatalog, RuntimeInput
from .completion import WaitFor
from .runtime import ClusterTrainingRuntime, RuntimeOptions, TrainingRuntime
from .trainjob import TrainJob

__all__ = [
    "ClusterTrainingRuntime",
    "DatasetInitializerArgs",
    "DatasetInitializerInput",
    "EnvArgs",
    "ModelInitializerArgs",
    "ModelInitializerInput",
    "RuntimeCatalog",
    "RuntimeInput",
    "RuntimeOptions",
    "TrainJob",
    "TrainerArgs",
    "TrainerInput",
    "TrainingRuntime",
    "WaitFor",
]
