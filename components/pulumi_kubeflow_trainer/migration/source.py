"""The documents `migrate()` reads: YAML files, directories, text or dicts, each with where it is from.

The same limits and YAML rules as `load()` (`yamlio`): a document is what kubectl would send.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..framework.errors import ManifestError
from ..yamlio import Budget, decode, json_problem, load_documents

Source = str | Path | Mapping[str, Any]
Document = tuple[Any, str]  # (the document, where it is from: `FILE#N` or `document N`)


def read_documents(sources: Source | Iterable[Source]) -> list[Document]:
    """Every non-empty document of the sources, in order; a path names a file or a directory of *.yaml."""
    budget = Budget()  # the limits hold for all the sources together
    items = [sources] if isinstance(sources, (str, Path, Mapping)) else list(sources)
    found: list[Document] = []
    for item in items:
        if isinstance(item, Mapping):
            problem = json_problem(item, budget)
            if problem is not None:
                raise ManifestError(f"document {len(found) + 1}: {problem}")
            found.append((item, f"document {len(found) + 1}"))
        elif isinstance(item, Path) or (isinstance(item, str) and _names_a_file(item)):
            found.extend(_from_path(Path(item), budget))
        elif isinstance(item, str):
            found.extend(_from_text(item, "", budget, start=len(found)))
        else:
            raise ManifestError(f"cannot migrate {type(item).__name__}: give YAML text, a path or a dict")
    return found


def _names_a_file(text: str) -> bool:
    if "\n" in text or ":" in text.split("/")[0]:
        return False
    try:
        return Path(text).exists()
    except (OSError, ValueError):  # too long for a file name: YAML text
        return False


def _from_path(path: Path, budget: Budget) -> list[Document]:
    if path.is_dir():
        # Regular files only: a FIFO named *.yaml would block.
        files = sorted(child for child in path.rglob("*.y*ml") if child.is_file())
        return [document for file in files for document in _from_text(_read(file, budget), str(file), budget)]
    return _from_text(_read(path, budget), str(path), budget)


def _read(path: Path, budget: Budget) -> str:
    try:
        with path.open("rb") as file:
            data = file.read(max(budget.text, 0) + 1)
    except OSError as error:
        raise ManifestError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(data) > budget.text:
        budget.spend_text(len(data), str(path))
    return decode(data, str(path))


def _from_text(text: str, name: str, budget: Budget, start: int = 0) -> list[Document]:
    found: list[Document] = []
    for number, document in enumerate(load_documents(text, name, budget), start=1):
        if document is not None:
            found.append((document, f"{name}#{number}" if name else f"document {start + number}"))
    return found
