"""The one pydantic base of every API model, and the error type for field paths."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class KubeModel(BaseModel):
    """A Kubernetes-shaped model: snake_case in Python, camelCase in YAML.

    Unknown fields are rejected, as the API server does for a structural CRD schema, and so are values
    of the wrong JSON type (`numNodes: "3"`, `suspend: "true"`): the API server does not coerce them.
    Models are frozen values: renders cache what they derive from a runtime model, so a changed runtime
    is a new model (`model_copy(update=...)`), never an edited one.
    """

    model_config = ConfigDict(
        strict=True,
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="forbid",
        loc_by_alias=True,
        frozen=True,
    )

    def to_manifest(self) -> dict[str, Any]:
        """The object as the user wrote it: camelCase keys, no unset defaults, no nulls."""
        return self.model_dump(by_alias=True, exclude_unset=True, exclude_none=True, mode="json")


class OpenKubeModel(KubeModel):
    """A Kubernetes core type modelled only in the fields this library reads.

    Its other fields (probes, security contexts, volume sources, ...) pass through unchanged.
    """

    model_config = ConfigDict(extra="allow")
