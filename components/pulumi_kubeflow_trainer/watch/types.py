"""The read side's types, with the field names and meanings of the Kubeflow SDK's (kubeflow 0.5.0,
`kubeflow.trainer.types`), so code written against the SDK's read methods reads ours. Where the
SDK has an Enum (RuntimeKind, TrainerType), ours is its value as a string ("ClusterTrainingRuntime",
"CustomTrainer"). Fields the SDK lacks come last, with defaults: a TrainJob's namespace, mode (rendered
by this library or run by the Trainer controller), queue, conditions and failure hints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

UNKNOWN = "Unknown"


@dataclass
class RuntimeTrainer:
    trainer_type: str  # "CustomTrainer", or "BuiltinTrainer" for TorchTune
    framework: str
    image: str
    num_nodes: int = 1
    device: str = UNKNOWN
    device_count: str = UNKNOWN
    command: tuple[str, ...] = ()


@dataclass
class Runtime:
    name: str
    trainer: RuntimeTrainer
    kind: str  # "ClusterTrainingRuntime" or "TrainingRuntime"
    pretrained_model: str | None = None


@dataclass
class Step:
    name: str  # "node-0", "dataset-initializer", ...
    status: str | None  # the Pod's phase
    pod_name: str
    device: str = UNKNOWN
    device_count: str = UNKNOWN


@dataclass
class TrainJob:
    name: str
    runtime: Runtime
    steps: list[Step]
    num_nodes: int
    creation_timestamp: datetime
    status: str = UNKNOWN  # Created, Running, Complete, Failed; also Suspended, Queued
    namespace: str = "default"
    mode: str = "rendered"  # or "controller"
    queue: str | None = None
    conditions: list[dict[str, Any]] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)  # why it failed or waits (watch/hints.py), one line each


@dataclass
class Event:
    involved_object_kind: str
    involved_object_name: str
    message: str
    reason: str
    event_time: datetime
