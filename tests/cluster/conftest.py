"""A real local control plane (tools/cluster: etcd, kube-apiserver, kube-controller-manager,
kube-scheduler, the scheduler-plugins coscheduling scheduler, the JobSet controller and kwok) driven
by the real Pulumi engine.

Tests here are marked `cluster`. They skip when the binaries of tools/bootstrap-cluster or
tools/bootstrap are absent, unless PULUMI_KFT_REQUIRE_CLUSTER=1, where that is a failure. One
cluster serves the package on each pytest-xdist worker that runs cluster tests (started once, stopped
by process id when the worker leaves the package); the controller-mode tests share another.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.toolchain import CACHE, TOOLS, find_cluster_bin, find_engine_bin, isolated_engine_env

from .reader import ClusterReader

PASSPHRASE = "cluster-tests"
# tools/cluster, or another launcher of tools/localcluster (for trying a change of it).
LAUNCHER = Path(os.environ.get("PULUMI_KFT_CLUSTER_LAUNCHER") or TOOLS / "cluster")


def pytest_configure(config: pytest.Config) -> None:
    # Also belongs in pyproject.toml's markers; registering it here keeps --strict-markers happy either way.
    config.addinivalue_line("markers", "cluster: needs the local control plane of tools/bootstrap-cluster (tools/cluster)")


def _missing(message: str) -> None:
    if os.environ.get("PULUMI_KFT_REQUIRE_CLUSTER") == "1":
        pytest.fail(message + " (PULUMI_KFT_REQUIRE_CLUSTER=1)")
    pytest.skip(message)


class Cluster:
    """The running cluster: its kubeconfig, reads through the Kubernetes client (`reader.py`) and kubectl
    for writes (server-side apply, patch, delete) and diagnostics."""

    def __init__(self, root: Path, bin_dir: Path) -> None:
        self.root = root
        self.bin_dir = bin_dir
        self.kubeconfig = root / "kubeconfig"
        self.reader = ClusterReader(self.kubeconfig)

    def kubectl(self, *args: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [str(self.bin_dir / "kubectl"), f"--kubeconfig={self.kubeconfig}", *args],
            input=stdin, capture_output=True, text=True, timeout=120,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)}: {result.stderr.strip()}")
        return result

    def get(self, kind: str, name: str, namespace: str | None = "default") -> dict[str, Any] | None:
        """The live object (managedFields included), or None when the API server says NotFound; `kind` as
        kubectl names it (`pods`, `jobsets.jobset.x-k8s.io`, `workloads.v1beta2.kueue.x-k8s.io`)."""
        return self.reader.get(kind, name, namespace)

    def list(self, kind: str, namespace: str | None = "default", selector: str | None = None) -> list[dict[str, Any]]:
        return self.reader.list(kind, namespace, selector)

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


def cluster_up(argv: list[str], env: dict[str, str] | None = None) -> str:
    """`tools/cluster up ...`; its stdout. Once more when a component found its port taken: tools/cluster
    picks free loopback ports and the components bind them a few seconds later, and in between
    another process on the machine (another worker's cluster, a test's connection) can take one; the
    second `up` keeps the ports that are still free and picks new ones for the rest."""
    for attempt in (1, 2):
        result = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=env)
        if result.returncode == 0:
            return result.stdout
        if attempt == 1 and "address already in use" in result.stderr:
            print(f"\n{' '.join(argv[:2])}: a port was taken meanwhile; once more")
            continue
        pytest.fail(f"{' '.join(argv[:2])} failed:\n{result.stderr[-6000:]}")
    raise AssertionError("unreachable")


def start_cluster(root: Path, cluster_bin: Path, reference: Path) -> Cluster:
    """`tools/cluster up` in `root`, with the fetched reference's CRDs (Trainer, JobSet, both PodGroups),
    so that tests never fetch."""
    argv = [str(LAUNCHER), "up", "--dir", str(root), "--bin", str(cluster_bin), "--timeout", "180",
            "--crds", str(reference / "crds")]
    started = time.monotonic()
    kubeconfig = cluster_up(argv).strip().splitlines()[-1]
    print(f"\ncluster up in {time.monotonic() - started:.1f}s: {kubeconfig}")
    return Cluster(root, cluster_bin)


def stop_cluster(cluster: Cluster) -> None:
    # PVCs the JobSets left behind (volumeClaimPolicies retain them): deleting them lets the
    # controller manager delete their hostPath PVs and the /tmp/hostpath_pv/<uid> directories.
    cluster.kubectl("delete", "pvc", "--all", "-A", "--wait=true", "--timeout=60s", check=False)
    cluster.wait("the provisioned volumes to be deleted", lambda: not cluster.list("pv", None), timeout=60)
    cluster.reader.close()
    subprocess.run([str(LAUNCHER), "down", "--dir", str(cluster.root)], timeout=120, check=False)


@pytest.fixture(scope="package")
def cluster(cluster_bin: Path, engine_bin: Path, reference: Path, tmp_path_factory: pytest.TempPathFactory):
    """The package's cluster. Package scope: stopped once a worker leaves tests/cluster (pytest-xdist
    runs the cluster tests in groups, each on one worker: tests/conftest.py), not kept idle to the
    end of the session."""
    cluster = start_cluster(tmp_path_factory.mktemp("cluster"), cluster_bin, reference)
    try:
        yield cluster
    finally:
        stop_cluster(cluster)


def find_controller() -> Path | None:
    """$PULUMI_KFT_TRAINER_CONTROLLER, else the one tools/build-oracle builds beside the oracle."""
    explicit = os.environ.get("PULUMI_KFT_TRAINER_CONTROLLER")
    oracle = os.environ.get("PULUMI_KFT_ORACLE")
    candidates = [Path(explicit)] if explicit else [Path(oracle).parent / "trainer-controller-manager"] if oracle else []
    candidates += sorted(CACHE.glob("oracle-*/bin/trainer-controller-manager"), reverse=True)
    return next((c for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)


@pytest.fixture(scope="package")
def controller_cluster(cluster_bin: Path, engine_bin: Path, reference: Path,
                       tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A cluster of `tools/cluster up --trainer-controller` (upstream's Trainer controller manager, Kueue
    with its TrainJob integration), shared by the controller-mode tests (test_controller_*.py)."""
    controller = find_controller()
    if controller is None:
        _missing("no Trainer controller manager: run tools/build-oracle (or set PULUMI_KFT_TRAINER_CONTROLLER)")
    root = tmp_path_factory.mktemp("controller-cluster")
    argv = [str(LAUNCHER), "up", "--dir", str(root), "--bin", str(cluster_bin), "--timeout", "180",
            "--crds", str(reference / "crds"), "--trainer-controller"]
    started = time.monotonic()
    cluster_up(argv, {**os.environ, "PULUMI_KFT_TRAINER_CONTROLLER": str(controller)})  # never a build from a test
    print(f"\ncluster with the Trainer controller up in {time.monotonic() - started:.1f}s")
    cluster = Cluster(root, cluster_bin)
    try:
        yield cluster
    finally:
        cluster.reader.close()
        subprocess.run([str(LAUNCHER), "down", "--dir", str(root)], timeout=120, check=False)


@pytest.fixture
def stack_env(engine_bin: Path, controller_cluster: Cluster, tmp_path: Path,
              monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """cluster_env for the controller cluster."""
    env = isolated_engine_env(engine_bin, tmp_path, PASSPHRASE)
    # The drift check runs in the engine's dynamic-provider process and reads $KUBECONFIG; the
    # inline program runs here (restored afterwards).
    env["KUBECONFIG"] = str(controller_cluster.kubeconfig)
    monkeypatch.setenv("KUBECONFIG", str(controller_cluster.kubeconfig))
    return env


@pytest.fixture
def cluster_env(engine_bin: Path, cluster: Cluster, tmp_path: Path) -> dict[str, str]:
    """Offline Pulumi settings with a private backend and PULUMI_HOME for this test, pointed at the cluster."""
    env = isolated_engine_env(engine_bin, tmp_path, PASSPHRASE)
    # Never the user's ~/.kube/config: the SDK hands $KUBECONFIG to providers that set none.
    env["KUBECONFIG"] = str(cluster.kubeconfig)
    return env
