"""The one pydantic base of every API model, and the error type for field paths."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, PrivateAttr
from pydantic.alias_generators import to_camel

T = TypeVar("T")


class DerivedValues(dict[object, Any]):
    """What is derived from a model, kept by it: never makes two models unequal (pydantic compares
    private attributes)."""

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, DerivedValues)

    __hash__ = None  # a dict: unhashable


class KubeModel(BaseModel):
    """A Kubernetes-shaped model: snake_case in Python, camelCase in YAML.

    Unknown fields are rejected, as the API server does for a structural CRD schema, and so are values
    of the wrong JSON type (`numNodes: "3"`, `suspend: "true"`): the API server does not coerce them.
    Models are frozen values: what a render derives from a whole object (a runtime's compiled form, a
    load's check of its values) is kept by the object itself (`ObjectModel.derived`), so a changed
    runtime is a new model (`model_copy(update=...)`, which starts with nothing derived), never an
    edited one.
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


class ObjectModel(KubeModel):
    """A whole Kubernetes object (TrainJob, runtime, JobSet, any other object given): it keeps what a
    render derives from it (`derived`). Only whole objects do: a private attribute costs every model
    that has one at construction, and parts are many."""

    # Values derived from this object, by what derives them; they go with it.
    _derived_values: DerivedValues | None = PrivateAttr(default=None)

    def derived(self, key: object, compute: Callable[[Any], T]) -> T:
        """`compute(self)`, computed once and kept by this object, under `key` (one key per kind of value):
        the object is a frozen value, so the value stays true as long as the object lives, and goes with
        it. A copy starts with nothing derived."""
        private = self.__pydantic_private__  # read directly: pydantic's attribute path is slow, and this runs per render
        values = private.get("_derived_values") if private is not None else None
        if values is None:
            values = self._derived_values = DerivedValues()
        elif key in values:
            found: T = values[key]
            return found
        value = values[key] = compute(self)
        return value

    def __copy__(self) -> Any:
        copied = super().__copy__()
        copied._derived_values = None
        return copied

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Any:
        copied = super().__deepcopy__(memo)
        copied._derived_values = None
        return copied

    def __getstate__(self) -> dict[Any, Any]:
        state = super().__getstate__()
        private = state.get("__pydantic_private__")
        if private:  # what is derived is rebuilt where the model is unpickled, never shipped with it
            state["__pydantic_private__"] = {**private, "_derived_values": None}
        return state
