"""Turning what a Pulumi user passes (dict, model, YAML text, typed args) into one manifest dict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from ..framework.errors import ManifestError
from ..yamlio import load_documents


def as_manifest(value: Any, what: str) -> dict[str, Any]:
    """A dict, a pydantic model, an object with `to_manifest()`, or YAML text with one document."""
    if value is None:
        return {}
    if isinstance(value, BaseModel) or hasattr(value, "to_manifest"):
        manifest: dict[str, Any] = value.to_manifest()
        return manifest
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str):
        documents = [document for document in load_documents(value) if document is not None]
        if len(documents) != 1 or not isinstance(documents[0], Mapping):
            raise ManifestError(f"{what}: the YAML text must hold exactly one object, found {len(documents)}")
        return dict(documents[0])
    raise ManifestError(f"{what}: expected a dict, a model or YAML text, got {type(value).__name__}")


def merge_into(manifest: dict[str, Any], path: str, value: Any) -> None:
    """Set `path` (dotted) in `manifest` when `value` is given; keyword arguments win over the manifest."""
    if value is None:
        return
    *parents, last = path.split(".")
    node = manifest
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
