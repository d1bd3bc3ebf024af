"""Where the tests find the toolchains that tools/bootstrap and tools/bootstrap-cluster build."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO / "tools"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pulumi-kubeflow-trainer"

CLUSTER_BINARIES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "scheduler-plugins", "kubectl",
                    "jobset", "kwok", "kueue")


def required(found: Path | None, message: str) -> Path:
    """A built tool the tests need: skipped without it, failed under PULUMI_KFT_REQUIRE_ENGINE=1 (.ci/run)."""
    if found is None:
        if os.environ.get("PULUMI_KFT_REQUIRE_ENGINE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


def find_cluster_bin() -> Path | None:
    """tools/bootstrap-cluster's bin dir: $PULUMI_KFT_CLUSTER_BIN, else the newest one in the cache."""
    explicit = os.environ.get("PULUMI_KFT_CLUSTER_BIN")
    candidates = [Path(explicit)] if explicit else sorted(CACHE.glob("cluster-*/bin"), reverse=True)
    for candidate in candidates:
        if all(os.access(candidate / name, os.X_OK) for name in CLUSTER_BINARIES):
            return candidate
    return None


def find_engine_bin() -> Path | None:
    """The Pulumi CLI and kubernetes provider: $PULUMI_KFT_BIN, the bootstrap cache, or PATH."""
    explicit = os.environ.get("PULUMI_KFT_BIN")
    candidates = [Path(explicit)] if explicit else []
    candidates += sorted(CACHE.glob("tools-*/bin"), reverse=True)
    on_path = shutil.which("pulumi")
    if on_path:
        candidates.append(Path(on_path).parent)
    for candidate in candidates:
        provider = [candidate / "pulumi-resource-kubernetes", candidate.parent / "provider" / "pulumi-resource-kubernetes"]
        if (candidate / "pulumi").exists() and any(path.exists() for path in provider):
            return candidate
    return None


def offline_env_module() -> ModuleType:
    """tools/offline_env.py, the one reader of the offline Pulumi settings."""
    spec = importlib.util.spec_from_file_location("offline_env", TOOLS / "offline_env.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def isolated_engine_env(bin_dir: Path, tmp_path: Path, passphrase: str) -> dict[str, str]:
    """Offline Pulumi settings with a backend, PULUMI_HOME and TMPDIR private to one test, and no
    $KUBECONFIG: render mode refuses one, and a cluster test must never reach the user's ~/.kube/config.

    TMPDIR: the kubernetes provider writes a copy of its kubeconfig (the cluster's credentials) to
    `$TMPDIR/kubeconfig<digits>` every time it is configured with one, for Helm, and never deletes it;
    here the copies go with the test's directory."""
    state = tmp_path / "state"
    state.mkdir()
    engine_tmp = tmp_path / "tmp"
    engine_tmp.mkdir()
    venv_python = REPO / ".venv" / "bin" / "python"
    env = offline_env_module().load(
        bin_dir,
        overrides={
            "PULUMI_BACKEND_URL": f"file://{state}",
            "PULUMI_CONFIG_PASSPHRASE": passphrase,
            "PULUMI_HOME": str(tmp_path / "pulumi-home"),
        },
        python=str(venv_python) if venv_python.exists() else None,
    )
    env.pop("KUBECONFIG", None)
    env["TMPDIR"] = str(engine_tmp)
    return env


def inline_stack(stack: str, project: str, program: Callable[[], None], env: dict[str, str], bin_dir: Path):  # -> auto.Stack
    """A stack of an inline program on the engine of `bin_dir`, with the state, PULUMI_HOME and the
    workspace's directory all under the root of `env` (the SDK's own default, a new /tmp/automation-*
    directory per stack, is never removed)."""
    import pulumi.automation as auto

    work_dir = Path(env["PULUMI_HOME"]).parent / f"workspace-{project}-{stack}"
    work_dir.mkdir(parents=True, exist_ok=True)
    options = auto.LocalWorkspaceOptions(
        work_dir=str(work_dir),
        env_vars=env,
        pulumi_home=env["PULUMI_HOME"],
        secrets_provider="passphrase",
        pulumi_command=auto.PulumiCommand(root=str(bin_dir.parent)),
        project_settings=auto.ProjectSettings(name=project, runtime="python", backend=auto.ProjectBackend(url=env["PULUMI_BACKEND_URL"])),
    )
    return auto.create_stack(stack, project_name=project, program=program, opts=options)


def example_stack(name: str, env: dict[str, str], bin_dir: Path, root: Path):  # -> auto.Stack
    """A stack of the example program, on a copy of the project (stack config files get written)."""
    import pulumi.automation as auto

    project = root / "project"
    project.mkdir()
    shutil.copy(REPO / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copytree(REPO / "stacks", project / "stacks", ignore=shutil.ignore_patterns("__pycache__", "Pulumi.*-local.yaml"))
    for config in (project / "stacks").glob("Pulumi.*.yaml"):  # a local `tools/up` salts them for its passphrase
        lines = config.read_text().splitlines(keepends=True)
        config.write_text("".join(line for line in lines if not line.startswith("encryptionsalt:")))
    options = auto.LocalWorkspaceOptions(
        work_dir=str(project),
        pulumi_home=env["PULUMI_HOME"],
        env_vars=env,
        pulumi_command=auto.PulumiCommand(root=str(bin_dir.parent)),
        secrets_provider="passphrase",
    )
    return auto.create_stack(name, work_dir=str(project), opts=options)
