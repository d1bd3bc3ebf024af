"""The community runtimes bundled with this library (`runtimes/*.yaml`), one runtime per file.

They are read once per process: package data, which nothing the library does changes; the models are
frozen values, shared by every lookup (runtime_lookup) and by what is derived from them.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .api import constants as c
from .api.runtime import ClusterTrainingRuntime, Runtime, TrainingRuntime
from .framework.errors import BlueprintError, TrainerError
from .loading import load


def runtimes_dir() -> Path:
    """`runtimes/` of a source checkout, or the copy installed as package data."""
    checkout = Path(__file__).resolve().parents[2] / "runtimes"
    if checkout.is_dir():
        return checkout
    return Path(str(resources.files(__package__) / "runtimes"))


@dataclass(frozen=True)
class BundledRuntime:
    """One bundled runtime as `list_runtimes()` and `trainjob runtimes` show it."""

    name: str
    framework: str  # its `trainer.kubeflow.org/framework` label: torch, deepspeed, jax, torchtune, ...
    description: str  # what its file says of it, first sentence
    runtime: Runtime


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


def _description(path: Path) -> str:
    """The file's leading comment up to its first `: ` or `.`: what the runtime is, in a few words."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    text = " ".join(lines)
    cut = min((index for index in (text.find(": "), text.find(". ")) if index >= 0), default=len(text))
    return text[:cut].rstrip(".")


@lru_cache(maxsize=1)
def _bundled() -> tuple[BundledRuntime, ...]:
    found = []
    for path in sorted(runtimes_dir().rglob("*.yaml")):
        runtime = load_runtime_file(path)
        framework = runtime.labels.get(c.LABEL_FRAMEWORK, "")
        found.append(BundledRuntime(runtime.name, framework, _description(path), runtime))
    return tuple(found)


def list_runtimes() -> list[BundledRuntime]:
    """The bundled runtimes, by name: what a TrainJob's runtimeRef finds when no runtime of that name is
    given with it (runtime_lookup), and what `ClusterTrainingRuntime.bundled(name)` takes."""
    return list(_bundled())


def bundled_runtime_names() -> list[str]:
    return [bundled.name for bundled in _bundled()]


def bundled_runtimes() -> list[Runtime]:
    return [bundled.runtime for bundled in _bundled()]


def bundled_runtime(name: str) -> Runtime:
    """The bundled runtime named `name`; a BlueprintError listing the bundled ones for another name."""
    for bundled in _bundled():
        if bundled.name == name:
            return bundled.runtime
    names = bundled_runtime_names()
    close = difflib.get_close_matches(name, names, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise BlueprintError(f"no bundled runtime named {name!r}; {hint}the bundled runtimes are: {', '.join(names)}")
