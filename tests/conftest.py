"""Shared fixtures: the upstream reference data, deterministic keys, golden files."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pulumi_kubeflow_trainer.ssh import seeded_key_generator
from tests.scheduling import make_scheduler

REPO = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"


def _fetch_reference_module() -> ModuleType:
    """tools/fetch_reference.py: the one place that knows where the reference lives and when it is complete."""
    spec = importlib.util.spec_from_file_location("fetch_reference", REPO / "tools" / "fetch_reference.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


FETCH_REFERENCE = _fetch_reference_module()
# $PULUMI_KFT_REFERENCE (tools/test sets it), else the cache dir tools/fetch-reference fills.
REFERENCE = FETCH_REFERENCE.reference_dir()


def require_reference() -> Path:
    """The fetched upstream reference, or a failure that says how to get it (tests never fetch)."""
    if not FETCH_REFERENCE.is_warm(REFERENCE):
        pytest.fail(f"upstream reference data not found or incomplete at {REFERENCE}: "
                    "run tools/fetch-reference (tools/test does)", pytrace=False)
    return REFERENCE


def upstream_runtime_files() -> list[Path]:
    """The community runtimes of the reference, listed at collection time for parametrize. An empty
    list would silently skip every test over it, so no reference, or no runtime in it, fails."""
    base = require_reference() / "runtimes" / "base"
    files = sorted(path for path in base.rglob("*.yaml") if path.name != "kustomization.yaml")
    if not files:
        pytest.fail(f"no runtimes under {base}: run tools/fetch-reference --refetch", pytrace=False)
    return files


# What each directory's tests need, as a marker: `-m "not cluster"` and the like.
DIRECTORY_MARKERS = {
    "engine": "engine", "cluster": "cluster", "local": "local", "parity": "parity", "migration": "migration",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = item.nodeid.split("/")
        if len(parts) > 2 and parts[0] == "tests" and parts[1] in DIRECTORY_MARKERS:
            item.add_marker(DIRECTORY_MARKERS[parts[1]])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """tools/test's `--dist loadgroup`: the groups of tests/scheduling.py, each on one worker."""
    return make_scheduler(config, log) if config.getvalue("dist") == "loadgroup" else None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden/*.yaml from the current output")


@pytest.fixture
def key_generator():
    return seeded_key_generator("tests")


@pytest.fixture(scope="session")
def reference() -> Path:
    return require_reference()


class Golden:
    """Compares text with tests/golden/<name>; rewrites it only on --update-golden, never under CI."""

    def __init__(self, update: bool) -> None:
        self.update = update and not os.environ.get("CI")

    def check(self, name: str, text: str) -> None:
        path = GOLDEN / name
        if self.update:
            path.write_text(text)
            return
        assert path.exists(), f"missing golden file {path}: run pytest --update-golden and review the diff"
        assert text == path.read_text(), f"{name} differs from the golden file (pytest --update-golden to accept)"


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    return Golden(request.config.getoption("--update-golden"))
