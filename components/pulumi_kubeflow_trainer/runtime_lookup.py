"""Which runtime a TrainJob's `spec.runtimeRef` names: one rule for `TrainJob(...)`, `render()`,
`Renderer` and every `trainjob` command.

1. The runtimes given with the TrainJob (the objects given to `render()`, the files given to the CLI,
   `runtime=` / `runtimes=` of the component), by kind and name, and for a TrainingRuntime the
   TrainJob's namespace.
2. Else the bundled ClusterTrainingRuntimes (`runtimes/`, `trainjob runtimes` lists them), unless they
   are turned off: `bundled=False` in Python, `--no-bundled-runtimes` on the command line.
3. Else a field error at `spec.runtimeRef` that lists the given and the bundled runtimes and says how
   to use the bundled ones.

Nothing else is looked at: a runtime the program declared but did not give to the TrainJob, or one
in the cluster, cannot change what it renders.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

from .api import constants as c
from .api.rules import show
from .api.runtime import ClusterTrainingRuntime, Runtime, TrainingRuntime
from .api.trainjob import TrainJob
from .blueprints import bundled_runtimes
from .framework.compiled import runtime_key
from .framework.errors import FieldError, RuntimeNotFoundError, TrainerError
from .loading import parse
from .yamlio import load_documents

RuntimeKey = tuple[str, str, str]  # (kind, namespace, name): `framework.compiled.runtime_key`
TURN_ON = "the bundled runtimes are turned off here (bundled=False, --no-bundled-runtimes): leave them on to use one"


@runtime_checkable
class HasRuntimeModel(Protocol):
    """A runtime component (`ClusterTrainingRuntime(...)`, `TrainingRuntime(...)`): the model it holds."""

    @property
    def model(self) -> Runtime: ...


RuntimeSource = Runtime | HasRuntimeModel | Mapping[str, Any] | str
"""A runtime as lookups take it: an API model, a component, a manifest dict or YAML text."""


def runtime_model(runtime: RuntimeSource, error: type[TrainerError] = TrainerError) -> Runtime:
    """The API model of a runtime given as a model, a component, a manifest dict or YAML text (every CRD
    rule checked); anything else raises `error` (the caller's kind of TrainerError)."""
    if isinstance(runtime, (TrainingRuntime, ClusterTrainingRuntime)):
        return runtime
    if isinstance(runtime, HasRuntimeModel) and isinstance(runtime.model, (TrainingRuntime, ClusterTrainingRuntime)):
        return runtime.model
    manifest = _one_document(runtime, error) if isinstance(runtime, str) else runtime
    model = parse(manifest, "runtime") if isinstance(manifest, Mapping) else None
    if isinstance(model, (TrainingRuntime, ClusterTrainingRuntime)):
        return model
    got = f"a {model.kind}" if model is not None else f"{runtime!r:.80}"
    raise error(f"runtime: expected a TrainingRuntime or ClusterTrainingRuntime, got {got}")


def _one_document(text: str, error: type[TrainerError]) -> Any:
    documents = [document for document in load_documents(text, "runtime") if document is not None]
    if len(documents) != 1:
        raise error(f"runtime: the YAML text must hold exactly one runtime, found {len(documents)} documents")
    return documents[0]


class RuntimeLookup:
    """The runtimes given with TrainJobs, and whether the bundled ones are looked at after them."""

    def __init__(self, runtimes: Iterable[RuntimeSource] = (), *, bundled: bool = True) -> None:
        self.bundled = bundled
        self._given: dict[RuntimeKey, Runtime] = {}
        for runtime in runtimes:
            self.add(runtime)

    def add(self, runtime: RuntimeSource) -> Runtime:
        """Adds a runtime; the same runtime twice is fine, two different specs under one name are not."""
        model = runtime_model(runtime)
        key = runtime_key(model)
        known = self._given.get(key)
        if known is not None and known is not model and known != model:
            raise TrainerError(f"runtimes: {model.kind} {model.name!r} is given twice with different specs; give it once")
        self._given[key] = model
        return model

    def __iter__(self) -> Iterator[Runtime]:
        """The given runtimes (not the bundled ones)."""
        return iter(self._given.values())

    def __len__(self) -> int:
        return len(self._given)

    def resolve(self, trainjob: TrainJob, *, namespace_pending: bool = False) -> Runtime:
        """The runtime `trainjob.spec.runtimeRef` names, by the rule above. `namespace_pending`: the
        TrainJob's namespace is a Pulumi Output, known at deploy time only; a TrainingRuntime then matches
        by name and is taken to be in that namespace."""
        ref = trainjob.spec.runtime_ref
        if ref.api_group != c.GROUP or ref.kind not in (c.TRAINING_RUNTIME_KIND, c.CLUSTER_TRAINING_RUNTIME_KIND):
            raise RuntimeNotFoundError([unsupported_ref(trainjob)])
        found = self._find(list(self._given.values()), trainjob, namespace_pending)
        if found is None and self.bundled:
            found = self._find(bundled_runtimes(), trainjob, namespace_pending)
        if found is None:
            raise RuntimeNotFoundError([self.not_found(trainjob)])
        if namespace_pending and isinstance(found, TrainingRuntime):
            metadata = found.metadata.model_copy(update={"namespace": trainjob.metadata.namespace})
            return found.model_copy(update={"metadata": metadata})
        return found

    @staticmethod
    def _find(candidates: list[Runtime], trainjob: TrainJob, namespace_pending: bool) -> Runtime | None:
        ref = trainjob.spec.runtime_ref
        matches = [runtime for runtime in candidates if runtime.kind == ref.kind and runtime.name == ref.name]
        if ref.kind == c.TRAINING_RUNTIME_KIND and not namespace_pending:
            matches = [runtime for runtime in matches if runtime_key(runtime)[1] == trainjob.namespace]
        if len(matches) > 1:  # only TrainingRuntimes of several namespaces, matched by name
            raise TrainerError(
                f"spec.runtimeRef: TrainingRuntime {ref.name!r} is given for several namespaces and the TrainJob's "
                "namespace is known at deploy time only; pass the runtime as runtime=<the runtime component>"
            )
        return matches[0] if matches else None

    def not_found(self, trainjob: TrainJob) -> FieldError:
        ref = trainjob.spec.runtime_ref
        namespaced = ref.kind == c.TRAINING_RUNTIME_KIND
        scope = f"{trainjob.namespace}/{ref.name}" if namespaced else ref.name
        given = sorted(
            runtime.name for runtime in self._given.values()
            if runtime.kind == ref.kind and (not namespaced or runtime_key(runtime)[1] == trainjob.namespace)
        )
        bundled = ", ".join(runtime.name for runtime in bundled_runtimes())
        if namespaced:
            how = f"the bundled runtimes are ClusterTrainingRuntimes ({bundled}); give the TrainingRuntime with the TrainJob"
        elif self.bundled:
            how = f"give it with the TrainJob, or name a bundled one: {bundled}"
        else:
            how = f"give it with the TrainJob; {TURN_ON}: {bundled}"
        what = "trainingRuntime" if namespaced else "clusterTrainingRuntime"
        return FieldError(
            "spec.runtimeRef",
            f"Invalid value: {show(ref.to_manifest())}: {ref.kind} {scope!r} not found: specified {what} must be created "
            f"before the TrainJob is created; given: {', '.join(given) or 'none'}; {how}",
        )


def unsupported_ref(trainjob: TrainJob) -> FieldError:
    ref = trainjob.spec.runtime_ref
    return FieldError(
        "spec.runtimeRef",
        f"Unsupported value: {show(ref.to_manifest())}: unsupported runtime: {ref.kind}.{ref.api_group}; "
        f"use kind TrainingRuntime or ClusterTrainingRuntime of {c.GROUP}",
    )


def add_runtime_lookup_arguments(parser: argparse.ArgumentParser) -> None:
    """The one spelling of the rule's switch on every `trainjob` command that resolves runtimes."""
    switch = parser.add_mutually_exclusive_group()
    switch.add_argument(
        "--no-bundled-runtimes", dest="bundled_runtimes", action="store_false",
        help="resolve runtimeRefs among the given files only, not the bundled runtimes (`trainjob runtimes`)",
    )
    switch.add_argument(
        "--bundled-runtimes", dest="bundled_runtimes", action="store_true",
        help="resolve runtimeRefs the given files lack to the bundled runtimes: the default (kept for older scripts)",
    )
    parser.set_defaults(bundled_runtimes=True)
