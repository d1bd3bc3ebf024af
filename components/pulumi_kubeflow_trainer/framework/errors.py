"""The error hierarchy. Bad input to `load`, `render`, the components or the CLI, in any form (YAML,
dicts, models, Pulumi inputs, or a value no manifest can be, such as `render(42)`), fails with a
TrainerError that names where it is; so do a plugin that cannot do its work (PluginError), one that
cannot be registered (PluginRegistrationError) and a function that cannot be shipped
(functions.FunctionPackagingError).

Outside the hierarchy: a call Python itself refuses (an unknown keyword, a missing argument: TypeError);
at deploy time, where Pulumi reports it as the resource's error, an update the runtime-patch rules
refuse (ValueError from the TrainJob's before_update hook) and a JobSet that failed while
`wait_for="completed"` waited (RuntimeError); and a bug of this library or of a plugin, whatever it
raises (the CLI prints it as an `internal error`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..api.rules import show


@dataclass(frozen=True)
class FieldError:
    """One rejected field, printed as Kubernetes does: `spec.trainer.numNodes: Invalid value: -1: ...`.

    `source` says which object it is about (file, document, kind/name) when several were given.
    """

    path: str
    message: str
    source: str = ""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def describe(self) -> str:
        return f"{self.source}: {self}" if self.source else str(self)

    def within(self, source: str) -> FieldError:
        return FieldError(self.path, self.message, self.source or source)


class TrainerError(Exception):
    """Base of the errors this library raises on bad input (the module docstring says what else escapes)."""


class TrainJobInvalidError(TrainerError):
    """The input breaks API rules; carries every FieldError found, not just the first."""

    def __init__(self, errors: Sequence[FieldError], *, source: str = "", warnings: Sequence[str] = ()) -> None:
        self.errors = [error.within(source) for error in errors] if source else list(errors)
        self.warnings = list(warnings)
        super().__init__("\n".join(error.describe() for error in self.errors))


class RuntimeNotFoundError(TrainJobInvalidError):
    """A TrainJob's runtimeRef names no runtime that is in scope."""


class ManifestError(TrainerError):
    """Input that is no manifest this library can read: YAML syntax, a document without apiVersion and
    kind, the size limits, a value of no manifest's type (`render(42)`). A readable object of a kind it
    does not read is a field error (TrainJobInvalidError, at `kind`)."""


class BlueprintError(TrainerError):
    """A bundled or user runtime file that does not load; the message starts with the file."""


class PluginError(TrainerError):
    """A plugin could not do its work for this input; the message names the plugin."""

    def __init__(self, plugin: str, message: str) -> None:
        self.plugin = plugin
        super().__init__(f"{plugin}: {message}")


class PluginRegistrationError(TrainerError):
    """A plugin that cannot be registered: no name, a name or mlPolicy key taken, no extension point, or
    an ML-policy declaration that cannot work (framework.ml_policy)."""


def error_lines(error: TrainerError) -> list[str]:
    """How the command-line tools print an error: one `error:` line per field error, no traceback."""
    if isinstance(error, TrainJobInvalidError):
        return [f"error: {field_error.describe()}" for field_error in error.errors]
    return [f"error: {error}"]


def _join(prefix: str, loc: Iterable[Any]) -> str:
    path = prefix
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif str(part).startswith("["):
            path += str(part)
        elif part in ("function-after", "function-before", "function-wrap", "tagged-union", "union"):
            continue
        else:
            path = f"{path}.{part}" if path else str(part)
    return path


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _message(error: dict[str, Any]) -> str:
    kind = error["type"]
    context = error.get("ctx") or {}
    if kind == "rule":
        return str(context["message"])
    if kind == "missing":
        return "Required value: add this field"
    if kind == "extra_forbidden":
        return f"Unsupported field: {show(error.get('input'))}: not a field of this object; check the spelling or remove it"
    return f"Invalid value: {show(error.get('input'))}: {_lower_first(error['msg'])}"


def field_errors(error: ValidationError, prefix: str = "") -> list[FieldError]:
    """Pydantic's errors as FieldErrors with camelCase paths, the way the user wrote them."""
    found = []
    for detail in error.errors(include_url=False):
        loc = list(detail["loc"])
        extra = (detail.get("ctx") or {}).get("path")
        if extra:
            loc.append(extra)
        found.append(FieldError(_join(prefix, loc), _message(dict(detail))))
    return found
