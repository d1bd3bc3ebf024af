"""The v1 oracle: skipped without it, unless PULUMI_KFT_REQUIRE_ENGINE=1 (.ci/run), where it must exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.toolchain import required

from .oracle_v1 import examples_of, find_oracle_v1


@pytest.fixture(scope="session")
def oracle_v1() -> Path:
    return required(find_oracle_v1(), "no v1 oracle: run tools/build-oracle-v1 (or set PULUMI_KFT_ORACLE_V1)")


@pytest.fixture(scope="session")
def v1_examples(oracle_v1: Path) -> Path:
    examples = examples_of(oracle_v1)
    if not examples.is_dir():
        pytest.fail(f"no examples at {examples}: run tools/build-oracle-v1 --rebuild", pytrace=False)
    return examples
