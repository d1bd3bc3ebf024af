"""`load()`: Kubernetes YAML (files, directories or text) to API models."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Union

import yaml
from pydantic import BaseModel, ValidationError

from .api import constants as c
from .api.core import KubeObject
from .api.jobset import JobSet
from .api.runtime import ClusterTrainingRuntime, TrainingRuntime
from .api.trainjob import TrainJob
from .framework.errors import FieldError, ManifestError, TrainJobInvalidError, field_errors
from .yamlio import load_documents

MODELS: dict[str, type[BaseModel]] = {
    c.TRAINJOB_KIND: TrainJob,
    c.TRAINING_RUNTIME_KIND: TrainingRuntime,
    c.CLUSTER_TRAINING_RUNTIME_KIND: ClusterTrainingRuntime,
    "JobSet": JobSet,
}
Loaded = Union[TrainJob, TrainingRuntime, ClusterTrainingRuntime, JobSet, KubeObject]
Source = Union[str, Path, Mapping[str, Any], BaseModel]


def describe(manifest: Mapping[str, Any], where: str) -> str:
    name = (manifest.get("metadata") or {}).get("name") if isinstance(manifest.get("metadata"), Mapping) else None
    label = f"{manifest.get('kind', '?')}/{name or '?'}"
    return f"{where} ({label})" if where else label


def parse(manifest: Mapping[str, Any], where: str = "") -> Loaded:
    """One manifest to its model; TrainJobs and runtimes are checked against every CRD rule."""
    if not isinstance(manifest, Mapping):
        raise ManifestError(f"{where or 'document'}: expected a Kubernetes object (a mapping), got {type(manifest).__name__}")
    kind, api_version = manifest.get("kind"), manifest.get("apiVersion")
    if not isinstance(kind, str) or not kind or not isinstance(api_version, str) or not api_version:
        raise ManifestError(f"{where or 'document'}: not a Kubernetes object: apiVersion and kind are required")
    model = MODELS.get(kind, KubeObject)
    if model is JobSet and not api_version.startswith("jobset.x-k8s.io/"):
        model = KubeObject
    try:
        return model.model_validate(dict(manifest))  # type: ignore[return-value]
    except ValidationError as error:
        raise TrainJobInvalidError(field_errors(error), source=describe(manifest, where)) from None


def load(source: Source | Iterable[Source]) -> list[Loaded]:
    """Models from YAML text, a file, a directory of *.yaml, a manifest dict, a model, or a list of these.

    Every document is checked; one TrainJobInvalidError reports the errors of all of them.
    """
    loaded: list[Loaded] = []
    errors: list[FieldError] = []
    for manifest, where in _manifests(source):
        if isinstance(manifest, BaseModel):
            loaded.append(manifest)  # type: ignore[arg-type]
            continue
        try:
            loaded.append(parse(manifest, where))
        except TrainJobInvalidError as invalid:
            errors.extend(invalid.errors)
    if errors:
        raise TrainJobInvalidError(errors)
    return loaded


def _manifests(source: Any) -> Iterable[tuple[Any, str]]:
    if isinstance(source, (BaseModel, Mapping)):
        yield source, ""
    elif isinstance(source, Path) or (isinstance(source, str) and _looks_like_path(source)):
        yield from _from_path(Path(source))
    elif isinstance(source, str):
        yield from _from_text(source, "")
    elif isinstance(source, Iterable):
        for item in source:
            yield from _manifests(item)
    else:
        raise ManifestError(f"cannot load {type(source).__name__}: give YAML text, a path, a dict or a model")


def _looks_like_path(text: str) -> bool:
    if "\n" in text or ":" in text.split("/")[0]:
        return False
    try:
        return Path(text).exists()
    except (OSError, ValueError):  # too long for a file name, or not one at all: YAML text
        return False


def _from_path(path: Path) -> Iterable[tuple[Any, str]]:
    if path.is_dir():
        for child in sorted(path.rglob("*.y*ml")):
            yield from _from_path(child)
        return
    try:
        text = path.read_text()
    except OSError as error:
        raise ManifestError(f"{path}: cannot read: {error.strerror}") from None
    yield from _from_text(text, str(path))


def _from_text(text: str, name: str) -> Iterable[tuple[Any, str]]:
    try:
        documents = list(load_documents(text))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{name or 'YAML'}:{mark.line + 1}:{mark.column + 1}" if mark else name or "YAML"
        problem = getattr(error, "problem", None) or str(error)
        raise ManifestError(f"{where}: invalid YAML: {problem}") from None
    for number, document in enumerate(documents, start=1):
        if document is None:
            continue
        where = f"{name}#{number}" if name else f"document {number}"
        problem = _shape_problem(document)
        if problem:
            raise ManifestError(f"{where}: {problem}")
        yield document, where


MAX_DEPTH = 100  # far beyond any real manifest (a JobSet template nests about 15 levels)


def _shape_problem(document: Any) -> str:
    """What keeps a YAML document from being a JSON object: a node containing itself through an alias,
    or nesting too deep to process. Iterative, so deep documents cannot exhaust the stack."""
    path: set[int] = set()
    stack: list[tuple[Any, Iterator[Any]]] = []

    def enter(node: Any) -> str:
        if id(node) in path:
            return "a YAML alias refers to an enclosing node; such a document has no JSON form"
        if len(stack) >= MAX_DEPTH:
            return f"the document nests deeper than {MAX_DEPTH} levels"
        path.add(id(node))
        stack.append((node, iter(node.values() if isinstance(node, dict) else node)))
        return ""

    problem = enter(document) if isinstance(document, (dict, list)) else ""
    while stack and not problem:
        node, children = stack[-1]
        child = next(children, _DONE)
        if child is _DONE:
            path.discard(id(node))
            stack.pop()
        elif isinstance(child, (dict, list)):
            problem = enter(child)
    return problem


_DONE = object()
