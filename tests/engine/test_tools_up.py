"""tools/up, the README's main command, through the real engine on a copy of the checkout: it runs the
example and leaves every tracked file as it was (`git status --porcelain` is empty), in render mode
and with --local-cluster, on the first run (which creates the stack) and on the next. The dev example
runs as a fresh clone's first `tools/up dev` does: tools/up makes its own .venv with pip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.toolchain import REPO, find_cluster_bin

pytestmark = pytest.mark.engine


def git(checkout: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=checkout, capture_output=True, text=True, check=True)
    return done.stdout


def checkout_copy(root: Path) -> Path:
    """The working tree's files as git sees them (tracked and new, not ignored), committed in a fresh
    repository: the files as they are now, whatever else the real checkout holds."""
    listed = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    copy = root / "checkout"
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():  # not a file: deleted in the working tree
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)  # keeps the exec bits of tools/*
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "-c", "user.name=tests", "-c", "user.email=tests@invalid", "commit", "-q", "-m", "copy")
    return copy


def tools_up(checkout: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([str(checkout / "tools" / "up"), *args], cwd=checkout, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"tools/up {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


def up_env(engine_env: dict[str, str], engine_bin: Path, own_venv: bool = False) -> dict[str, str]:
    """The test's toolchain, and the test's interpreter unless `own_venv`: then tools/up creates the
    checkout's .venv and pip-installs the package there, as on a user's first run."""
    env = {**engine_env, "PULUMI_KFT_BIN": str(engine_bin)}
    if own_venv:  # tools/up's pip, not the test's venv (its bin dir leads PATH here)
        env["PATH"] = os.pathsep.join(part for part in env["PATH"].split(os.pathsep) if ".venv" not in part)
        env.pop("VIRTUAL_ENV", None)
        return env
    return {**env, "PULUMI_KFT_UP_PYTHON": sys.executable}


@pytest.mark.parametrize(
    "example",
    [pytest.param("dev", marks=pytest.mark.index), "yaml"],
    ids=["the dev example in the venv tools/up makes", "the Pulumi YAML example (docs/yaml.md)"],
)
def test_tools_up_renders_the_example_and_writes_no_tracked_file(engine_env, engine_bin, tmp_path, example):
    checkout = checkout_copy(tmp_path)
    # The dev example's venv is pip's choice within constraints.txt: a newer pulumi-kubernetes than the
    # toolchain's provider failed a fresh clone's first run ("no resource plugin ... v4.34.2").
    env = up_env(engine_env, engine_bin, own_venv=example == "dev")

    first = tools_up(checkout, env, example)
    assert sorted((checkout / "out" / example / "1-manifest").glob("*.yaml")), "the manifests are rendered"
    if example == "dev":  # nothing a user cannot act on: no ambient-plugin or plugin-version warning
        assert "warning" not in (first.stdout + first.stderr).lower(), first.stdout
    assert git(checkout, "status", "--porcelain") == "", "the first run (it creates the stack) writes no tracked file"

    second = tools_up(checkout, env, example)
    assert git(checkout, "status", "--porcelain") == "", "the next run writes no tracked file either"
    if example == "yaml":
        assert "21 unchanged" in second.stdout, "the YAML example's second run changes nothing"


@pytest.mark.cluster
def test_tools_up_on_the_local_cluster_writes_no_tracked_file(engine_env, engine_bin, tmp_path):
    cluster_bin = find_cluster_bin()
    if cluster_bin is None:
        if os.environ.get("PULUMI_KFT_REQUIRE_CLUSTER") == "1":
            pytest.fail("no cluster binaries: run tools/bootstrap-cluster (PULUMI_KFT_REQUIRE_CLUSTER=1)")
        pytest.skip("no cluster binaries: run tools/bootstrap-cluster (or set PULUMI_KFT_CLUSTER_BIN)")
    checkout = checkout_copy(tmp_path)
    cluster_dir = tmp_path / "cluster"  # a cluster of its own: never the user's default one
    env = {**up_env(engine_env, engine_bin), "PULUMI_KFT_CLUSTER_BIN": str(cluster_bin), "PULUMI_KFT_CLUSTER_DIR": str(cluster_dir)}
    try:
        done = tools_up(checkout, env, "dev", "--local-cluster")
        assert "deployed to the local cluster" in done.stderr
        assert git(checkout, "status", "--porcelain") == "", "config set and the new stack write no tracked file"
        # The kubernetes provider copies the kubeconfig it is given to $TMPDIR and never deletes it.
        assert not list(Path(env["TMPDIR"]).rglob("kubeconfig*")), "tools/up removes the provider's copy of the credentials"
    finally:
        subprocess.run([str(checkout / "tools" / "cluster"), "down", "--dir", str(cluster_dir)], env=env, capture_output=True, timeout=120)
