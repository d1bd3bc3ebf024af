"""The limits of one `load()`: any text costs bounded time and memory."""

from __future__ import annotations

from dataclasses import dataclass

from ..framework.errors import ManifestError

MAX_INPUT = 8 * 2**20
"""Characters (bytes of files) of all the YAML one `load()` reads: the API server takes 3 MiB per object."""
MAX_VALUES = 50_000
"""Values (scalars, lists, mappings, documents) of one `load()`, aliases expanded; a runtime has ~150."""
MAX_VALUE_CHARS = 8 * 2**20
"""Characters of the string values of one `load()`, aliases expanded: what an alias may copy."""
MAX_DEPTH = 100
"""Nested lists and mappings; a JobSet template nests about 15 levels."""


@dataclass
class Budget:
    """What is left of the limits for one `load()`: every text, file and dict it is given, together."""

    text: int = MAX_INPUT
    values: int = MAX_VALUES
    chars: int = MAX_VALUE_CHARS

    def spend_text(self, size: int, name: str) -> None:
        self.text -= size
        if self.text < 0:
            raise ManifestError(f"{name or 'YAML'}: the input is larger than the limit of {MAX_INPUT >> 20} MiB for one load")

    def overspent(self) -> str:
        """Why the budget is exhausted, or "" when it is not."""
        if self.values < 0:
            return f"more than {MAX_VALUES} values (aliases expanded) in one load: the limit"
        if self.chars < 0:
            return f"more than {MAX_VALUE_CHARS >> 20} MiB of strings (aliases expanded) in one load: the limit"
        return ""


DEEP = f"the document nests deeper than {MAX_DEPTH} levels: the limit"
