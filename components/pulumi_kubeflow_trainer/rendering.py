"""Rendering: TrainJobs and runtimes in, whatever form they come in, the children the controller would
create out. `Renderer` renders against a fixed set of runtimes (and the bundled ones, by the one rule of
runtime_lookup), each compiled and validated once; `render()` takes anything `load()` does. Pure:
nothing outside the objects given, and the bundled runtimes, exists."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from .api import constants as c
from .api.runtime import BUILTIN_SOURCE_FIELDS, ClusterTrainingRuntime, Runtime, TrainingRuntime
from .api.trainjob import TrainJob
from .framework.compiled import CompiledRuntime, Derived, runtime_key
from .framework.context import ObjectIndex, RenderContext
from .framework.errors import FieldError, RuntimeNotFoundError, TrainJobInvalidError
from .framework.framework import Framework
from .framework.info import RuntimeInfo
from .framework.interfaces import NO_FINDINGS, Verdict
from .framework.kube import Manifest
from .framework.objects import Check, Refused
from .framework.registry import PluginRegistry
from .framework.runtime_rules import deprecation_warning
from .framework.template import build_runtime_info
from .loading import Document, Source, read
from .plugins import default_framework
from .runtime_lookup import RuntimeLookup
from .ssh import CurveKeyGenerator, KeyGenerator

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

Origins = Mapping[tuple[str, str, str], str]
"""Where objects came from, by (kind, namespace, name): `file.yaml#2 (TrainJob/job)` (`origins_of`)."""


class TrainerWarning(UserWarning):
    """A warning the upstream webhooks would return (deprecated runtime, ...)."""


@dataclass
class Renderer:
    """Renders TrainJobs against a fixed set of runtimes, each compiled and validated once; a runtimeRef
    that names none of them finds a bundled runtime unless `bundled=False` (runtime_lookup)."""

    runtimes: Iterable[Runtime]
    context: RenderContext = field(default_factory=RenderContext)
    registry: PluginRegistry | None = None
    # Checks upstream does not make (`framework.objects.Check`: no effect, ...) are warnings; strict: errors.
    strict: bool = False
    bundled: bool = True
    # What the API server would refuse in the objects rendered (`Refused`: a negative node count, a GPU
    # requested without a limit, ...) stops the render: this library creates those objects. False: a
    # warning, as v2.3.0's webhooks admit the TrainJob (`trainjob validate` without --strict).
    refuse_undeployable: bool = True
    origins: Origins = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.framework = Framework(self.registry) if self.registry is not None else default_framework()
        self.lookup = RuntimeLookup(self.runtimes, bundled=self.bundled)
        self._prepared: dict[tuple[str, str, str], CompiledRuntime] = {}
        self.warnings: list[str] = []
        errors: list[FieldError] = []
        for runtime in self.lookup:
            errors.extend(self._prepare(runtime))
        if errors:
            raise TrainJobInvalidError(errors, warnings=self.warnings)

    def _prepare(self, runtime: Runtime) -> list[FieldError]:
        """Compiles `runtime` and keeps it if the runtime webhook and the registry take it; its errors."""
        compiled = CompiledRuntime.of(runtime)
        errors = [*compiled.verdict.errors, *self._policy_errors(runtime)]
        self.warnings.extend(compiled.verdict.warnings)
        if errors:
            source = self.origin(runtime.kind, compiled.key[1], runtime.name)
            return [error.within(source) for error in errors]
        self._prepared[compiled.key] = compiled
        return []

    def _policy_errors(self, runtime: Runtime) -> list[FieldError]:
        """A plugin's mlPolicy key must be one this registry's plugins handle, validated with its model."""
        policy = runtime.spec.ml_policy
        if policy is None or not policy.__pydantic_extra__:
            return []  # no key of a plugin's (extra fields hold them)
        key = policy.source_key
        if key is None or key in BUILTIN_SOURCE_FIELDS:
            return []
        model, value = self.framework.policies.sources().get(key), policy.source(key)
        if model is None:
            return [FieldError(f"spec.mlPolicy.{key}", "Unsupported value: no plugin of the rendering registry handles "
                                                      f"this policy: register the plugin that declares ml_policy = {key!r}")]
        if not isinstance(value, model):
            return [FieldError(f"spec.mlPolicy.{key}", f"Invalid value: read with another registry's model "
                                                      f"({type(value).__name__}), not {model.__name__}: load the runtime "
                                                      "with the registry that renders it (load(..., registry=...))")]
        return []

    def origin(self, kind: str, namespace: str, name: str) -> str:
        """Where an object came from, for its errors: file and document when known, else `Kind/name`."""
        return self.origins.get((kind, namespace, name)) or f"{kind}/{name}"

    def resolve(self, trainjob: TrainJob) -> CompiledRuntime:
        ref = trainjob.spec.runtime_ref
        given = self._prepared.get((ref.kind, trainjob.namespace if ref.kind == c.TRAINING_RUNTIME_KIND else "", ref.name))
        if given is not None and ref.api_group == c.GROUP:
            return given  # step 1 of the rule, by the key it looks up (`runtime_key`)
        runtime = self.lookup.resolve(trainjob)
        compiled = self._prepared.get(runtime_key(runtime))
        if compiled is None:  # a bundled runtime, prepared on first use
            errors = self._prepare(runtime)
            if errors:
                raise TrainJobInvalidError(errors)
            compiled = self._prepared[runtime_key(runtime)]
        return compiled

    def validate(self, trainjob: TrainJob) -> Verdict:
        """What the TrainJob validating webhook answers on create."""
        try:
            compiled = self.resolve(trainjob)
        except RuntimeNotFoundError as missing:
            return Verdict(errors=missing.errors)
        verdict = self._validate(build_runtime_info(trainjob, self.framework.plan(compiled)), trainjob)
        return Verdict() if verdict is NO_FINDINGS else verdict  # the caller's own, to extend

    def _validate(self, info: RuntimeInfo, trainjob: TrainJob) -> Verdict:
        verdict = self.framework.validate(info, trainjob, self.context)
        deprecated = info.compiled.derive(DEPRECATION)
        if deprecated is not None:
            verdict = Verdict(errors=list(verdict.errors), warnings=[*verdict.warnings, deprecated])
        return verdict

    def render(self, trainjob: TrainJob) -> list[Manifest]:
        """The children of one TrainJob, dependencies first; raises TrainJobInvalidError on bad input."""
        try:
            compiled = self.resolve(trainjob)
        except RuntimeNotFoundError as missing:
            raise TrainJobInvalidError(missing.errors, source=self.source_of(trainjob)) from None
        # Validation only reads the RuntimeInfo, so the same one is then built upon.
        info = build_runtime_info(trainjob, self.framework.plan(compiled))
        verdict = self._validate(info, trainjob)
        if verdict.errors or verdict.warnings:
            self._stop_if(list(verdict.errors), verdict.warnings, self.source_of(trainjob))
        if trainjob.spec.managed_by == c.MANAGED_BY_MULTIKUEUE and not self.context.multikueue_jobset:
            self.warnings.append(
                f"{self.source_of(trainjob)}: spec.managedBy is {c.MANAGED_BY_MULTIKUEUE}: the Trainer controller creates "
                "nothing for it (MultiKueue dispatches the TrainJob to a worker cluster)"
            )
            return []
        try:
            manifests = self.framework.build(info, trainjob, self.context)
        except TrainJobInvalidError as invalid:
            raise TrainJobInvalidError(invalid.errors, source=self.source_of(trainjob)) from None
        if info.warnings:
            self._stop_if([], info.warnings, self.source_of(trainjob))
        return manifests

    def source_of(self, trainjob: TrainJob) -> str:
        """Where a TrainJob's errors and warnings are from; made only when there are some."""
        return self.origin(c.TRAINJOB_KIND, trainjob.metadata.namespace or "", trainjob.metadata.name or "")

    def _stop_if(self, errors: list[FieldError], found: Sequence[str], source: str) -> None:
        """Raises the errors, with the findings this renderer refuses (`Refused` unless it only admits,
        every `Check` when strict); keeps the other findings as warnings, a Check with where it is from."""
        refused = [item for item in found if isinstance(item, Check) and (self.strict or (self.refuse_undeployable and isinstance(item, Refused)))]
        kept = [item for item in found if not any(item is other for other in refused)]
        self.warnings.extend(f"{source}: {item}" if isinstance(item, Check) else item for item in kept)
        if errors or refused:
            raise TrainJobInvalidError([*errors, *(check.error for check in refused)], source=source, warnings=self.warnings)


