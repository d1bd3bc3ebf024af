"""Python documents (dicts, lists, scalars) checked for what YAML could not have given: JSON's values only."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..framework.errors import FieldError
from .limits import DEEP, MAX_DEPTH, Budget
from .scalars import INT64, OUT_OF_RANGE, excerpt


def json_problem(document: Any, budget: Budget | None = None) -> FieldError | None:
    """The first value of a Python document that YAML could not have given `load_documents`: a type
    JSON lacks (bytes, tuple, set, object), a non-string key, an integer beyond int64, infinity or NaN,
    a string that is not Unicode text; or a document past the limits. Iterative, and it stops at the
    limits, so a dict that contains itself is reported, not followed forever."""
    budget = budget or Budget()
    problem = _value_problem(document) if not isinstance(document, (list, Mapping)) else ""
    stack: list[tuple[Any, int, Any]] = [(document, 1, None)] if not problem else []
    while stack and not problem:
        container, depth, trail = stack.pop()
        if depth > MAX_DEPTH:
            return FieldError(_trail_path(trail), DEEP)
        is_list = type(container) is list
        budget.values -= len(container) + 1
        for key, item in enumerate(container) if is_list else container.items():
            kind = type(item)
            if kind is str:
                budget.chars -= len(item)
                if not item.isascii() and not _is_text(item):
                    problem = _value_problem(item)
            elif kind is dict or kind is list:
                stack.append((item, depth + 1, (trail, key)))
            elif kind is int:
                if not INT64[0] <= item <= INT64[1]:
                    problem = _value_problem(item)
            elif kind is not bool and item is not None:
                if isinstance(item, Mapping):
                    stack.append((item, depth + 1, (trail, key)))
                else:
                    problem = _value_problem(item)
            if not is_list and type(key) is not str:
                return FieldError(_trail_path(trail), f"Invalid value: {excerpt(repr(key))}: a key must be a string")
            if problem:
                return FieldError(_trail_path((trail, key)), problem)
        problem = budget.overspent()
    return FieldError(_trail_path(None), problem) if problem else None


def _value_problem(value: Any) -> str:
    """Why a scalar is no JSON value, or "" when it is one."""
    kind = type(value)
    if kind is str:
        return "" if value.isascii() or _is_text(value) else "Invalid value: a string with a lone surrogate is not Unicode text"
    if kind is int:
        return "" if INT64[0] <= value <= INT64[1] else f"Invalid value: {value.bit_length()}-bit integer: {OUT_OF_RANGE}"
    if kind is float:
        return "" if math.isfinite(value) else f"Invalid value: {value}: JSON has no infinity or NaN; give a finite number"
    if value is None or kind is bool or kind is list or isinstance(value, Mapping):
        return ""
    return f"Invalid value: a {kind.__name__}: not a JSON value; use a str, int, float, bool, None, list or dict"


def _is_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _trail_path(trail: Any) -> str:
    parts: list[Any] = []
    while trail is not None:
        trail, key = trail
        parts.append(key)
    path = ""
    for key in reversed(parts):
        path += f"[{key}]" if type(key) is int else f".{key}" if path else key
    return path
