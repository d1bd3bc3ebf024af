"""The community runtimes bundled with this library (`runtimes/*.yaml`), one runtime per file."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from .api.runtime import ClusterTrainingRuntime, Runtime, TrainingRuntime
from .framework.errors import BlueprintError, TrainerError
from .loading import load, parse


def runtimes_dir() -> Path:
    """`runtimes/` of a source checkout, or the copy installed as package data."""
    checkout = Path(__file__).resolve().parents[2] / "runtimes"
    if checkout.is_dir():
        return checkout
    return Path(str(resources.files(__package__) / "runtimes"))


def runtime_model(runtime: Runtime | Mapping[str, Any], error: type[TrainerError] = TrainerError) -> Runtime:
    """A runtime model as it is, or a runtime manifest read into one (every CRD rule checked); anything
    else raises `error` (the caller's kind of TrainerError)."""
    if isinstance(runtime, (TrainingRuntime, ClusterTrainingRuntime)):
        return runtime
    model = parse(runtime, "runtime") if isinstance(runtime, Mapping) else None
    if isinstance(model, (TrainingRuntime, ClusterTrainingRuntime)):
        return model
    got = f"a {model.kind}" if model is not None else f"{runtime!r:.80}"
    raise error(f"runtime: expected a TrainingRuntime or ClusterTrainingRuntime, got {got}")


def load_runtime_file(path: Path) -> Runtime:
    """One runtime from one file whose name is the runtime's `metadata.name`."""
    try:
        models = load(path)
    except TrainerError as error:
        raise BlueprintError(f"{path}: {error}") from None
    if len(models) != 1 or not isinstance(models[0], (TrainingRuntime, ClusterTrainingRuntime)):
        raise BlueprintError(f"{path}: must hold exactly one TrainingRuntime or ClusterTrainingRuntime")
    runtime = models[0]
    if runtime.name != path.stem:
        raise BlueprintError(f"{path}: metadata.name {runtime.name!r} must equal the file name {path.stem!r}")
    return runtime


@lru_cache(maxsize=1)
def _bundled() -> tuple[Runtime, ...]:
    return tuple(load_runtime_file(path) for path in sorted(runtimes_dir().rglob("*.yaml")))


def bundled_runtimes() -> list[Runtime]:
    return list(_bundled())


def bundled_runtime(name: str) -> Runtime:
    for runtime in _bundled():
        if runtime.name == name:
            return runtime
    known = ", ".join(runtime.name for runtime in _bundled())
    raise BlueprintError(f"no bundled runtime named {name!r}; bundled: {known}")
