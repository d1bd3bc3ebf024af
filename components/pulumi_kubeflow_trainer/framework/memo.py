"""Values derived from an object, kept by the object's identity and no longer than the object lives."""

from __future__ import annotations

import weakref
from typing import Generic, TypeVar

Key = TypeVar("Key")
Value = TypeVar("Value")


class IdentityMemo(Generic[Key, Value]):
    """A weak memo for unhashable keys (pydantic models, dataclasses), where a WeakKeyDictionary cannot
    serve: an entry goes when its key object is collected, so a reused id never finds a stale value.

    A value that refers to its own key (a compiled runtime holds its runtime) keeps the key alive
    through the memo, so such an entry would never go: `limit` bounds them, dropping the oldest entry
    first (a later use computes it again)."""

    def __init__(self, limit: int | None = None) -> None:
        self._entries: dict[int, tuple[weakref.ref[Key], Value]] = {}
        self._limit = limit

    def get(self, key: Key) -> Value | None:
        entry = self._entries.get(id(key))
        return entry[1] if entry is not None and entry[0]() is key else None

    def put(self, key: Key, value: Value) -> Value:
        entries, number = self._entries, id(key)

        def forget(ref: weakref.ref[Key]) -> None:
            if entries.get(number, (None,))[0] is ref:
                del entries[number]

        entries[number] = (weakref.ref(key, forget), value)
        if self._limit is not None and len(entries) > self._limit:
            del entries[next(iter(entries))]
        return value

    def __len__(self) -> int:
        return len(self._entries)
