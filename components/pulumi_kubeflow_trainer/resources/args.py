"""Typed keyword arguments for the components; leaf values may be Pulumi Inputs (Outputs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi


def _env(env: Mapping[str, pulumi.Input[str]] | Sequence[Mapping[str, Any]] | None) -> list[Any] | None:
    if env is None:
        return None
    if isinstance(env, Mapping):
        return [{"name": name, "value": value} for name, value in env.items()]
    return [dict(var) for var in env]


def _drop_none(fields: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not None}


@dataclass
class Trainer:
    """`spec.trainer`: what the trainer nodes run. Counts are plain ints: they decide the structure."""

    image: pulumi.Input[str] | None = None
    command: Sequence[pulumi.Input[str]] | None = None
    args: Sequence[pulumi.Input[str]] | None = None
    env: Mapping[str, pulumi.Input[str]] | Sequence[Mapping[str, Any]] | None = None
    num_nodes: int | None = None
    num_proc_per_node: int | None = None
    resources_per_node: Mapping[str, Any] | None = None

    @classmethod
    def from_function(cls, func: Any, **options: Any) -> Any:
        """A trainer that runs a Python function on every node, with the runtime's launcher
        (torchrun, mpirun, python); see `pulumi_kubeflow_trainer.functions.FunctionTrainer`."""
        from ..functions import FunctionTrainer

        return FunctionTrainer.from_function(func, **options)

    def to_manifest(self) -> dict[str, Any]:
        return _drop_none(
            {
                "image": self.image,
                "command": list(self.command) if self.command is not None else None,
                "args": list(self.args) if self.args is not None else None,
                "env": _env(self.env),
                "numNodes": self.num_nodes,
                "numProcPerNode": self.num_proc_per_node,
                "resourcesPerNode": dict(self.resources_per_node) if self.resources_per_node is not None else None,
            }
        )


@dataclass
class DatasetInitializer:
    """`spec.initializer.dataset`: where the dataset comes from (`s3://`, `hf://`)."""

    storage_uri: pulumi.Input[str] | None = None
    env: Mapping[str, pulumi.Input[str]] | Sequence[Mapping[str, Any]] | None = None
    secret_ref: pulumi.Input[str] | None = None  # a Secret with credentials, passed as envFrom

    def to_manifest(self) -> dict[str, Any]:
        secret = {"name": self.secret_ref} if self.secret_ref is not None else None
        return _drop_none({"storageUri": self.storage_uri, "env": _env(self.env), "secretRef": secret})


@dataclass
class ModelInitializer(DatasetInitializer):
    """`spec.initializer.model`: where the pretrained model comes from."""
