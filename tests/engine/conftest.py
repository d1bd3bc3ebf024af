"""The real Pulumi engine (CLI + kubernetes provider built by tools/bootstrap), offline.

Tests here are marked `engine`. They skip when no toolchain is found, unless
PULUMI_KFT_REQUIRE_ENGINE=1 (as in .ci/run), where a missing toolchain is a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.toolchain import REPO, find_engine_bin, offline_env_module
PASSPHRASE = "engine-tests"


@pytest.fixture(scope="session")
def engine_bin() -> Path:
    bin_dir = find_engine_bin()
    if bin_dir is None:
        message = "no Pulumi toolchain: run tools/bootstrap (or set PULUMI_KFT_BIN)"
        if os.environ.get("PULUMI_KFT_REQUIRE_ENGINE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return bin_dir


@pytest.fixture
def engine_env(engine_bin: Path, tmp_path: Path) -> dict[str, str]:
    """Offline settings with a private backend and PULUMI_HOME for this test."""
    state = tmp_path / "state"
    state.mkdir()
    env = offline_env_module().load(
        engine_bin,
        overrides={
            "PULUMI_BACKEND_URL": f"file://{state}",
            "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE,
            "PULUMI_HOME": str(tmp_path / "pulumi-home"),
        },
        python=str(REPO / ".venv" / "bin" / "python") if (REPO / ".venv").exists() else None,
    )
    env.pop("KUBECONFIG", None)  # render mode refuses a kubeconfig
    return env
