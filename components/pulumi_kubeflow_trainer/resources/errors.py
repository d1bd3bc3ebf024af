"""Bad input to a component becomes a clean Pulumi error (no traceback) that names the resource."""

from __future__ import annotations

from collections.abc import Sequence

import pulumi

from ..framework.errors import FieldError, TrainJobInvalidError


class InvalidInputError(pulumi.RunError):
    """A RunError (the program ends with just its message) that keeps the rejected fields, for a caller that
    reports them its own way: the component package (package/) as the engine's property errors."""

    def __init__(self, message: str, fields: Sequence[FieldError] = ()) -> None:
        super().__init__(message)
        self.fields = tuple(fields)


def invalid_input(component: pulumi.Resource | tuple[str, str], error: Exception | str) -> InvalidInputError:
    """`component` is the component, or its (type, name) when the error comes before it is registered."""
    type_, name = component if isinstance(component, tuple) else (component.pulumi_resource_type, component.pulumi_resource_name)
    # RunError ends the program with just this message: every field path and value, one per line.
    fields = error.errors if isinstance(error, TrainJobInvalidError) else ()
    return InvalidInputError(f"{type_} {name}: invalid input:\n{error}", fields)
