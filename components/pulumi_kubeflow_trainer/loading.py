"""`load()`: Kubernetes YAML (files, directories or text) to API models, for a plugin registry."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from .api import constants as c
from .api.admission import Admission
from .api.base import ObjectModel
from .api.core import KubeObject
from .api.jobset import JobSet
from .api.runtime import ClusterTrainingRuntime, TrainingRuntime
from .api.trainjob import TrainJob
from .framework.errors import FieldError, ManifestError, TrainJobInvalidError, field_errors
from .framework.registry import PluginRegistry
from .plugins import default_framework
from .yamlio import MAX_DEPTH, MAX_VALUE_CHARS, MAX_VALUES, Budget, decode, json_problem, load_documents

MODELS: dict[str, type[BaseModel]] = {
    c.TRAINJOB_KIND: TrainJob,
    c.TRAINING_RUNTIME_KIND: TrainingRuntime,
    c.CLUSTER_TRAINING_RUNTIME_KIND: ClusterTrainingRuntime,
    "JobSet": JobSet,
}
Loaded = TrainJob | TrainingRuntime | ClusterTrainingRuntime | JobSet | KubeObject
Source = str | Path | Mapping[str, Any] | BaseModel


def describe(manifest: Mapping[str, Any], where: str) -> str:
    metadata = manifest.get("metadata")
    label = f"{_label(manifest.get('kind'))}/{_label(metadata.get('name') if isinstance(metadata, Mapping) else None)}"
    return f"{where} ({label})" if where else label


def _label(value: Any) -> str:
    """A kind or name as errors show it: `?` unless it is a string, and never more than a line."""
    if not isinstance(value, str) or not value:
        return "?"
    shown = value if value.isprintable() else json.dumps(value)  # a newline in a name must not break the line
    return shown if len(shown) <= 80 else shown[:77] + "..."


# (API group, kind) of the other objects a rule (ours or the controller's) may look up; they pass through.
# Anything else is most likely a typo (`TrainJobb`) or an object meant for another tool, and would
# otherwise be ignored without a word.
LOOKED_UP = frozenset({
    ("", "Secret"), ("", "ConfigMap"), ("scheduling.k8s.io", "PriorityClass"),
    ("scheduling.x-k8s.io", "PodGroup"), ("scheduling.volcano.sh", "PodGroup"),
})
_READ_KINDS = (f"{c.TRAINJOB_KIND}, {c.TRAINING_RUNTIME_KIND}, {c.CLUSTER_TRAINING_RUNTIME_KIND} ({c.GROUP}), "
               "JobSet (jobset.x-k8s.io), and the objects rules look up: Secret, ConfigMap (v1), "
               "PriorityClass (scheduling.k8s.io), PodGroup (scheduling.x-k8s.io, scheduling.volcano.sh)")


def _unknown_kind(kind: str, api_version: str, where: str) -> FieldError:
    """Named in the message too: `trainjob validate` prints field errors without their source."""
    known = [*MODELS, *(name for _, name in LOOKED_UP)]
    close = difflib.get_close_matches(kind, known, n=1, cutoff=0.75)
    if close and close[0] in MODELS and close[0] != kind:
        hint = f"did you mean {close[0]}?"
    elif kind in known:
        hint = f"{kind} is read only with its own apiVersion"
    else:
        hint = "remove the document, or fix its kind and apiVersion"
    return FieldError("kind", f"Unsupported value: {_label(kind)} (apiVersion {_label(api_version)}) in {where}: not a kind "
                              f"this library reads or passes through: {hint}; it reads {_READ_KINDS}")


@dataclass(frozen=True)
class Document:
    """A loaded object and where it came from: `file.yaml#2 (TrainJob/job)`, `TrainJob/job` for a dict
    given in Python, "" for a model given as one (its kind and name say it)."""

    model: Loaded
    where: str = ""


def admission(registry: PluginRegistry | None = None, *, refuse_undeployable: bool = False) -> Admission:
    """What a load for `registry` (None: the default one, built-ins and installed plugins) admits beyond
    the CRD: its plugins' mlPolicy keys; with `refuse_undeployable`, not the counts the API server would
    refuse in the JobSet rendered from a TrainJob (api.admission)."""
    policies = registry.policies if registry is not None else default_framework().policies
    return policies.admission(refuse_undeployable=refuse_undeployable)


def parse(manifest: Mapping[str, Any], where: str = "", *, rules: Admission | None = None) -> Loaded:
    """One manifest to its model; TrainJobs and runtimes are checked against every CRD rule, and what
    `rules` add (default: the default registry's mlPolicy keys, v2.3.0's admission of counts)."""
    if not isinstance(manifest, Mapping):
        raise ManifestError(f"{where or 'document'}: expected a Kubernetes object (a mapping), got {type(manifest).__name__}")
    kind, api_version = manifest.get("kind"), manifest.get("apiVersion")
    if not isinstance(kind, str) or not kind or not isinstance(api_version, str) or not api_version:
        raise ManifestError(f"{describe(manifest, where)}: not a Kubernetes object: apiVersion and kind are required")
    model = MODELS.get(kind)
    if model is None or (model is JobSet and not api_version.startswith("jobset.x-k8s.io/")):
        if (api_version.split("/")[0] if "/" in api_version else "", kind) not in LOOKED_UP:
            raise TrainJobInvalidError([_unknown_kind(kind, api_version, describe(manifest, where))])
        model = KubeObject
    try:
        return model.model_validate(dict(manifest), context=rules or admission())  # type: ignore[return-value]
    except ValidationError as error:
        raise TrainJobInvalidError(field_errors(error), source=describe(manifest, where)) from None


def load(source: Source | Iterable[Source], *, registry: PluginRegistry | None = None, refuse_undeployable: bool = False) -> list[Loaded]:
    """Models from YAML text, a file, a directory of *.yaml, a manifest dict, a model, or a list of these.

    Every document is checked; one TrainJobInvalidError reports the errors of all of them. Input that
    is no Kubernetes object, or exceeds a limit of `yamlio`, is a ManifestError naming where it is.
    Runtimes may use the mlPolicy keys of `registry`'s plugins (None: the default registry's);
    `refuse_undeployable` refuses counts the API server would refuse once rendered (api.admission).
    """
    return [document.model for document in read(source, registry=registry, refuse_undeployable=refuse_undeployable)]


def read(source: Source | Iterable[Source], *, registry: PluginRegistry | None = None, refuse_undeployable: bool = False) -> list[Document]:
    """`load`, with where each object came from (file and document)."""
    rules: Admission | None = None  # made at the first manifest to parse: a list of models needs none
    loaded: list[Document] = []
    errors: list[FieldError] = []
    budget = Budget()  # the limits hold for all the sources together
    # A list of models, what a program that loaded its objects once passes on every render, takes no
    # generator: each model's check is kept by the model (`ObjectModel.derived`), and the model as it is.
    items, depth = (source, 1) if isinstance(source, (list, tuple)) else ((source,), 0)
    for item in items:
        if isinstance(item, BaseModel):
            try:
                _check_model(item, "", budget)
                loaded.append(Document(item))  # type: ignore[arg-type]
            except TrainJobInvalidError as invalid:
                errors.extend(invalid.errors)
            continue
        for manifest, where, checked in _manifests(item, budget, depth):
            try:
                if not checked:
                    _check_json(manifest, where, budget)
                if isinstance(manifest, BaseModel):
                    loaded.append(Document(manifest))  # type: ignore[arg-type]
                else:
                    rules = rules or admission(registry, refuse_undeployable=refuse_undeployable)
                    loaded.append(Document(parse(manifest, where, rules=rules), describe(manifest, where)))
            except TrainJobInvalidError as invalid:
                errors.extend(invalid.errors)
    if errors:
        raise TrainJobInvalidError(errors)
    return loaded


def read_manifests(source: Source | Iterable[Source]) -> list[tuple[dict[str, Any], str]]:
    """The objects of `source` as manifest dicts, not parsed into models (what `trainjob render` wrote,
    say), each with where it is from (`file.yaml#2`, "" for a dict; `describe` adds kind and name);
    within yamlio's limits, as `read`."""
    budget = Budget()
    found: list[tuple[dict[str, Any], str]] = []
    items, depth = (source, 1) if isinstance(source, (list, tuple)) else ((source,), 0)
    for item in items:
        for manifest, where, checked in _manifests(item, budget, depth):
            if not checked:
                _check_json(manifest, where, budget)
            if isinstance(manifest, BaseModel):
                manifest = manifest.model_dump(by_alias=True, exclude_none=True, mode="json")
            if not isinstance(manifest, Mapping):
                raise ManifestError(f"{where or 'document'}: expected a Kubernetes object (a mapping), got {type(manifest).__name__}")
            found.append((dict(manifest), where))
    return found


