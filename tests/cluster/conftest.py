"""A real local control plane (tools/cluster: etcd, kube-apiserver, kube-controller-manager,
kube-scheduler, the scheduler-plugins coscheduling scheduler, the JobSet controller and kwok) driven
by the real Pulumi engine.

Tests here are marked `cluster`. They skip when the binaries of tools/bootstrap-cluster or
tools/bootstrap are absent, unless PULUMI_KFT_REQUIRE_CLUSTER=1, where that is a failure. One
cluster serves the whole session (started once, stopped at the end by process id).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.toolchain import TOOLS, find_cluster_bin, find_engine_bin, isolated_engine_env

PASSPHRASE = "cluster-tests"


def pytest_configure(config: pytest.Config) -> None:
    # Also belongs in pyproject.toml's markers; registering it here keeps --strict-markers happy either way.
    config.addinivalue_line("markers", "cluster: needs the local control plane of tools/bootstrap-cluster (tools/cluster)")


def _missing(message: str) -> None:
    if os.environ.get("PULUMI_KFT_REQUIRE_CLUSTER") == "1":
        pytest.fail(message + " (PULUMI_KFT_REQUIRE_CLUSTER=1)")
    pytest.skip(message)


class Cluster:
    """The running cluster: its kubeconfig and a small kubectl-based client for assertions."""

    def __init__(self, root: Path, bin_dir: Path) -> None:
        self.root = root
        self.bin_dir = bin_dir
        self.kubeconfig = root / "kubeconfig"

    def kubectl(self, *args: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [str(self.bin_dir / "kubectl"), f"--kubeconfig={self.kubeconfig}", *args],
            input=stdin, capture_output=True, text=True, timeout=120,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)}: {result.stderr.strip()}")
        return result

    def get(self, kind: str, name: str, namespace: str | None = "default") -> dict[str, Any] | None:
        """The live object, or None when the API server says NotFound."""
        args = ["get", kind, name, "-o", "json", "--show-managed-fields"] + (["-n", namespace] if namespace else [])
        result = self.kubectl(*args, check=False)
        if result.returncode != 0:
            if "NotFound" in result.stderr or "not found" in result.stderr:
                return None
            raise AssertionError(f"kubectl {' '.join(args)}: {result.stderr.strip()}")
        return json.loads(result.stdout)

    def list(self, kind: str, namespace: str = "default", selector: str | None = None) -> list[dict[str, Any]]:
        args = ["get", kind, "-n", namespace, "-o", "json"] + (["-l", selector] if selector else [])
        return json.loads(self.kubectl(*args).stdout)["items"]

    def wait(self, what: str, check: Callable[[], Any], timeout: float = 120.0, interval: float = 0.5) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = check()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}\n{self.diagnostics()}")
            time.sleep(interval)

    def jobset_condition(self, name: str, kind: str, namespace: str = "default") -> dict[str, Any] | None:
        jobset = self.get("jobsets.jobset.x-k8s.io", name, namespace) or {}
        for condition in (jobset.get("status") or {}).get("conditions") or []:
            if condition.get("type") == kind and condition.get("status") == "True":
                return condition
        return None

    def diagnostics(self) -> str:
        """What a failing assertion needs to be understood: the objects, recent events, log tails."""
        parts = [self.kubectl("get", "jobsets,jobs,pods,podgroups.scheduling.x-k8s.io,nodes", "-A", "-o", "wide", check=False).stdout]
        parts.append(self.kubectl("get", "events", "-A", "--sort-by=.lastTimestamp", check=False).stdout[-4000:])
        for name in ("jobset", "kwok", "kube-controller-manager", "kube-scheduler", "scheduler-plugins"):
            log = self.root / "logs" / f"{name}.log"
            if log.exists():
                parts.append(f"--- {name}.log (tail)\n" + "\n".join(log.read_text(errors="replace").splitlines()[-15:]))
        return "\n".join(parts)


@pytest.fixture(scope="session")
def cluster_bin() -> Path:
    found = find_cluster_bin()
    if found is None:
        _missing("no local control plane binaries: run tools/bootstrap-cluster (or set PULUMI_KFT_CLUSTER_BIN)")
    return found  # type: ignore[return-value]


@pytest.fixture(scope="session")
def engine_bin() -> Path:
    found = find_engine_bin()
    if found is None:
        _missing("no Pulumi toolchain: run tools/bootstrap (or set PULUMI_KFT_BIN)")
    return found  # type: ignore[return-value]


def start_cluster(root: Path, cluster_bin: Path, reference: Path) -> Cluster:
    """`tools/cluster up` in `root`, with the fetched reference's CRDs (Trainer, JobSet, both PodGroups),
    so that tests never fetch."""
    argv = [str(TOOLS / "cluster"), "up", "--dir", str(root), "--bin", str(cluster_bin), "--timeout", "180",
            "--crds", str(reference / "crds")]
    started = time.monotonic()
    result = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        pytest.fail(f"tools/cluster up failed:\n{result.stderr[-6000:]}")
    print(f"\ncluster up in {time.monotonic() - started:.1f}s: {result.stdout.strip().splitlines()[-1]}")
    return Cluster(root, cluster_bin)


def stop_cluster(cluster: Cluster) -> None:
    # PVCs the JobSets left behind (volumeClaimPolicies retain them): deleting them lets the
    # controller manager delete their hostPath PVs and the /tmp/hostpath_pv/<uid> directories.
    cluster.kubectl("delete", "pvc", "--all", "-A", "--wait=true", "--timeout=60s", check=False)
    cluster.wait("the provisioned volumes to be deleted", lambda: not cluster.kubectl(
        "get", "pv", "-o", "name", check=False).stdout.strip(), timeout=60)
    subprocess.run([str(TOOLS / "cluster"), "down", "--dir", str(cluster.root)], timeout=120, check=False)


@pytest.fixture(scope="session")
def cluster(cluster_bin: Path, engine_bin: Path, reference: Path, tmp_path_factory: pytest.TempPathFactory):
    cluster = start_cluster(tmp_path_factory.mktemp("cluster"), cluster_bin, reference)
    try:
        yield cluster
    finally:
        stop_cluster(cluster)


@pytest.fixture
def cluster_env(engine_bin: Path, cluster: Cluster, tmp_path: Path) -> dict[str, str]:
    """Offline Pulumi settings with a private backend and PULUMI_HOME for this test, pointed at the cluster."""
    env = isolated_engine_env(engine_bin, tmp_path, PASSPHRASE)
    # Never the user's ~/.kube/config: the SDK hands $KUBECONFIG to providers that set none.
    env["KUBECONFIG"] = str(cluster.kubeconfig)
    return env
