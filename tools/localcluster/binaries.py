"""The bin dir of tools/bootstrap-cluster, and running the repo's other tools for their last stdout line."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from .errors import ClusterError, log
from .layout import REPO


def last_line_of(tool: str, failure: str) -> str:
    """Run tools/TOOL (its log goes to our stderr) and return the last line of its stdout."""
    result = subprocess.run([str(REPO / "tools" / tool)], stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise ClusterError(failure)
    return result.stdout.strip().splitlines()[-1]


def find_bin(explicit: str | None, binaries: Iterable[str]) -> Path:
    """--bin, else $PULUMI_KFT_CLUSTER_BIN, else what tools/bootstrap-cluster builds; it must hold every binary."""
    candidate = explicit or os.environ.get("PULUMI_KFT_CLUSTER_BIN")
    if not candidate:
        log("running tools/bootstrap-cluster (builds the binaries on first use; warm: well under a second)")
        candidate = last_line_of("bootstrap-cluster", "tools/bootstrap-cluster failed (its log is above)")
    bin_dir = Path(candidate).resolve()
    missing = [name for name in binaries if not os.access(bin_dir / name, os.X_OK)]
    if missing:
        raise ClusterError(f"{bin_dir} lacks {', '.join(missing)}; run tools/bootstrap-cluster")
    return bin_dir
