"""Typed keyword arguments for the components; leaf values may be Pulumi Inputs (Outputs).

Named `...Args`, as Pulumi names argument types: `TrainerArgs` is what `TrainJob(trainer=...)` takes
in a Pulumi program (Outputs allowed), `pulumi_kubeflow_trainer.api.Trainer` the API model of
`spec.trainer` (plain values, camelCase aliases). Both are accepted by `TrainJob`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pulumi

from ..api import trainjob as api
from ..framework.errors import FieldError, TrainJobInvalidError
from ..functions import FunctionTrainer, env_list
from ..functions.resources import resources_per_node as expand_resources

EnvArgs = Mapping[str, pulumi.Input[str]] | Sequence[Mapping[str, Any]]
"""`{"NAME": value}` (values may be Outputs), or a list of Kubernetes EnvVar dicts (`valueFrom`, ...)."""


def _env(env: EnvArgs | None, path: str) -> list[Any] | None:
    if env is None:
        return None
    _refuse_output(env, path)
    return env_list(env)


def _list(items: Sequence[pulumi.Input[str]] | None, path: str) -> list[pulumi.Input[str]] | None:
    if items is None:
        return None
    _refuse_output(items, path)
    return list(items)


def _refuse_output(value: object, path: str) -> None:
    """A list or map as a whole cannot be an Output: its length shapes the manifest; its items may be."""
    if isinstance(value, pulumi.Output):
        raise TrainJobInvalidError([FieldError(path, "Invalid value: a Pulumi Output of a whole list or map: pass a list or map "
                                                     "whose items may be Outputs (its size must be known at preview)")])


def _drop_none(fields: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not None}


@dataclass
class TrainerArgs:
    """`spec.trainer`: what the trainer nodes run. Counts are plain ints: they decide the structure."""

    image: pulumi.Input[str] | None = None
    command: Sequence[pulumi.Input[str]] | None = None
    args: Sequence[pulumi.Input[str]] | None = None
    env: EnvArgs | None = None
    num_nodes: int | None = None
    num_proc_per_node: int | None = None
    # The Kubeflow SDK's shorthand, as `from_function` takes it ({"gpu": 8, "cpu": 4, "memory": "16Gi"}:
    # requests equal to limits), or the Kubernetes form ({"limits": {...}, "requests": {...}}).
    resources_per_node: Mapping[str, Any] | None = None

    # A trainer that runs a Python function on every node with the runtime's launcher (torchrun, mpirun,
    # python): the same callable, so type checkers see its keyword arguments and its FunctionTrainer.
    from_function = staticmethod(FunctionTrainer.from_function)

    def to_manifest(self) -> dict[str, Any]:
        return _drop_none(
            {
                "image": self.image,
                "command": _list(self.command, "spec.trainer.command"),
                "args": _list(self.args, "spec.trainer.args"),
                "env": _env(self.env, "spec.trainer.env"),
                "numNodes": self.num_nodes,
                "numProcPerNode": self.num_proc_per_node,
                "resourcesPerNode": expand_resources(self.resources_per_node),
            }
        )


@dataclass
class DatasetInitializerArgs:
    """`spec.initializer.dataset`: where the dataset comes from (`s3://`, `hf://`)."""

    storage_uri: pulumi.Input[str] | None = None
    env: EnvArgs | None = None
    secret_ref: pulumi.Input[str] | None = None  # the name of a Secret with credentials, passed as envFrom

    _FIELD: ClassVar[str] = "dataset"

    def to_manifest(self) -> dict[str, Any]:
        secret = {"name": self.secret_ref} if self.secret_ref is not None else None
        env = _env(self.env, f"spec.initializer.{self._FIELD}.env")
        return _drop_none({"storageUri": self.storage_uri, "env": env, "secretRef": secret})


@dataclass
class ModelInitializerArgs(DatasetInitializerArgs):
    """`spec.initializer.model`: where the pretrained model comes from."""

    _FIELD: ClassVar[str] = "model"


# What `TrainJob(trainer=..., dataset=..., model=...)` accepts: the Args above (Outputs allowed), the
# API model, or the camelCase manifest dict of that part.
TrainerInput = TrainerArgs | FunctionTrainer | api.Trainer | Mapping[str, Any]
DatasetInitializerInput = DatasetInitializerArgs | api.DatasetInitializer | Mapping[str, Any]
ModelInitializerInput = ModelInitializerArgs | api.ModelInitializer | Mapping[str, Any]