_RUNTIME_KINDS = (TrainingRuntime, ClusterTrainingRuntime)


def origins_of(documents: Iterable[Document]) -> dict[tuple[str, str, str], str]:
    """Where each loaded TrainJob and runtime came from, as `Renderer.origins` takes it."""
    found: dict[tuple[str, str, str], str] = {}
    for document in documents:
        model = document.model
        if not document.where:
            continue  # a model given as one: `Renderer.origin` names it by kind and name
        if isinstance(model, TrainJob):
            found[(c.TRAINJOB_KIND, model.metadata.namespace or "", model.name)] = document.where
        elif isinstance(model, _RUNTIME_KINDS):
            found[runtime_key(model)] = document.where
    return found


def _deprecation(compiled: CompiledRuntime) -> str | None:
    runtime = compiled.runtime
    deprecated = isinstance(runtime, ClusterTrainingRuntime) and runtime.is_deprecated
    return deprecation_warning(runtime, referenced=True) if deprecated else None


# The webhook's warning for a TrainJob that references a deprecated ClusterTrainingRuntime.
DEPRECATION: Derived[str | None] = Derived("deprecation warning", _deprecation)


# What render() renders with when given no options and no other objects: nothing else exists, the keys
# are random. Shared, since nothing changes a context once made.
_DEFAULT_CONTEXT = RenderContext()


