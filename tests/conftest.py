"""Shared fixtures: the upstream reference data, deterministic keys, golden files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pulumi_kubeflow_trainer.ssh import seeded_key_generator

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("KFT_SHARED_DIR", REPO.parent / "shared"))
REFERENCE = SHARED / "reference"
GOLDEN = Path(__file__).resolve().parent / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden/*.yaml from the current output")


@pytest.fixture
def key_generator():
    return seeded_key_generator("tests")


@pytest.fixture(scope="session")
def reference() -> Path:
    if not REFERENCE.is_dir():
        pytest.skip(f"upstream reference data not found at {REFERENCE} (set KFT_SHARED_DIR)")
    return REFERENCE


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
