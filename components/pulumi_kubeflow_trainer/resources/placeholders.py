"""Pulumi Outputs through the pure renderer: swapped for tokens before, swapped back after.

Leaf values (an image from a build, a namespace from a Namespace resource, a secret env value) may be
Outputs. `render()` works on plain data, so each Output becomes a unique token string, and tokens in
the rendered manifests become the Outputs again, inside longer strings too.
"""

from __future__ import annotations

import re
from typing import Any

import pulumi

from ..framework.errors import FieldError, TrainerError, TrainJobInvalidError

_PREFIX = "pulumi-output://"
_TOKEN = re.compile(re.escape(_PREFIX) + r"(\d+)\b")
PLAIN_VALUE_NEEDED = (
    "Invalid value: a Pulumi Output: this value decides what is rendered, so it must be known at preview; "
    "pass a plain value (Outputs are for leaf values such as images, namespaces and env values)"
)


class Placeholders:
    def __init__(self) -> None:
        self.outputs: list[pulumi.Output[Any]] = []

    def hide(self, value: Any) -> Any:
        """`value` with every Output replaced by a token that passes string and URI validation."""
        if isinstance(value, pulumi.Output):
            self.outputs.append(value)
            return f"{_PREFIX}{len(self.outputs) - 1}"
        if isinstance(value, dict):
            return {key: self.hide(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.hide(item) for item in value]
        return value

    def reveal(self, value: Any) -> Any:
        """`value` with tokens replaced by their Outputs; untouched where there are none."""
        if not self.outputs:  # nothing was hidden: no token to look for
            return value
        if isinstance(value, str) and _PREFIX in value:
            return self._reveal_string(value)
        if isinstance(value, dict):
            return {key: self.reveal(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.reveal(item) for item in value]
        return value

    def _reveal_string(self, text: str) -> Any:
        whole = _TOKEN.fullmatch(text)
        if whole:
            return self.outputs[int(whole.group(1))]
        indices = [int(index) for index in _TOKEN.findall(text)]
        parts = [self.outputs[index] for index in indices]

        def substitute(values: list[Any]) -> str:
            lookup = dict(zip(indices, values, strict=True))  # one value per token found
            return _TOKEN.sub(lambda match: str(lookup[int(match.group(1))]), text)

        return pulumi.Output.all(*parts).apply(substitute)

    def is_token(self, value: Any) -> bool:
        return isinstance(value, str) and _PREFIX in value


def explain_outputs(error: TrainerError) -> TrainerError:
    """`error` without the internal tokens: a field refused because an Output stood where a plain value
    decides the structure says so, under its field path; any other mention reads `<Pulumi Output>`."""
    if _PREFIX not in str(error):
        return error
    if isinstance(error, TrainJobInvalidError):
        return type(error)([_explained(field) for field in error.errors], warnings=error.warnings)
    return TrainerError(_TOKEN.sub("<Pulumi Output>", str(error)))


def _explained(field: FieldError) -> FieldError:
    source = _TOKEN.sub("<Pulumi Output>", field.source)
    if _PREFIX in field.message or _PREFIX in field.path:
        return FieldError(_TOKEN.sub("<Pulumi Output>", field.path), PLAIN_VALUE_NEEDED, source)
    return FieldError(field.path, field.message, source)


def contains_output(value: Any) -> bool:
    if isinstance(value, pulumi.Output):
        return True
    if isinstance(value, dict):
        return any(contains_output(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(contains_output(item) for item in value)
    return False
