"""The distribution carries every package and the bundled runtimes, and installs beside other Pulumi SDKs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from .conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # the test extra installs tomli there
    import tomli as tomllib

# A user's program that already has another provider SDK, on a pulumi release other than constraints.txt's.
OTHER_PROVIDER = "pulumi-random==4.21.4"  # needs pulumi>=3.231,<4
OTHER_PULUMI = "pulumi==3.265.0"
# Outside the repo, kept between runs: pip's cache and a wheelhouse of what the test installed before.
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pulumi-kubeflow-trainer"
PIP_CACHE, WHEELHOUSE = CACHE / "pip-cache", CACHE / "wheelhouse"


def _listed_packages() -> set[str]:
    return set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])


def _pins(name: str) -> dict[str, str]:
    """`package==version` lines of a constraints file, by normalised package name."""
    pins = {}
    for line in (REPO / name).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            (spec,) = requirement.specifier
            assert spec.operator == "==", f"{name}: {line} is not an exact pin"
            pins[_normalised(requirement.name)] = spec.version
    return pins


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = [item for items in project["optional-dependencies"].values() for item in items]
    return [Requirement(item) for item in [*project["dependencies"], *extras]]


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(REPO)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("*.whl")
    return built


def test_every_package_in_the_source_tree_is_listed_in_pyproject() -> None:
    components = REPO / "components"
    found = {".".join(init.parent.relative_to(components).parts) for init in components.rglob("__init__.py")}
    assert found | {"pulumi_kubeflow_trainer.runtimes"} == _listed_packages()


def test_the_wheel_ships_the_bundled_runtimes(wheel: Path, tmp_path: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    bundled = {Path(name).name for name in names if name.startswith("pulumi_kubeflow_trainer/runtimes/")}
    assert bundled == {path.name for path in (REPO / "runtimes").glob("*.yaml")}
    sources = {path.relative_to(REPO / "components").as_posix()
               for path in (REPO / "components" / "pulumi_kubeflow_trainer").rglob("*.py")}
    assert sources - set(names) == set(), "every module of the source tree is in the wheel"
    zipfile.ZipFile(wheel).extractall(tmp_path / "installed")
    check = "from pulumi_kubeflow_trainer.blueprints import bundled_runtimes; print(len(bundled_runtimes()))"
    loaded = subprocess.run(
        [sys.executable, "-c", check], cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "installed")},
        check=True, capture_output=True, text=True,
    )
    assert int(loaded.stdout) == len(bundled), "an installed package finds its bundled runtimes"


def test_the_wheel_ships_the_policy_pack_and_its_console_script(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "pulumi_kubeflow_trainer/policy/pack.py" in names
    (entry_points,) = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "kubeflow-trainer-policy = pulumi_kubeflow_trainer.policy.__main__:main" in text


def test_the_wheel_ships_the_component_package_with_its_executable_plugin(wheel: Path) -> None:
    entries = {info.filename: info for info in zipfile.ZipFile(wheel).infolist()}
    plugin = entries["pulumi_kubeflow_trainer/package/pulumi-resource-kubeflow-trainer"]
    assert (plugin.external_attr >> 16) & 0o111, "the engine executes the plugin: it keeps its exec bit"
    assert "pulumi_kubeflow_trainer/package/schema.json" in entries


def test_the_wheel_declares_ranges_from_the_lowest_tested_version_below_the_next_major(wheel: Path) -> None:
    (name,) = [name for name in zipfile.ZipFile(wheel).namelist() if name.endswith(".dist-info/METADATA")]
    metadata = Parser().parsestr(zipfile.ZipFile(wheel).read(name).decode())
    required = [Requirement(line) for line in metadata.get_all("Requires-Dist") or []]
    lowest, pinned = _pins("constraints-lowest.txt"), _pins("constraints.txt")
    assert {_normalised(r.name) for r in required} == {_normalised(r.name) for r in _declared()}
    for requirement in required:
        bounds = {spec.operator: spec.version for spec in requirement.specifier}
        name = _normalised(requirement.name)
        assert set(bounds) == {">=", "<"}, f"{requirement}: a range from a lower bound to the next major"
        assert requirement.specifier.contains(pinned[name]), f"constraints.txt pins {name}=={pinned[name]} outside {requirement}"
        next_major = f"{int(pinned[name].split('.')[0]) + 1}"
        assert bounds["<"] == next_major, f"{requirement}: the upper bound is the next major of the tested {pinned[name]}"
        if name in lowest:
            assert lowest[name] == bounds[">="], f"constraints-lowest.txt tests {name}=={lowest[name]}, not its lower bound {bounds['>=']}"


def test_the_lowest_constraints_cover_every_dependency_and_keep_the_test_tools_pinned() -> None:
    lowest, pinned = _pins("constraints-lowest.txt"), _pins("constraints.txt")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    library = {_normalised(Requirement(item).name) for item in [*project["dependencies"], *project["optional-dependencies"]["initializers"],
                                                                         *project["optional-dependencies"]["policy"]]}
    test_tools = {_normalised(Requirement(item).name) for item in project["optional-dependencies"]["test"]} - library
    assert library <= set(lowest), "every dependency of the library has its lowest version tested"
    assert {name: lowest[name] for name in test_tools} == {name: pinned[name] for name in test_tools}
    assert set(pinned) == {_normalised(r.name) for r in _declared()}, "constraints.txt pins exactly the declared packages"


def test_tools_bootstrap_builds_the_engine_for_the_pinned_sdks() -> None:
    bootstrap = (REPO / "tools" / "bootstrap").read_text()
    wanted = dict(re.findall(r"^(PULUMI_WANT|K8S_WANT)=(\S+)", bootstrap, re.MULTILINE))
    pinned = _pins("constraints.txt")
    assert wanted == {"PULUMI_WANT": pinned["pulumi"], "K8S_WANT": pinned["pulumi-kubernetes"]}


def _pip(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """This interpreter's pip acting on another venv (`--python`): that venv needs no pip of its own."""
    command = [sys.executable, "-m", "pip", "--python", str(python), "--cache-dir", str(PIP_CACHE),
               "--disable-pip-version-check", "--no-input", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def _install(python: Path, request: pytest.FixtureRequest, *args: str) -> None:
    """`pip install ARGS` resolved from the wheelhouse of earlier runs; what it lacks is fetched from the
    index first (so a warm run needs no network, and a cold one needs the index)."""
    local = ("install", "-q", "--no-compile", "--no-index", "--find-links", str(WHEELHOUSE), *args)
    if _pip(python, *local).returncode == 0:
        return
    fetched = _pip(python, "download", "-q", "-d", str(WHEELHOUSE), *args)
    if fetched.returncode != 0:
        request.getfixturevalue("index_reachable")
        raise AssertionError(f"pip download {' '.join(args)}:\n{fetched.stderr}")
    for own in WHEELHOUSE.glob("pulumi_kubeflow_trainer-*"):
        own.unlink()  # ours is always the wheel just built
    installed = _pip(python, *local)
    assert installed.returncode == 0, installed.stderr


@pytest.fixture(scope="session")
def index_reachable() -> None:
    probe = subprocess.run(
        [sys.executable, "-m", "pip", "--cache-dir", str(PIP_CACHE), "index", "versions", OTHER_PROVIDER.split("==")[0]],
        capture_output=True, text=True, timeout=180,
    )
    if probe.returncode != 0:
        message = f"pip's package index is not reachable: {probe.stderr.strip().splitlines()[-1:]}"
        if os.environ.get("PULUMI_KFT_REQUIRE_ENGINE") == "1":
            pytest.fail(f"{message} (PULUMI_KFT_REQUIRE_ENGINE=1)", pytrace=False)
        pytest.skip(message)


@pytest.mark.index
def test_the_wheel_installs_beside_another_provider_sdk_on_another_pulumi_release(
    wheel: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    venv = tmp_path / "program"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    _install(python, request, OTHER_PROVIDER, OTHER_PULUMI)
    # The program's lock keeps what it has (with exact pins of our own this was ResolutionImpossible).
    lock = tmp_path / "lock.txt"
    lock.write_text(f"{OTHER_PROVIDER}\n{OTHER_PULUMI}\n")
    _install(python, request, "-c", str(lock), str(wheel))
    check = _pip(python, "check")
    assert check.returncode == 0, check.stdout + check.stderr
    versions = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m, pulumi_random, pulumi_kubeflow_trainer; "
         "print(m.version('pulumi'), m.version('pulumi-random'))"],
        capture_output=True, text=True, check=True,
    )
    assert versions.stdout.split() == [OTHER_PULUMI.split("==")[1], OTHER_PROVIDER.split("==")[1]]
