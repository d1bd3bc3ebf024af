"""The package's lazy exports: what type checkers see is what `__getattr__` hands out at run time."""

from __future__ import annotations

import ast
from pathlib import Path

import pulumi_kubeflow_trainer as package

INIT = Path(package.__file__)


def type_checking_imports() -> dict[str, str]:
    """name -> module (relative to the package) of every import under `if TYPE_CHECKING:`."""
    found: dict[str, str] = {}
    for node in ast.parse(INIT.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.level == 1
                found.update({alias.name: str(statement.module) for alias in statement.names})
    return found


def test_type_checkers_see_every_export_from_the_module_that_serves_it() -> None:
    assert type_checking_imports() == package._EXPORTS
    assert package.__all__ == sorted(package._EXPORTS), "__all__ is a literal list, so type checkers read it"


def test_every_export_resolves_at_run_time() -> None:
    for name in package.__all__:
        assert getattr(package, name) is not None
    assert (INIT.parent / "py.typed").is_file()
