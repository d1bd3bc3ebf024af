"""Bad input to a component becomes a clean Pulumi error (no traceback) that names the resource."""

from __future__ import annotations

import pulumi


def invalid_input(component: pulumi.Resource | tuple[str, str], error: Exception | str) -> pulumi.RunError:
    """`component` is the component, or its (type, name) when the error comes before it is registered."""
    type_, name = component if isinstance(component, tuple) else (component._type, component._name)  # noqa: SLF001
    # RunError ends the program with just this message: every field path and value, one per line.
    return pulumi.RunError(f"{type_} {name}: invalid input:\n{error}")
