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
    {"rendering", "blueprints", "runtime_lookup", "functions", "migration", "watch"},  # watch: cluster reads, under resources and the CLI
    {"local", "resources", "cli", "__main__", "__init__"},
    {"policy"},  # the policy pack: the Pulumi engine runs it (docs/policy.md); nothing of the package imports it
    {"package"},  # the Pulumi package for other languages: a layer over the components that nothing imports
]
# Imported by nothing else of the package: the engine loads them (the policy pack through its console script, the
# component package through its plugin executable), and only the pack needs pulumi-policy.
NOT_IMPORTED = {"policy", "package"}
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


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_module_imports_the_policy_pack_or_the_component_package(path: Path) -> None:
    unit = unit_of(path)
    if unit not in NOT_IMPORTED:
        assert not imported_units(path) & NOT_IMPORTED, f"{path.relative_to(PACKAGE)} imports {sorted(imported_units(path) & NOT_IMPORTED)}"
