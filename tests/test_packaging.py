"""The distribution carries every package and the bundled runtimes."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from .conftest import REPO


def _listed_packages() -> set[str]:
    return set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])


def test_every_package_in_the_source_tree_is_listed_in_pyproject() -> None:
    components = REPO / "components"
    found = {".".join(init.parent.relative_to(components).parts) for init in components.rglob("__init__.py")}
    assert found | {"pulumi_kubeflow_trainer.runtimes"} == _listed_packages()


def test_the_wheel_ships_the_bundled_runtimes(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    bundled = {Path(name).name for name in names if name.startswith("pulumi_kubeflow_trainer/runtimes/")}
    assert bundled == {path.name for path in (REPO / "runtimes").glob("*.yaml")}
    assert "pulumi_kubeflow_trainer/plugins/torch.py" in names
    zipfile.ZipFile(wheel).extractall(tmp_path / "installed")
    check = "from pulumi_kubeflow_trainer.blueprints import bundled_runtimes; print(len(bundled_runtimes()))"
    loaded = subprocess.run(
        [sys.executable, "-c", check], cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "installed")},
        check=True, capture_output=True, text=True,
    )
    assert int(loaded.stdout) == len(bundled), "an installed package finds its bundled runtimes"
