"""The oracle: skipped without it, unless PULUMI_KFT_REQUIRE_ENGINE=1 (.ci/run), where it must exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.toolchain import required

from .oracle import find_oracle


@pytest.fixture(scope="session")
def oracle_bin() -> Path:
    return required(find_oracle(), "no parity oracle: run tools/build-oracle (or set PULUMI_KFT_ORACLE)")
