"""The Pulumi layer: thin components over `render()`."""

from .args import DatasetInitializer, ModelInitializer, Trainer
from .runtime import ClusterTrainingRuntime, TrainingRuntime, declared_runtimes, forget_declared_runtimes
from .trainjob import TrainJob

__all__ = [
    "ClusterTrainingRuntime",
    "DatasetInitializer",
    "ModelInitializer",
    "Trainer",
    "TrainJob",
    "TrainingRuntime",
    "declared_runtimes",
    "forget_declared_runtimes",
]