def _manifests(source: Any, budget: Budget, depth: int) -> Iterable[tuple[Any, str, bool]]:
    """(manifest or model, where it is from, whether it is known to hold JSON values only)."""
    if isinstance(source, (BaseModel, Mapping)):
        yield source, "", False
    elif isinstance(source, (bytes, bytearray, memoryview)):
        raise ManifestError("cannot load bytes: decode them to text (YAML is UTF-8), or give the file's path")
    elif isinstance(source, Path) or (isinstance(source, str) and _looks_like_path(source)):
        yield from _from_path(Path(source), budget)
    elif isinstance(source, str):
        yield from _from_text(source, "", budget)
    elif isinstance(source, Iterable):
        if depth >= MAX_DEPTH:
            raise ManifestError(f"the sources nest deeper than {MAX_DEPTH} lists: the limit")
        for item in source:
            yield from _manifests(item, budget, depth + 1)
    else:
        raise ManifestError(f"cannot load {type(source).__name__}: give YAML text, a path, a dict or a model")


def _looks_like_path(text: str) -> bool:
    if "\n" in text or ":" in text.split("/")[0]:
        return False
    try:
        return Path(text).exists()
    except (OSError, ValueError):  # too long for a file name, or not one at all: YAML text
        return False


def _from_path(path: Path, budget: Budget) -> Iterable[tuple[Any, str, bool]]:
    if _is_dir(path):
        # Regular files only: reading a FIFO or a device named *.yaml would block or never end.
        for child in sorted(child for child in path.rglob("*.y*ml") if child.is_file()):
            yield from _from_text(_read(child, budget), str(child), budget)
        return
    yield from _from_text(_read(path, budget), str(path), budget)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _read(path: Path, budget: Budget) -> str:
    """The file's text; no more is read than the budget has left, whatever the file is (/dev/zero too)."""
    try:
        with path.open("rb") as file:
            data = file.read(max(budget.text, 0) + 1)
    except OSError as error:
        raise ManifestError(f"{path}: cannot read: {error.strerror or error}") from None
    except ValueError as error:  # a NUL in the path
        raise ManifestError(f"{path}: cannot read: {error}") from None
    if len(data) > budget.text:
        budget.spend_text(len(data), str(path))
    return decode(data, str(path))


