"""What the watching tests share (test_watch.py, and controller mode's in test_controller_mode.py): an
exec-credential kubeconfig for a local cluster, the `trainjob` CLI run as a user runs it, and the
lines kwok serves as every Pod's log (tools/localcluster/files/kwok-pod.log)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.toolchain import TOOLS

from .conftest import Cluster

LOG_FILES = TOOLS / "localcluster" / "files"
# A plugin as aws eks get-token or gke-gcloud-auth-plugin is: prints an ExecCredential with the token,
# and counts its runs (so a test can tell that the exec path, not a token in the file, was used).
CREDENTIAL_PLUGIN = """import json, pathlib, sys
calls = pathlib.Path(sys.argv[1])
calls.write_text(str(int(calls.read_text() or 0) + 1) if calls.exists() else "1")
print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": {"token": pathlib.Path(sys.argv[2]).read_text().strip()}}))
"""


def served_log(name: str = "kwok-pod.log") -> list[str]:
    """The text of each line of a CRI log file kwok serves (after time, stream and tag)."""
    return [line.split(" ", 3)[3] for line in (LOG_FILES / name).read_text().splitlines()]


@dataclass
class ExecKubeconfig:
    path: Path
    calls: Path

    def runs(self) -> int:
        return int(self.calls.read_text()) if self.calls.exists() else 0


def exec_kubeconfig(cluster: Cluster, directory: Path) -> ExecKubeconfig:
    """The cluster's kubeconfig with its token user replaced by an exec credential plugin."""
    config = yaml.safe_load(cluster.kubeconfig.read_text())
    directory.mkdir(parents=True, exist_ok=True)
    token, plugin, calls = directory / "token", directory / "credential.py", directory / "plugin-runs"
    token.write_text(config["users"][0]["user"]["token"])
    token.chmod(0o600)
    plugin.write_text(CREDENTIAL_PLUGIN)
    config["users"][0]["user"] = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                                           "args": [str(plugin), str(calls), str(token)], "interactiveMode": "Never"}}
    path = directory / "exec-kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return ExecKubeconfig(path, calls)


@dataclass
class Ran:
    code: int
    out: str
    err: str
    seconds: float

    def json(self) -> Any:
        return json.loads(self.out)


def trainjob(kubeconfig: Path, *args: str, timeout: float = 120) -> Ran:
    """`trainjob ARGS --kubeconfig FILE` in a new process, as a user runs it (process start included)."""
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "pulumi_kubeflow_trainer", *args, "--kubeconfig", str(kubeconfig)],
                            capture_output=True, text=True, timeout=timeout, env={"PATH": "/usr/bin:/bin", "COLUMNS": "150"})
    return Ran(result.returncode, result.stdout, result.stderr, time.monotonic() - started)


def followed(kubeconfig: Path, name: str, lines: int, *args: str, timeout: float = 60) -> list[str]:
    """The first `lines` lines of `trainjob logs NAME -f`, then the process stopped (kwok serves a
    followed log as a kubelet does a running container's: it never ends)."""
    argv = [sys.executable, "-m", "pulumi_kubeflow_trainer", "logs", name, "-f", *args, "--kubeconfig", str(kubeconfig)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={"PATH": "/usr/bin:/bin"})
    read: list[str] = []
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    try:
        while len(read) < lines and (line := process.stdout.readline()):  # type: ignore[union-attr]
            read.append(line.rstrip("\n"))
    finally:
        timer.cancel()
        process.kill()
        process.wait()
    return read


def states(kubeconfig: Path, namespace: str = "default") -> dict[str, str]:
    ran = trainjob(kubeconfig, "list", "-n", namespace, "-o", "json")
    assert ran.code == 0, ran.err
    return {row["name"]: row["state"] for row in ran.json()}
