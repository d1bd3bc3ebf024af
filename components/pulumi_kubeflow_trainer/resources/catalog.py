"""`RuntimeCatalog`: the runtimes TrainJob components may name, handed to them explicitly.

Which runtime a runtimeRef names follows the one rule of runtime_lookup (the given runtimes, then the
bundled ones unless `bundled=False`); this module only adds the runtime components to what it takes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..api.runtime import ClusterTrainingRuntime as ClusterTrainingRuntimeModel
from ..api.runtime import TrainingRuntime as TrainingRuntimeModel
from ..runtime_lookup import RuntimeLookup, runtime_model
from .runtime import RuntimeComponent

RuntimeInput = RuntimeComponent | TrainingRuntimeModel | ClusterTrainingRuntimeModel | Mapping[str, Any] | str
"""A runtime as TrainJobs and catalogs take it: a component, an API model, a manifest dict or YAML text."""

__all__ = ["RuntimeCatalog", "RuntimeInput", "as_catalog", "runtime_model"]


class RuntimeCatalog(RuntimeLookup):
    """The runtimes TrainJobs may name by `spec.runtimeRef`: `TrainJob(..., runtimes=catalog)`. One
    catalog may serve every TrainJob of a program.

    Entries are runtime components, API models or manifests. A runtimeRef is looked up here first
    (kind, namespace for TrainingRuntimes, name), then among the bundled runtimes unless `bundled=False`.
    """

    def __init__(self, runtimes: Iterable[RuntimeInput] = (), *, bundled: bool = True) -> None:
        super().__init__(runtimes, bundled=bundled)


def as_catalog(runtimes: RuntimeCatalog | Iterable[RuntimeInput] | None) -> RuntimeCatalog:
    """The `runtimes=` argument of a TrainJob as a catalog: a catalog, a list of runtimes, or nothing."""
    if isinstance(runtimes, RuntimeCatalog):
        return runtimes
    return RuntimeCatalog(runtimes or ())
