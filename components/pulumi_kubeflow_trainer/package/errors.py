"""Bad input from another language: the Python components' errors as the engine's property errors.

The Python components end a program with one `path: message` line per rejected field, where the path
is the field's place in the Kubernetes object (`spec.trainer.numNodes`). A program of another language
wrote the package's inputs, so each path is said the way it wrote it (`trainer.numNodes`, or
`manifest.spec...` for what came from the manifest) and raised as `pulumi.InputPropertiesError`, which
the engine prints as `property trainer.numNodes with value -1 has a problem: ...` under the resource,
with no traceback (host.py keeps the host from wrapping it into one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pulumi

from ..framework.errors import FieldError
from ..resources.errors import InvalidInputError
from .args import RuntimeArgs, TrainJobArgs

PropertyErrors = list[pulumi.InputPropertyErrorDetails]


@dataclass(frozen=True)
class InputPlace:
    """Where the part of the Kubernetes object at `field` came from: the package input `argument` (its
    Python name), whose schema path is `path`."""

    field: str
    argument: str
    path: str


TRAINJOB_PLACES = (
    InputPlace("spec.initializer.dataset.secretRef.name", "dataset", "dataset.secretRef"),
    InputPlace("spec.initializer.model.secretRef.name", "model", "model.secretRef"),
    InputPlace("spec.initializer.dataset", "dataset", "dataset"),
    InputPlace("spec.initializer.model", "model", "model"),
    InputPlace("spec.trainer", "trainer", "trainer"),
    InputPlace("spec.runtimePatches", "runtime_patches", "runtimePatches"),
    InputPlace("spec.runtimeRef.name", "runtime_ref", "runtimeRef"),
    InputPlace("spec.runtimeRef", "runtime_ref", "runtimeRef"),
    InputPlace("spec.runtimeRef", "runtime", "runtime"),
    InputPlace("spec.suspend", "suspend", "suspend"),
    InputPlace("spec.managedBy", "managed_by", "managedBy"),
    InputPlace("spec.activeDeadlineSeconds", "active_deadline_seconds", "activeDeadlineSeconds"),
    InputPlace("metadata.name", "job_name", "jobName"),
    InputPlace("metadata.namespace", "namespace", "namespace"),
)
RUNTIME_PLACES = (
    InputPlace("spec.mlPolicy", "ml_policy", "mlPolicy"),
    InputPlace("spec.podGroupPolicy", "pod_group_policy", "podGroupPolicy"),
    InputPlace("spec.template", "template", "template"),
    InputPlace("metadata.labels", "labels", "labels"),
)

_LINE = re.compile(r"^(?P<path>[A-Za-z_][\w.\[\]-]*): (?P<message>.+)$")
# The Python components' keyword arguments, as their messages name them: `runtime_pin`, `runtime=<...>`.
_ARGUMENTS = sorted({*TrainJobArgs.__annotations__, *RuntimeArgs.__annotations__}, key=len, reverse=True)
_PYTHON_ARGUMENT = re.compile(r"\b(" + "|".join(_ARGUMENTS) + r")\b(=?)")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def input_path(field: str, given: Mapping[str, Any], places: Sequence[InputPlace]) -> str:
    """The schema path of the input that set `field` of the Kubernetes object: the input that overrides
    that part when it was given, else the manifest's field."""
    for place in places:
        if (field == place.field or field.startswith((f"{place.field}.", f"{place.field}["))) and given.get(place.argument) is not None:
            return place.path + field[len(place.field):]
    if given.get("manifest") is not None:
        return f"manifest.{field}"
    return "manifestYaml" if given.get("manifest_yaml") is not None else field


def in_package_spelling(message: str) -> str:
    """A message of the Python components with their argument names as the package spells them
    (`runtime_pin` -> `runtimePin`, `runtime=<...>` -> `runtime: <...>`)."""
    return _PYTHON_ARGUMENT.sub(lambda match: camel(match.group(1)) + (": " if match.group(2) else ""), message)


def property_errors(fields: Sequence[FieldError], given: Mapping[str, Any], places: Sequence[InputPlace]) -> PropertyErrors:
    errors: PropertyErrors = []
    for field in fields:
        reason = in_package_spelling(field.message)
        if field.source.startswith(("ClusterTrainingRuntime", "TrainingRuntime")):  # about the runtime, not the TrainJob
            reason = f"{field.source}: {field.path}: {reason}"
            errors.append({"property_path": "runtime" if given.get("runtime") is not None else "runtimeRef", "reason": reason})
            continue
        errors.append(_property_error(field.path, reason, given, places))
    return errors


def _property_error(field: str, reason: str, given: Mapping[str, Any], places: Sequence[InputPlace]) -> pulumi.InputPropertyErrorDetails:
    path = input_path(field, given, places)
    return {"property_path": path, "reason": f"{field}: {reason}" if path == "manifestYaml" else reason}


def message_errors(message: str, given: Mapping[str, Any], places: Sequence[InputPlace]) -> PropertyErrors:
    """The `path: message` lines of an error that carries no FieldErrors (a TrainerError's text), where
    the path is an argument (`wait_for: ...`) or a field of the Kubernetes object (`spec.suspend: ...`)."""
    errors: PropertyErrors = []
    for line in message.splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        path, reason = match.group("path"), in_package_spelling(match.group("message"))
        if path in given:
            errors.append({"property_path": camel(path), "reason": reason})
        elif path.split(".")[0].split("[")[0] in ("apiVersion", "kind", "metadata", "spec"):
            errors.append(_property_error(path, reason, given, places))
    return errors


@contextmanager
def reported_as_properties(given: Mapping[str, Any], places: Sequence[InputPlace]) -> Iterator[None]:
    """Turns the Python components' bad-input errors raised inside into property errors."""
    try:
        yield
    except InvalidInputError as error:
        header, _, body = str(error).partition("\n")
        errors = property_errors(error.fields, given, places) if error.fields else message_errors(body, given, places)
        raise pulumi.InputPropertiesError("invalid input" if errors else in_package_spelling(body or header), errors) from None
