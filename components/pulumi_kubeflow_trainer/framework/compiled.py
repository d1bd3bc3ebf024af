"""A runtime compiled once for the renders of many TrainJobs, and what plugins derive from it: the
ordinary render path's cache, by input (the runtime model, which keeps it)."""

from __future__ import annotations

import pickle
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..api.runtime import Runtime, TrainingRuntime
from .interfaces import Verdict
from .kube import Manifest, dig, find_named
from .runtime_rules import validate_runtime

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Derived(Generic[T]):
    """A value a plugin derives from a compiled runtime alone (a dump, an index), kept with the runtime:
    `compiled.derive(SNAPSHOT)` computes it on first use. Compared by identity, so each is one key."""

    name: str
    compute: Callable[[CompiledRuntime], T]


@dataclass
class CompiledRuntime:
    """A runtime made ready to render many TrainJobs: validated and its JobSet spec dumped once,
    the spec copied per render."""

    runtime: Runtime
    jobset_spec: Manifest
    labels: dict[str, str]
    annotations: dict[str, str]
    verdict: Verdict = field(default_factory=Verdict)  # the runtime webhook's answer
    _derived: dict[Derived[Any], Any] = field(default_factory=dict, init=False, repr=False)
    # Render plans by the framework that made each: a framework's plan goes when the framework does.
    plans: weakref.WeakKeyDictionary[Any, Any] = field(default_factory=weakref.WeakKeyDictionary, init=False, repr=False)
    key: tuple[str, str, str] = field(init=False)  # `runtime_key(runtime)`
    _pickled_spec: bytes = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.key = runtime_key(self.runtime)
        self._pickled_spec = pickle.dumps(self.jobset_spec, protocol=pickle.HIGHEST_PROTOCOL)

    def spec_copy(self) -> Manifest:
        """A private copy of the JobSet spec for one render; unpickling is the fastest deep copy."""
        spec: Manifest = pickle.loads(self._pickled_spec)
        return spec

    @classmethod
    def of(cls, runtime: Runtime) -> CompiledRuntime:
        """The compiled form of a runtime model, made once per model object and kept by it (models are
        frozen values): whatever a program renders against the same runtime model shares the work, and
        the work goes when the model does."""
        return runtime.derived(CompiledRuntime, cls._compile)

    @classmethod
    def _compile(cls, runtime: Runtime) -> CompiledRuntime:
        template = runtime.spec.template
        metadata = template.metadata
        spec = template.spec.to_manifest() if template.spec is not None else {}
        return cls(
            runtime=runtime,
            jobset_spec=spec,
            labels=dict((metadata.labels if metadata else None) or {}),
            annotations=dict((metadata.annotations if metadata else None) or {}),
            verdict=validate_runtime(runtime),
        )

    def derive(self, derived: Derived[T]) -> T:
        """What `derived` computes from this runtime, computed once: runtimes are frozen values."""
        try:
            return self._derived[derived]  # type: ignore[no-any-return]
        except KeyError:
            value = self._derived[derived] = derived.compute(self)
            return value

    @property
    def job_names(self) -> tuple[str, ...]:
        return self.derive(JOB_NAMES)

    def containers_of(self, job_name: str, field: str = "containers") -> list[Manifest]:
        """The runtime's own containers (or initContainers) of a replicated job, before any patch."""
        job = find_named(self.jobset_spec.get("replicatedJobs"), job_name)
        return list(dig(job, "template", "spec", "template", "spec", field) or [])


def runtime_key(runtime: Runtime) -> tuple[str, str, str]:
    """(kind, namespace, name): how a runtimeRef finds a runtime; cluster runtimes have no namespace."""
    namespace = (runtime.metadata.namespace or "default") if isinstance(runtime, TrainingRuntime) else ""
    return (runtime.kind, namespace, runtime.name)


JOB_NAMES: Derived[tuple[str, ...]] = Derived(
    "job names", lambda compiled: tuple(job.get("name") for job in compiled.jobset_spec.get("replicatedJobs") or [])
)
