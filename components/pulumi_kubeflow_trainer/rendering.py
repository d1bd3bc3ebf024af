"""Rendering: TrainJobs and runtimes in, whatever form they come in, the children the controller would
create out. `Renderer` renders against a fixed set of runtimes, each compiled and validated once; `render()`
takes anything `load()` does. Pure: nothing outside the objects given exists."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from .api import constants as c
from .api.rules import show
from .api.runtime import ClusterTrainingRuntime, Runtime, TrainingRuntime
from .api.trainjob import TrainJob
from .framework.compiled import CompiledRuntime, Derived
from .framework.context import ObjectIndex, RenderContext
from .framework.errors import FieldError, RuntimeNotFoundError, TrainJobInvalidError
from .framework.framework import Framework
from .framework.info import RuntimeInfo
from .framework.interfaces import NO_FINDINGS, Verdict
from .framework.kube import Manifest
from .framework.registry import PluginRegistry
from .framework.runtime_rules import deprecation_warning
from .framework.template import build_runtime_info
from .loading import Source, load
from .plugins import default_framework
from .plugins.objects import Check
from .ssh import CurveKeyGenerator, KeyGenerator

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

class TrainerWarning(UserWarning):
    """A warning the upstream webhooks would return (deprecated runtime, ...)."""


@dataclass
class Renderer:
    """Renders TrainJobs against a fixed set of runtimes, each compiled and validated once."""

    runtimes: Iterable[Runtime]
    context: RenderContext = field(default_factory=RenderContext)
    registry: PluginRegistry | None = None
    # Checks upstream does not make (`plugins.objects.Check`: no image, ...) are warnings; strict: errors.
    strict: bool = False

    def __post_init__(self) -> None:
        self.framework = Framework(self.registry) if self.registry is not None else default_framework()
        self._compiled: dict[tuple[str, str, str], CompiledRuntime] = {}
        self.warnings: list[str] = []
        errors: list[FieldError] = []
        for runtime in self.runtimes:
            compiled = CompiledRuntime.of(runtime)
            verdict = compiled.verdict
            if verdict.errors:
                source = f"{runtime.kind}/{runtime.name}"
                errors.extend(error.within(source) for error in verdict.errors)
            if verdict.warnings:
                self.warnings.extend(verdict.warnings)
            self._compiled[compiled.key] = compiled
        if errors:
            raise TrainJobInvalidError(errors, warnings=self.warnings)

    def resolve(self, trainjob: TrainJob) -> CompiledRuntime:
        ref = trainjob.spec.runtime_ref
        if ref.api_group != c.GROUP or ref.kind not in (c.TRAINING_RUNTIME_KIND, c.CLUSTER_TRAINING_RUNTIME_KIND):
            raise RuntimeNotFoundError(
                [FieldError("spec.runtimeRef", f"Unsupported value: {show(ref.to_manifest())}: unsupported runtime: "
                            f"{ref.kind}.{ref.api_group}; use kind TrainingRuntime or ClusterTrainingRuntime of {c.GROUP}")]
            )
        namespace = trainjob.namespace if ref.kind == c.TRAINING_RUNTIME_KIND else ""
        compiled = self._compiled.get((ref.kind, namespace, ref.name))
        if compiled is None:
            raise RuntimeNotFoundError([self._not_found(trainjob)])
        return compiled

    def _not_found(self, trainjob: TrainJob) -> FieldError:
        ref = trainjob.spec.runtime_ref
        namespaced = ref.kind == c.TRAINING_RUNTIME_KIND
        scope = f"{trainjob.namespace}/{ref.name}" if namespaced else ref.name
        known = sorted(key[2] for key in self._compiled if key[0] == ref.kind and (not namespaced or key[1] == trainjob.namespace))
        what = "trainingRuntime" if namespaced else "clusterTrainingRuntime"
        return FieldError(
            "spec.runtimeRef",
            f"Invalid value: {show(ref.to_manifest())}: {ref.kind} {scope!r} not found: specified {what} must be "
            f"created before the TrainJob is created; known: {', '.join(known) or 'none'}",
        )

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
            raise TrainJobInvalidError(missing.errors, source=_source(trainjob)) from None
        # Validation only reads the RuntimeInfo, so the same one is then built upon.
        info = build_runtime_info(trainjob, self.framework.plan(compiled))
        verdict = self._validate(info, trainjob)
        if verdict.errors:
            self.warnings.extend(verdict.warnings)
            raise TrainJobInvalidError(verdict.errors, source=_source(trainjob), warnings=verdict.warnings)
        if verdict.warnings:
            self._report(verdict.warnings, _source(trainjob))
        if trainjob.spec.managed_by == c.MANAGED_BY_MULTIKUEUE and not self.context.multikueue_jobset:
            self.warnings.append(
                f"{_source(trainjob)}: spec.managedBy is {c.MANAGED_BY_MULTIKUEUE}: the Trainer controller creates nothing for it "
                "(MultiKueue dispatches the TrainJob to a worker cluster)"
            )
            return []
        try:
            manifests = self.framework.build(info, trainjob, self.context)
        except TrainJobInvalidError as invalid:
            raise TrainJobInvalidError(invalid.errors, source=_source(trainjob)) from None
        if info.warnings:
            self._report(info.warnings, _source(trainjob))
        return manifests

    def _report(self, found: Sequence[str], source: str) -> None:
        """Warnings as they are; `Check`s with where they are from, or, strict, as the errors they carry."""
        if not found:
            return
        found = list(found)
        checks = [item for item in found if isinstance(item, Check)]
        if self.strict and checks:
            raise TrainJobInvalidError([check.error for check in checks], source=source, warnings=self.warnings)
        self.warnings.extend(f"{source}: {item}" if isinstance(item, Check) else item for item in found)


_RUNTIME_KINDS = (TrainingRuntime, ClusterTrainingRuntime)


def _source(trainjob: TrainJob) -> str:
    """Where a TrainJob's errors and warnings are from; made only when there are some."""
    return f"TrainJob/{trainjob.metadata.name or ''}"


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
    objects: Source | Iterable[Source], *, registry: PluginRegistry | None = None, strict: bool = False, **options: Unpack[RenderOptions],
) -> list[Manifest]:
    """The children of every TrainJob in `objects` (models, manifest dicts, YAML text or paths, or a list
    of them), TrainJob by TrainJob in input order. Other objects (runtimes, PriorityClasses, JobSets) are
    what the rules look up; nothing outside `objects` exists. Options are RenderContext fields
    (`key_generator`, `runtime_snapshot`, `multikueue_jobset`). Checks upstream does not make are
    `TrainerWarning`s; `strict=True` refuses them instead."""
    trainjobs: list[TrainJob] = []
    runtimes: list[Runtime] = []
    others: list[Manifest] = []  # what rules look up (PriorityClasses, JobSets), never runtimes or TrainJobs
    for model in load(objects):
        if isinstance(model, TrainJob):
            trainjobs.append(model)
        elif isinstance(model, _RUNTIME_KINDS):
            runtimes.append(model)
        else:
            others.append(model.to_manifest())
    context = RenderContext(cluster=ObjectIndex.of(others), **options) if others or options else _DEFAULT_CONTEXT
    renderer = Renderer(runtimes, context=context, registry=registry, strict=strict)
    if len(trainjobs) == 1:
        manifests = renderer.render(trainjobs[0])  # a list of its own already
    else:
        manifests = []
        for trainjob in trainjobs:
            manifests.extend(renderer.render(trainjob))
    for message in renderer.warnings:
        warnings.warn(message, TrainerWarning, stacklevel=2)
    return manifests
