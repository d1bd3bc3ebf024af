"""The package's layers import downward only: api -> framework -> plugins -> rendering -> resources / CLI.

Every import of the package's own modules (at module level or inside a function) is read from the
source, so a lazy import cannot hide an upward one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "components" / "pulumi_kubeflow_trainer"

# Bottom to top; a unit (a subpackage or a top-level module) may import its own layer and those below.
LAYERS: list[set[str]] = [
    {"api", "ssh"},  # the models and leaf utilities: they import nothing of the package
    {"framework"},  # the plugin runner and what plugins share; it knows no plugin
    {"yamlio", "loading", "plugins", "status"},
    {"rendering", "blueprints", "runtime_lookup", "functions"},
    {"local", "resources", "cli", "__main__", "__init__"},
]
# The initializers run in slim images: nothing else of the package, so no pydantic, no Pulumi.
ISOLATED = {"initializers"}


def unit_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def imported_units(path: Path) -> set[str]:
    """The package's units that `path` imports, relative or absolute."""
    here = path.relative_to(PACKAGE).parent.parts
    units = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(here[: len(here) - (node.level - 1)])
            target = base + (node.module.split(".") if node.module else [])
            units |= {target[0]} if target else {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pulumi_kubeflow_trainer."):
            units.add(node.module.split(".")[1])  # type: ignore[union-attr]
        elif isinstance(node, ast.Import):
            units |= {alias.name.split(".")[1] for alias in node.names if alias.name.startswith("pulumi_kubeflow_trainer.")}
    return units


def layer_of(unit: str) -> int:
    for index, layer in enumerate(LAYERS):
        if unit in layer:
            return index
    raise AssertionError(f"{unit} is in no layer of tests/test_layering.py: add it where it belongs")


MODULES = sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def test_every_module_of_the_package_is_checked() -> None:
    assert len(MODULES) > 50 and {unit_of(path) for path in MODULES} >= {"api", "framework", "plugins", "resources"}


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_a_module_imports_only_its_own_layer_and_those_below(path: Path) -> None:
    unit = unit_of(path)
    others = imported_units(path) - {unit}
    if unit in ISOLATED:
        assert not others, f"{path.name} (initializers) imports {sorted(others)}: the initializers must stay self-contained"
        return
    upward = sorted(other for other in others if other in ISOLATED or layer_of(other) > layer_of(unit))
    assert not upward, f"{path.relative_to(PACKAGE)} ({unit}, layer {layer_of(unit)}) imports upward: {upward}"
