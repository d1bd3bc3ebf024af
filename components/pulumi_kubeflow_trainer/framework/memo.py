"""Values derived from an object, kept by the object's identity and no longer than the object lives."""

from __future__ import annotations

import weakref
from typing import Generic, TypeVar

Key = TypeVar("Key")
Value = TypeVar("Value")


class IdentityMemo(Generic[Key, Value]):
    """A weak memo for unhashable keys (pydantic models, dataclasses), where a WeakKeyDictionary cannot
    serve: an entry goes when its key object is collected, so a reused id never finds a stale value."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[Key], Value]] = {}

    def get(self, key: Key) -> Value | None:
        entry = self._entries.get(id(key))
        return entry[1] if entry is not None and entry[0]() is key else None

    def put(self, key: Key, value: Value) -> Value:
        entries, number = self._entries, id(key)

        def forget(ref: weakref.ref[Key]) -> None:
            if entries.get(number, (None,))[0] is ref:
                del entries[number]

        entries[number] = (weakref.ref(key, forget), value)
        return value

    def __len__(self) -> int:
        return len(self._entries)
