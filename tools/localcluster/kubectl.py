"""The built kubectl against this cluster's kubeconfig."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .errors import ClusterError

FIELD_MANAGER = "kubeflow-trainer-cluster"


class Kubectl:
    def __init__(self, bin_dir: Path, kubeconfig: Path) -> None:
        self.argv = [str(bin_dir / "kubectl"), f"--kubeconfig={kubeconfig}"]

    def __call__(self, *args: str, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([*self.argv, *args], input=stdin, capture_output=True, text=True)
        if check and result.returncode != 0:
            raise ClusterError(f"kubectl {' '.join(args)} failed: {result.stderr.strip() or result.stdout.strip()}")
        return result

    def ok(self, *args: str, stdin: str | None = None) -> bool:
        return self(*args, stdin=stdin, check=False).returncode == 0

    def apply(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """Server-side apply, owning every field it sets (the CRDs exceed client-side apply's annotation limit)."""
        return self("apply", "--server-side", "--force-conflicts", f"--field-manager={FIELD_MANAGER}", *args,
                    stdin=stdin)

    def server_version(self) -> str:
        result = self("version", "-o", "json", check=False)
        try:
            return json.loads(result.stdout)["serverVersion"]["gitVersion"]
        except (ValueError, KeyError):
            return "?"
