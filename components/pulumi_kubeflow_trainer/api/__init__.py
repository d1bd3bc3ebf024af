"""Pydantic models of the Trainer v2 API (no I/O, no Pulumi)."""

from .jobset import JobSet, JobSetSpec, JobSetTemplateSpec, ReplicatedJob
from .patches import RuntimePatch
from .runtime import ClusterTrainingRuntime, MLPolicy, PodGroupPolicy, TrainingRuntime, TrainingRuntimeSpec
from .trainjob import Initializer, RuntimeRef, Trainer, TrainJob, TrainJobSpec

__all__ = [
    "ClusterTrainingRuntime",
    "Initializer",
    "JobSet",
    "JobSetSpec",
    "JobSetTemplateSpec",
    "MLPolicy",
    "PodGroupPolicy",
    "ReplicatedJob",
    "RuntimePatch",
    "RuntimeRef",
    "TrainJob",
    "TrainJobSpec",
    "Trainer",
    "TrainingRuntime",
    "TrainingRuntimeSpec",
]
