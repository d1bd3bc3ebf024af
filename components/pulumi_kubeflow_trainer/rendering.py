"""`render()`: TrainJobs and runtimes in, whatever form they come in, the children the controller
would create out. Pure: nothing outside the objects given exists."""

from __future__ import annotations

import warnings
from typing import Any

from .api.runtime import ClusterTrainingRuntime, Runtime, TrainingRuntime
from .api.trainjob import TrainJob
from .framework.context import ObjectIndex, RenderContext
from .framework.kube import Manifest
from .framework.registry import PluginRegistry
from .framework.render import Renderer, TrainerWarning
from .loading import load

_RUNTIME_KINDS = (TrainingRuntime, ClusterTrainingRuntime)


def render(objects: Any, *, registry: PluginRegistry | None = None, **options: Any) -> list[Manifest]:
    """The children of every TrainJob in `objects` (models, manifest dicts, YAML text or paths, or a list
    of them), TrainJob by TrainJob in input order. Other objects (runtimes, PriorityClasses, JobSets) are
    what the rules look up; nothing outside `objects` exists. Options are RenderContext fields
    (`key_generator`, `runtime_snapshot`, `multikueue_jobset`)."""
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
    renderer = Renderer(runtimes, context=RenderContext(cluster=ObjectIndex.of(others), **options), registry=registry)
    manifests: list[Manifest] = []
    for trainjob in trainjobs:
        manifests.extend(renderer.render(trainjob))
    for message in renderer.warnings:
        warnings.warn(message, TrainerWarning, stacklevel=2)
    return manifests
