"""The TrainJob component's manifest from its arguments (trainjob.py): the manifest given, the keyword
arguments over it, and the runtime it is given referenced."""

from __future__ import annotations

from typing import Any

import pulumi

from ..api import constants as c
from ..api.runtime import Runtime, TrainingRuntime
from ..api.trainjob import TrainJob as TrainJobModel
from ..framework.errors import TrainerError
from .inputs import as_manifest, merge_into


def in_pending_namespace(runtime: Runtime, trainjob: TrainJobModel) -> Runtime:
    """A TrainingRuntime given for a TrainJob whose namespace is known at deploy time only is taken to be in it."""
    if not isinstance(runtime, TrainingRuntime):
        return runtime
    metadata = runtime.metadata.model_copy(update={"namespace": trainjob.metadata.namespace})
    return runtime.model_copy(update={"metadata": metadata})


def trainjob_document(manifest: object, name: str, overrides: dict[str, Any], runtime: Runtime | None) -> dict[str, Any]:
    """The TrainJob manifest: `manifest`, then the keyword arguments over it, then the runtime reference."""
    document = as_manifest(manifest, f"TrainJob {name}")
    document.setdefault("apiVersion", c.API_VERSION_UPSTREAM)
    document.setdefault("kind", "TrainJob")
    document.setdefault("metadata", {}).setdefault("name", name)
    for path, value in overrides.items():
        if isinstance(value, (list, tuple)):
            value = [as_manifest(item, path) if not isinstance(item, str) else item for item in value]
        elif value is not None and not isinstance(value, (str, bool, int, pulumi.Output)):
            value = as_manifest(value, path)
        merge_into(document, path, value)
    _reference_runtime(document, runtime)
    return document


def _reference_runtime(document: dict[str, Any], runtime: Runtime | None) -> None:
    if runtime is None:
        return
    ref = document.setdefault("spec", {}).setdefault("runtimeRef", {})
    ref.setdefault("name", runtime.name)
    ref.setdefault("kind", runtime.kind)
    if ref["name"] != runtime.name or ref["kind"] != runtime.kind:
        raise TrainerError(
            f"spec.runtimeRef: Invalid value: {ref['kind']} {ref['name']!r}: the runtime given is {runtime.kind} "
            f"{runtime.name!r}; drop runtimeRef or make it name the runtime"
        )
