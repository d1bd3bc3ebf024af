"""Where the tests find the toolchains that tools/bootstrap and tools/bootstrap-cluster build."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO / "tools"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pulumi-kubeflow-trainer"


def find_engine_bin() -> Path | None:
    """The Pulumi CLI and kubernetes provider: $PULUMI_KFT_BIN, the bootstrap cache, or PATH."""
    explicit = os.environ.get("PULUMI_KFT_BIN")
    candidates = [Path(explicit)] if explicit else []
    candidates += sorted(CACHE.glob("tools-*/bin"), reverse=True)
    on_path = shutil.which("pulumi")
    if on_path:
        candidates.append(Path(on_path).parent)
    for candidate in candidates:
        if (candidate / "pulumi").exists() and (candidate / "pulumi-resource-kubernetes").exists():
            return candidate
    return None


def offline_env_module() -> ModuleType:
    """tools/offline_env.py, the one reader of the offline Pulumi settings."""
    spec = importlib.util.spec_from_file_location("offline_env", TOOLS / "offline_env.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module