def _from_text(text: str, name: str, budget: Budget) -> Iterable[tuple[Any, str, bool]]:
    for number, document in enumerate(load_documents(text, name, budget), start=1):
        if document is not None:
            yield document, f"{name}#{number}" if name else f"document {number}", True


def _check_json(manifest: Any, where: str, budget: Budget) -> None:
    """Dicts and models from Python: only what YAML could have said (JSON values within the limits)."""
    if not isinstance(manifest, BaseModel):
        _raise_if(json_problem(manifest, budget), manifest, where)
        return
    _check_model(manifest, where, budget)


def _check_model(manifest: BaseModel, where: str, budget: Budget) -> None:
    """What the model holds must be what YAML could hold, within what is left of the budget. A
    whole object keeps what its check cost (it is a frozen value), so a second load of it only counts."""
    if isinstance(manifest, ObjectModel):
        values, chars = manifest.derived(_CHECK_COST, lambda model: _model_cost(model, where))
    else:
        values, chars = _model_cost(manifest, where)
    budget.values -= values
    budget.chars -= chars
    if budget.values < 0 or budget.chars < 0:
        _raise_if(FieldError("", budget.overspent()), _model_document(manifest, where), where)


def _model_cost(model: BaseModel, where: str) -> tuple[int, int]:
    """The values and characters the model holds; an error if one of them is no JSON value."""
    fresh = Budget()
    document = _model_document(model, where)
    _raise_if(json_problem(document, fresh), document, where)
    return MAX_VALUES - fresh.values, MAX_VALUE_CHARS - fresh.chars


def _raise_if(problem: FieldError | None, document: Any, where: str) -> None:
    if problem is not None:
        raise TrainJobInvalidError([problem], source=describe(document, where) if isinstance(document, Mapping) else where)


def _model_document(model: BaseModel, where: str) -> Any:
    try:
        return model.model_dump(by_alias=True, exclude_unset=True, exclude_none=True)
    except (ValueError, RecursionError) as error:  # pydantic: a circular reference among the extra fields
        raise ManifestError(f"{where or type(model).__name__}: cannot serialize: {error}") from None


_CHECK_COST = object()  # the key of a model's check cost among what is derived from it
