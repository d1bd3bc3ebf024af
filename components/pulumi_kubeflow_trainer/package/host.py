"""The package's provider: `component_provider_host`'s, with two changes for what it hosts.

* Bad input is the engine's property errors, not a traceback: the host wraps whatever a component's
  constructor raises into an error that prints the Python stack, and the engine only prints property
  paths for an `InputPropertiesError` that reaches it as it is.
* The program's root: the SDK resets it to none for every construct, while the Python components keep
  what is one per program (the runtime-patch update-rules hook, registered once by name; the report of
  runtime revisions) on the program's root resource. Every construct of a deployment runs in this one
  process, so the stack's resource, by its URN, stands for the root.
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import pulumi
from pulumi.provider import ConstructResult, main
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError
from pulumi.resource import DependencyResource
from pulumi.runtime.settings import set_root_resource

from .components import PACKAGE, ClusterTrainingRuntime, TrainingRuntime, TrainJob, references

COMPONENTS: list[type[pulumi.ComponentResource]] = [TrainJob, ClusterTrainingRuntime, TrainingRuntime]
_ROOTS: dict[str, pulumi.Resource] = {}


def package_version() -> str:
    try:
        return version("pulumi-kubeflow-trainer")
    except PackageNotFoundError:  # run from a source tree that is not installed
        return "0.0.0"


class KubeflowTrainerProvider(ComponentProvider):
    def __init__(self) -> None:
        super().__init__(COMPONENTS, PACKAGE, version=package_version())

    def construct(self, name: str, resource_type: str, inputs: pulumi.Inputs,
                  options: pulumi.ResourceOptions | None = None) -> ConstructResult:
        set_root_resource(program_root())
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as error:
            if isinstance(error.inner, (pulumi.InputPropertiesError, pulumi.InputPropertyError)):
                raise error.inner from None
            raise


def program_root() -> pulumi.Resource:
    """The stack resource of the program this construct is for (pulumi:pulumi:Stack, named
    `<project>-<stack>`), one object per stack for the life of the process."""
    project, stack = pulumi.get_project(), pulumi.get_stack()
    urn = f"urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}"
    return _ROOTS.setdefault(urn, DependencyResource(urn))


def schema() -> dict[str, Any]:
    """The package schema the host serves (what `pulumi package get-schema` prints)."""
    loaded: dict[str, Any] = json.loads(KubeflowTrainerProvider().schema or "{}")
    return loaded


def schema_text() -> str:
    """The schema as the checked-in schema.json holds it: sorted keys, two-space indent, final newline."""
    return json.dumps(schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def serve(args: list[str]) -> None:
    """Serve the package to the engine at `args[0]` (the plugin's command line)."""
    pulumi.runtime.register_resource_module(PACKAGE, "index", references)
    main(KubeflowTrainerProvider(), args)
