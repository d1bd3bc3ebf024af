"""The cluster dir: where a cluster keeps its data, certificates, configs, logs, pids and state."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pulumi-kubeflow-trainer"
DEFAULT_DIR = CACHE / "clusters" / "default"


class Layout:
    """DIR/pki (CAs, certs, token, service-account key), etcd/, config/, logs/, pids/, run/ (the
    components' cwd and self-signed serving certs), kubeconfig and cluster.json (ports, bin dir)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.pki = self.root / "pki"
        self.pids = self.root / "pids"
        self.logs = self.root / "logs"
        self.config = self.root / "config"
        self.etcd = self.root / "etcd"
        self.run = self.root / "run"
        self.state = self.root / "cluster.json"
        self.kubeconfig = self.root / "kubeconfig"

    def make(self) -> None:
        for path in (self.root, self.pki, self.pids, self.logs, self.config, self.etcd, self.run):
            path.mkdir(parents=True, exist_ok=True)
        self.pki.chmod(0o700)
        self.etcd.chmod(0o700)

    def load(self) -> dict[str, Any]:
        return json.loads(self.state.read_text()) if self.state.exists() else {}

    def save(self, state: dict[str, Any]) -> None:
        tmp = self.state.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
        tmp.replace(self.state)
