"""Which runtime a TrainJob's `spec.runtimeRef` names: the runtimes passed to it, then the bundled ones.

Resolution depends only on what the TrainJob is given, never on what else the program declared or in
which order: a runtime declared after the TrainJob, or by another program in the same process, cannot
change what it renders.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..api import constants as c
from ..api.rules import show
from ..api.runtime import ClusterTrainingRuntime, Runtime, TrainingRuntime
from ..api.trainjob import TrainJob as TrainJobModel
from ..blueprints import runtime_model as model_of
from ..framework.compiled import runtime_key
from ..framework.context import RenderContext
from ..framework.errors import FieldError, RuntimeNotFoundError, TrainerError
from ..rendering import Renderer
from .inputs import as_manifest
from .runtime import RuntimeComponent

RuntimeKey = tuple[str, str, str]
RuntimeInput = RuntimeComponent | TrainingRuntime | ClusterTrainingRuntime | Mapping[str, Any] | str
"""A runtime as TrainJobs and catalogs take it: a component, an API model, a manifest dict or YAML text."""


def runtime_model(runtime: RuntimeInput) -> Runtime:
    """A runtime component, an API model, or a manifest (dict or YAML text) as an API model."""
    if isinstance(runtime, RuntimeComponent):
        return runtime.model
    if isinstance(runtime, (TrainingRuntime, ClusterTrainingRuntime)):
        return runtime
    return model_of(as_manifest(runtime, "runtime"))


class RuntimeCatalog:
    """The runtimes TrainJobs may name by `spec.runtimeRef`, handed to them explicitly:
    `TrainJob(..., runtimes=catalog)`. One catalog may serve every TrainJob of a program.

    Entries are runtime components, API models or manifests. A runtimeRef is looked up here first
    (kind, namespace for TrainingRuntimes, name), then among the bundled runtimes unless
    `bundled=False`.
    """

    def __init__(self, runtimes: Iterable[RuntimeInput] = (), *, bundled: bool = True) -> None:
        self.bundled = bundled
        self._runtimes: dict[RuntimeKey, Runtime] = {}
        for runtime in runtimes:
            self.add(runtime)

    def add(self, runtime: RuntimeInput) -> Runtime:
        """Adds a runtime; the same runtime twice is fine, two different specs under one name are not."""
        model = runtime_model(runtime)
        key = runtime_key(model)
        known = self._runtimes.get(key)
        if known is not None and known != model:
            raise TrainerError(f"runtimes: {model.kind} {model.name!r} is given twice with different specs")
        self._runtimes[key] = model
        return model

    def __iter__(self) -> Iterator[Runtime]:
        return iter(self._runtimes.values())

    def __len__(self) -> int:
        return len(self._runtimes)

    def resolve(self, trainjob: TrainJobModel, *, namespace_pending: bool = False) -> Runtime:
        """The runtime `trainjob.spec.runtimeRef` names. `namespace_pending`: the TrainJob's namespace is a
        Pulumi Output, known at deploy time only; a TrainingRuntime then matches by name and is taken to
        be in that namespace."""
        ref = trainjob.spec.runtime_ref
        if ref.api_group != c.GROUP or ref.kind not in (c.TRAINING_RUNTIME_KIND, c.CLUSTER_TRAINING_RUNTIME_KIND):
            Renderer([], context=RenderContext()).resolve(trainjob)  # raises the renderer's "unsupported" error
        found = self._find(ref.kind, trainjob.namespace, ref.name, namespace_pending)
        if found is None:
            raise RuntimeNotFoundError([self._not_found(trainjob)])
        if namespace_pending and isinstance(found, TrainingRuntime):
            metadata = found.metadata.model_copy(update={"namespace": trainjob.metadata.namespace})
            return found.model_copy(update={"metadata": metadata})
        return found

    def _find(self, kind: str, namespace: str, name: str, namespace_pending: bool) -> Runtime | None:
        for candidates in (list(self._runtimes.values()), self._bundled()):
            matches = [runtime for runtime in candidates if runtime.kind == kind and runtime.name == name]
            if kind == c.TRAINING_RUNTIME_KIND and not namespace_pending:
                matches = [runtime for runtime in matches if runtime_key(runtime)[1] == namespace]
            if len(matches) > 1:  # only TrainingRuntimes of several namespaces, matched by name
                raise TrainerError(
                    f"spec.runtimeRef: TrainingRuntime {name!r} is given for several namespaces and the TrainJob's "
                    "namespace is known at deploy time only; pass the runtime as runtime=<the runtime component>"
                )
            if matches:
                return matches[0]
        return None

    def _bundled(self) -> list[Runtime]:
        from ..blueprints import bundled_runtimes

        return bundled_runtimes() if self.bundled else []

    def _not_found(self, trainjob: TrainJobModel) -> FieldError:
        ref = trainjob.spec.runtime_ref
        scope = f"{trainjob.namespace}/{ref.name}" if ref.kind == c.TRAINING_RUNTIME_KIND else ref.name
        given = ", ".join(sorted(f"{runtime.kind} {runtime.name}" for runtime in self)) or "none"
        bundled = ", ".join(runtime.name for runtime in self._bundled()) or "none"
        return FieldError(
            "spec.runtimeRef",
            f"Invalid value: {show(ref.to_manifest())}: {ref.kind} {scope!r} is neither given to this TrainJob nor "
            f"bundled (given: {given}; bundled: {bundled}); pass it as runtime=<the runtime component>, or list it "
            "in runtimes=[...] (a RuntimeCatalog) of the TrainJob",
        )


def as_catalog(runtimes: RuntimeCatalog | Iterable[RuntimeInput] | None) -> RuntimeCatalog:
    """The `runtimes=` argument of a TrainJob as a catalog: a catalog, a list of runtimes, or nothing."""
    if isinstance(runtimes, RuntimeCatalog):
        return runtimes
    return RuntimeCatalog(runtimes or ())
