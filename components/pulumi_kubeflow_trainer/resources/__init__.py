"""The Pulumi layer: thin components over `render()`."""

from .args import DatasetInitializer, ModelInitializer, Trainer
from .catalog import RuntimeCatalog
from .runtime import ClusterTrainingRuntime, TrainingRuntime
from .trainjob import TrainJob

__all__ = [
    "ClusterTrainingRuntime",
    "DatasetInitializer",
    "ModelInitializer",
    "RuntimeCatalog",
    "Trainer",
    "TrainJob",
    "TrainingRuntime",
]
