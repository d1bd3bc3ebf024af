"""Bad input to a component becomes a clean Pulumi error (no traceback) that names the resource."""

from __future__ import annotations

import pulumi


def invalid_input(component: pulumi.Resource, error: Exception | str) -> pulumi.RunError:
    # RunError ends the program with just this message: every field path and value, one per line.
    return pulumi.RunError(f"{component._type} {component._name}: invalid input:\n{error}")  # noqa: SLF001
