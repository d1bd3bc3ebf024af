"""The objects of one run: rendered children as given, or a TrainJob rendered here against its runtime."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from ..api import constants as c
from ..framework.errors import ManifestError
from ..yamlio import decode, load_documents
from .plan import LocalRunError

RUNTIME_KINDS = (c.TRAINING_RUNTIME_KIND, c.CLUSTER_TRAINING_RUNTIME_KIND)
PASSED_THROUGH = ("Secret", "ConfigMap")  # what env and volumes of the Pods may refer to


def manifests_of(objects: Any) -> list[dict[str, Any]]:
    """Dicts from manifests, models, YAML text, files or directories (`*.yaml`, `*.yml`), or lists of them."""
    if isinstance(objects, BaseModel):
        return [objects.model_dump(by_alias=True, exclude_none=True, mode="json")]
    if isinstance(objects, Mapping):
        return [dict(objects)]
    if isinstance(objects, Path) or (isinstance(objects, str) and _looks_like_path(objects)):
        return _from_path(Path(objects))
    if isinstance(objects, str):
        return _from_text(objects, "YAML")
    if isinstance(objects, Iterable):
        return [manifest for item in objects for manifest in manifests_of(item)]
    raise ManifestError(f"expected manifests, YAML text or files, got {type(objects).__name__}")


def _looks_like_path(text: str) -> bool:
    return "\n" not in text and (text.endswith((".yaml", ".yml")) or Path(text).exists())


def _from_path(path: Path) -> list[dict[str, Any]]:
    if path.is_dir():
        return [m for child in sorted([*path.rglob("*.yaml"), *path.rglob("*.yml")]) for m in _from_path(child)]
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ManifestError(f"{path}: cannot read: {error.strerror}") from None
    return _from_text(decode(data, str(path)), str(path))


def _from_text(text: str, where: str) -> list[dict[str, Any]]:
    try:
        return [dict(doc) for doc in load_documents(text, where) if isinstance(doc, Mapping)]
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise ManifestError(f"{where}{line}: invalid YAML: {getattr(error, 'problem', None) or error}") from None


def prepare_manifests(objects: Any, job: str | None = None, *, bundled: bool = True) -> list[dict[str, Any]]:
    """The JobSet (and its Secrets and ConfigMaps) of one TrainJob.

    When a TrainJob is among the objects it is rendered first, against the runtimes given with it and
    then (unless `bundled=False`) the bundled ones: runtime_lookup's rule; otherwise the objects are
    taken to be `trainjob render` output.
    """
    manifests = manifests_of(objects)
    trainjobs = [m for m in manifests if m.get("kind") == c.TRAINJOB_KIND]
    if not trainjobs:
        return [m for m in manifests if m.get("kind") != "JobSet" or job in (None, _name(m))]
    chosen = _choose(trainjobs, job)
    given = [m for m in manifests if m.get("kind") in PASSED_THROUGH]
    return _render(chosen, [m for m in manifests if m.get("kind") in RUNTIME_KINDS], bundled) + given


def _choose(trainjobs: list[dict[str, Any]], job: str | None) -> dict[str, Any]:
    if job is not None:
        for trainjob in trainjobs:
            if _name(trainjob) == job:
                return trainjob
        raise LocalRunError(f"no TrainJob named {job!r}; found {', '.join(map(_name, trainjobs))}")
    if len(trainjobs) > 1:
        raise LocalRunError(f"found {len(trainjobs)} TrainJobs ({', '.join(map(_name, trainjobs))}); choose one with --job NAME")
    return trainjobs[0]


def _render(trainjob: dict[str, Any], runtimes: list[dict[str, Any]], bundled: bool) -> list[dict[str, Any]]:
    from ..rendering import render

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecation notices are `trainjob validate`'s business
        return render([trainjob, *runtimes], runtime_snapshot=False, bundled=bundled)


def _name(manifest: Mapping[str, Any]) -> str:
    return str((manifest.get("metadata") or {}).get("name", ""))
