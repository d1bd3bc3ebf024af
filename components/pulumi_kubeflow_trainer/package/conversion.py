"""The package's inputs, as the host hands them over, as the Python components' keyword arguments.

The engine carries every number as a float (`numNodes: 2` arrives as 2.0, in nested objects too), so
whole numbers become ints again, and a count that is not whole is refused under its path: a Python
program would have passed the int, and the manifests must be the same bytes. Inputs the program did
not give are left out, so the Python components' defaults apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import pulumi

from ..framework.errors import TrainerError
from ..resources import DatasetInitializerArgs, ModelInitializerArgs, TrainerArgs
from ..resources.runtime import RuntimeComponent
from .errors import camel

PropertyErrors = list[pulumi.InputPropertyErrorDetails]
_WHOLE = {"num_nodes", "num_proc_per_node", "active_deadline_seconds", "wait_timeout_seconds"}
# Passed as given (after whole numbers): plain values, leaf Outputs, or objects in the Kubernetes shape.
_AS_GIVEN = ("runtime_ref", "runtime_patches", "job_name", "namespace", "suspend", "managed_by",
             "active_deadline_seconds", "queue_name", "wait_timeout_seconds", "runtime_snapshot", "controller",
             "run", "runtime_pin")

_MANIFESTS = ("manifest", "manifest_yaml", "bundled")


class PackageRuntime(Protocol):
    """A runtime component of the package (components.py): `runtime` is the Python component it made."""

    runtime: RuntimeComponent


def plain_numbers(value: Any) -> Any:
    """`value` with whole floats as ints, in lists and objects too; Outputs untouched."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: plain_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain_numbers(item) for item in value]
    return value


def whole_number(value: Any, path: str, errors: PropertyErrors) -> Any:
    value = plain_numbers(value)
    if isinstance(value, float):
        errors.append({"property_path": path, "reason": f"Invalid value: {value}: must be a whole number"})
    return value


def runtime_input(value: Any, path: str, runtime_type: type[PackageRuntime], errors: PropertyErrors) -> Any:
    """A runtime as the Python TrainJob takes it: the Python component of a package runtime, or a
    manifest (object or YAML text)."""
    if isinstance(value, runtime_type):
        return value.runtime
    if isinstance(value, Mapping) or (isinstance(value, str) and not value.startswith("urn:pulumi:")):
        return plain_numbers(value)
    shown = "a value from another resource" if isinstance(value, pulumi.Output) else f"{type(value).__name__} {value}"
    errors.append({"property_path": path, "reason": (
        f"Invalid value: {shown}: not a runtime; pass a ClusterTrainingRuntime or TrainingRuntime of this package "
        "created by this program (`${torch}`), or a runtime manifest object")})
    return None


def trainjob_kwargs(args: Mapping[str, Any], runtime_type: type[PackageRuntime]) -> dict[str, Any]:
    """The Python TrainJob's keyword arguments; InputPropertiesError for what only this layer can see."""
    errors: PropertyErrors = []
    kwargs = {key: whole_number(args[key], camel(key), errors) for key in _AS_GIVEN if args.get(key) is not None}
    source = one_source(args, ("manifest", "manifest_yaml"), errors)
    if source is not None:
        kwargs["manifest"] = plain_numbers(args[source])
    if args.get("runtime") is not None:
        kwargs["runtime"] = runtime_input(args["runtime"], "runtime", runtime_type, errors)
    if args.get("runtimes") is not None:
        kwargs["runtimes"] = [runtime_input(item, f"runtimes[{index}]", runtime_type, errors) for index, item in enumerate(args["runtimes"])]
    if args.get("wait_for") is not None:
        kwargs["wait_for"] = args["wait_for"].value
    if args.get("trainer") is not None:
        kwargs["trainer"] = TrainerArgs(**_fields(args["trainer"], "trainer", errors))
    if args.get("dataset") is not None:
        kwargs["dataset"] = DatasetInitializerArgs(**_fields(args["dataset"], "dataset", errors))
    if args.get("model") is not None:
        kwargs["model"] = ModelInitializerArgs(**_fields(args["model"], "model", errors))
    if errors:
        raise pulumi.InputPropertiesError("invalid input", errors)
    return kwargs


def runtime_kwargs(args: Mapping[str, Any]) -> dict[str, Any]:
    """The Python runtime component's arguments; the manifest from `manifest`, `manifestYaml` or `bundled`
    (the manifest `RuntimeComponent.bundled(name)` passes)."""
    errors: PropertyErrors = []
    kwargs = {key: plain_numbers(value) for key, value in args.items() if value is not None and key not in _MANIFESTS}
    source = one_source(args, _MANIFESTS, errors)
    manifest = _bundled_manifest(args[source], errors) if source == "bundled" else plain_numbers(args[source]) if source else None
    if errors:
        raise pulumi.InputPropertiesError("invalid input", errors)
    return {**kwargs, "manifest": manifest} if manifest is not None else kwargs


def one_source(args: Mapping[str, Any], sources: tuple[str, ...], errors: PropertyErrors) -> str | None:
    """Which of the inputs `sources` (ways to give the manifest) is given, if any; several is an error at each."""
    given = [source for source in sources if args.get(source) is not None]
    if len(given) > 1:
        wanted = ", ".join(camel(source) for source in sources)
        errors += [{"property_path": camel(source), "reason": f"Forbidden: give one of {wanted}, not {len(given)}"} for source in given]
        return None
    return given[0] if given else None


def _bundled_manifest(name: str, errors: PropertyErrors) -> dict[str, Any] | None:
    from ..blueprints import bundled_runtime

    try:
        return bundled_runtime(name).to_manifest()
    except TrainerError as error:
        errors.append({"property_path": "bundled", "reason": f"Invalid value: {name!r}: {error}"})
        return None


def _fields(given: Mapping[str, Any], path: str, errors: PropertyErrors) -> dict[str, Any]:
    return {key: whole_number(value, f"{path}.{camel(key)}", errors) if key in _WHOLE else plain_numbers(value)
            for key, value in given.items() if value is not None}
