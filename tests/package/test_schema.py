"""The package schema: the checked-in schema.json is what the host serves, and the package takes every
argument of the Python components and gives every Output of the Python TrainJob."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer import resources
from pulumi_kubeflow_trainer.package import PLUGIN_DIR, args
from pulumi_kubeflow_trainer.package.components import TRAINJOB_OUTPUTS
from pulumi_kubeflow_trainer.package.errors import camel
from pulumi_kubeflow_trainer.package.host import schema, schema_text
from pulumi_kubeflow_trainer.resources.outputs import TrainJobOutputs
from pulumi_kubeflow_trainer.resources.runtime import RuntimeComponent

TOKENS = ("kubeflow-trainer:index:TrainJob", "kubeflow-trainer:index:ClusterTrainingRuntime", "kubeflow-trainer:index:TrainingRuntime")


def test_the_checked_in_schema_is_the_one_the_host_serves() -> None:
    checked_in = (PLUGIN_DIR / "schema.json").read_text()
    assert checked_in == schema_text(), "package/schema.json is out of date: run tools/package-schema"


def test_the_schema_has_the_three_components_and_their_types() -> None:
    served = schema()
    assert served["name"] == "kubeflow-trainer"
    assert sorted(served["resources"]) == sorted(TOKENS)
    assert all(resource["isComponent"] for resource in served["resources"].values())
    assert sorted(served["types"]) == [f"kubeflow-trainer:index:{name}" for name in ("DatasetInitializer", "ModelInitializer", "Trainer", "WaitFor")]


def python_arguments(function: Any) -> set[str]:
    return {name for name in inspect.signature(function).parameters if name not in ("self", "name", "opts")}


def python_fields(cls: type) -> set[str]:
    return {field.name for field in dataclasses.fields(cls)}


@dataclass(frozen=True)
class Mirror:
    name: str
    package: type
    python: set[str]
    package_only: frozenset[str] = frozenset()


MIRRORS = [
    Mirror("TrainJob takes every keyword argument of the Python TrainJob, and the manifest as text", args.TrainJobArgs,
           python_arguments(resources.TrainJob.__init__), frozenset({"manifest_yaml"})),
    Mirror("the runtimes take every argument of the Python runtimes, and the manifest as text or a bundled name", args.RuntimeArgs,
           python_arguments(RuntimeComponent.__init__), frozenset({"manifest_yaml", "bundled"})),
    Mirror("Trainer has every field of TrainerArgs", args.Trainer, python_fields(resources.TrainerArgs)),
    Mirror("DatasetInitializer has every field of DatasetInitializerArgs", args.DatasetInitializer, python_fields(resources.DatasetInitializerArgs)),
    Mirror("ModelInitializer has every field of ModelInitializerArgs", args.ModelInitializer, python_fields(resources.ModelInitializerArgs)),
]


@pytest.mark.parametrize("mirror", MIRRORS, ids=lambda mirror: mirror.name)
def test_the_package_takes_the_arguments_of_the_python_components(mirror: Mirror) -> None:
    """A new argument of a Python component fails here until the package (and the schema) take it."""
    assert set(mirror.package.__annotations__) == mirror.python | mirror.package_only


def test_the_trainjob_gives_every_output_of_the_python_trainjob() -> None:
    python = {name for name, member in vars(TrainJobOutputs).items() if isinstance(member, functools.cached_property) and not name.startswith("_")}
    assert set(TRAINJOB_OUTPUTS) == python
    outputs = schema()["resources"]["kubeflow-trainer:index:TrainJob"]["properties"]
    assert set(outputs) == {camel(name) for name in python}

