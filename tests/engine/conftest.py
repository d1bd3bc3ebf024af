"""The real Pulumi engine (CLI + kubernetes provider built by tools/bootstrap), offline.

Tests here are marked `engine`. They skip when no toolchain is found, unless
PULUMI_KFT_REQUIRE_ENGINE=1 (as in .ci/run), where a missing toolchain is a failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.toolchain import find_engine_bin, isolated_engine_env, required

PASSPHRASE = "engine-tests"


@pytest.fixture(scope="session")
def engine_bin() -> Path:
    return required(find_engine_bin(), "no Pulumi toolchain: run tools/bootstrap (or set PULUMI_KFT_BIN)")


@pytest.fixture
def engine_env(engine_bin: Path, tmp_path: Path) -> dict[str, str]:
    """Offline settings with a private backend and PULUMI_HOME for this test."""
    return isolated_engine_env(engine_bin, tmp_path, PASSPHRASE)
