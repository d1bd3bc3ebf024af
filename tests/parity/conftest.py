"""The oracle: skipped without it, unless PULUMI_KFT_REQUIRE_ENGINE=1 (.ci/run), where it must exist."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .oracle import find_oracle


@pytest.fixture(scope="session")
def oracle_bin() -> Path:
    binary = find_oracle()
    if binary is None:
        message = "no parity oracle: run tools/build-oracle (or set PULUMI_KFT_ORACLE)"
        if os.environ.get("PULUMI_KFT_REQUIRE_ENGINE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return binary