class RenderOptions(TypedDict, total=False):
    """The RenderContext fields `render()` takes as keyword arguments."""

    key_generator: KeyGenerator
    curve_key_generator: CurveKeyGenerator | None
    runtime_snapshot: bool
    multikueue_jobset: bool


def render(
    objects: Source | Iterable[Source],
    *,
    registry: PluginRegistry | None = None,
    strict: bool = False,
    bundled: bool = True,
    refuse_undeployable: bool = True,
    **options: Unpack[RenderOptions],
) -> list[Manifest]:
    """The children of every TrainJob in `objects` (models, manifest dicts, YAML text or paths, or a list
    of them), TrainJob by TrainJob in input order. Other objects (runtimes, PriorityClasses, JobSets) are
    what the rules look up; a runtimeRef that names no runtime given finds a bundled one unless
    `bundled=False` (runtime_lookup). Options are RenderContext fields (`key_generator`,
    `runtime_snapshot`, `multikueue_jobset`). What the API server would refuse in the children stops the
    render (`refuse_undeployable=False`: a warning, as v2.3.0's controller renders it, to compare with
    upstream); checks upstream does not make are `TrainerWarning`s, which `strict=True` refuses instead."""
    trainjobs: list[TrainJob] = []
    runtimes: list[Runtime] = []
    others: list[Manifest] = []  # what rules look up (PriorityClasses, JobSets), never runtimes or TrainJobs
    documents = read(objects, registry=registry, refuse_undeployable=refuse_undeployable)
    for document in documents:
        model = document.model
        if isinstance(model, TrainJob):
            trainjobs.append(model)
        elif isinstance(model, _RUNTIME_KINDS):
            runtimes.append(model)
        else:
            others.append(model.to_manifest())
    context = RenderContext(cluster=ObjectIndex.of(others), **options) if others or options else _DEFAULT_CONTEXT
    renderer = Renderer(runtimes, context=context, registry=registry, strict=strict, bundled=bundled,
                        refuse_undeployable=refuse_undeployable, origins=origins_of(documents))
    if len(trainjobs) == 1:
        manifests = renderer.render(trainjobs[0])  # a list of its own already
    else:
        manifests = []
        for trainjob in trainjobs:
            manifests.extend(renderer.render(trainjob))
    for message in renderer.warnings:
        warnings.warn(message, TrainerWarning, stacklevel=2)
    return manifests
