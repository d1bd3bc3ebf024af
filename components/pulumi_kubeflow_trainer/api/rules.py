"""Helpers for CRD rules: error construction, value display, list-map uniqueness."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any, TypeVar

from pydantic import field_validator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

T = TypeVar("T")
_MAX_SHOWN = 120


def show(value: Any) -> str:
    """A value as Kubernetes prints it in field errors: JSON-ish and short."""
    try:
        text = json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def rule_error(message: str, *, path: str | None = None) -> PydanticCustomError:
    """A rule violation; `path` extends the field path pydantic reports (e.g. `name` below `metadata`)."""
    context: dict[str, Any] = {"message": message}
    if path:
        context["path"] = path
    # The message travels in the context so braces in user values are never treated as placeholders.
    return PydanticCustomError("rule", "{message}", context)


def require_unique(items: Iterable[T] | None, key: Callable[[T], Any], key_name: str) -> None:
    """Reject a second item with the same key, as the API server does for list-maps and sets."""
    seen: set[Any] = set()
    for index, item in enumerate(items or ()):
        value = key(item)
        if value in seen:
            raise rule_error(
                f"Duplicate value: {show(value)} at index {index}: each item needs a unique {key_name}",
                path=f"[{index}]",
            )
        seen.add(value)


def unique_by(key: str | Callable[[Any], Any], *fields: str, key_name: str = "") -> Any:
    """The field validator of list-map and set fields: `require_unique` on each of `fields`, keyed by an
    attribute (`"mount_path"`, reported as `mountPath`) or by a function with its `key_name`."""
    by = attrgetter(key) if isinstance(key, str) else key
    name = key_name or (to_camel(key) if isinstance(key, str) else "key")

    def unique(cls: type, items: Any) -> Any:
        require_unique(items, by, name)
        return items

    return field_validator(*fields)(classmethod(unique))


def known_api_version(value: str) -> str:
    """Both the upstream version and the KEP's are accepted, with the same schema."""
    from .constants import API_VERSIONS

    if value not in API_VERSIONS:
        raise rule_error(f"Unsupported value: {show(value)}: use {' or '.join(API_VERSIONS)}")
    return value
