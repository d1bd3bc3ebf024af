"""The real Pulumi engine (CLI + kubernetes provider built by tools/bootstrap), offline.

Tests here are marked `engine`. They skip when no toolchain is found, unless
PULUMI_KFT_REQUIRE_ENGINE=1 (as in .ci/run), where a missing toolchain is a failure.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "tools"
PASSPHRASE = "engine-tests"


def _find_bin_dir() -> Path | None:
    explicit = os.environ.get("PULUMI_KFT_BIN")
    candidates = [Path(explicit)] if explicit else []
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pulumi-kubeflow-trainer"
    candidates += sorted(cache.glob("tools-*/bin"), reverse=True)
    on_path = shutil.which("pulumi")
    if on_path:
        candidates.append(Path(on_path).parent)
    for candidate in candidates:
        if (candidate / "pulumi").exists() and (candidate / "pulumi-resource-kubernetes").exists():
            return candidate
    return None


def _offline_env_module():
    spec = importlib.util.spec_from_file_location("offline_env", TOOLS / "offline_env.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="session")
def engine_bin() -> Path:
    bin_dir = _find_bin_dir()
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
    env = _offline_env_module().load(
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
