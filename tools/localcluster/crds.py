"""The CRDs every cluster gets: the upstream reference's crds/ (Trainer, JobSet, scheduler-plugins and
Volcano PodGroup), installed with server-side apply and waited for until Established."""

from __future__ import annotations

import os
from pathlib import Path

from .binaries import last_line_of
from .errors import ClusterError, log
from .kubectl import Kubectl


def crds_dir(explicit: str | None) -> Path:
    """--crds, else $PULUMI_KFT_CRDS, else crds/ of the upstream reference that tools/fetch-reference
    keeps in the cache."""
    chosen = Path(explicit or os.environ.get("PULUMI_KFT_CRDS") or fetched_reference() / "crds")
    if not chosen.is_dir():
        raise ClusterError(f"CRD dir {chosen} does not exist")
    return chosen


def fetched_reference() -> Path:
    log("running tools/fetch-reference (fetches the upstream CRDs on first use; warm: well under a second)")
    return Path(last_line_of("fetch-reference", "tools/fetch-reference failed (its log is above); or pass --crds DIR"))


def install_crds(kubectl: Kubectl, crds: Path, timeout: float) -> None:
    files = sorted(crds.rglob("*.yaml"))
    if not files:
        # Without the PodGroup and Trainer CRDs the gang and platform stacks fail later, less clearly.
        raise ClusterError(f"no CRD files (*.yaml) under {crds}")
    names = []
    for path in files:
        # Server-side: the trainer runtime CRDs (680 KB) exceed the client-side apply annotation limit.
        names += kubectl.apply("-f", str(path), "-o", "name").stdout.split()
    kubectl("wait", "--for=condition=Established", *names, f"--timeout={timeout}s")
    log(f"installed {len(names)} CRDs: {' '.join(name.split('/', 1)[1] for name in names)}")
