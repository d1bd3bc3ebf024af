"""The v1 oracle that tools/build-oracle-v1 builds: Training Operator v1.8.1's own code, run over v1 jobs.

`find_oracle_v1()` looks for it ($PULUMI_KFT_ORACLE_V1, which tools/test sets, else the tool cache);
the operator's examples/ are next to it (share/examples). `pods_of(files)` runs it once for all files.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pulumi-kubeflow-trainer"


def find_oracle_v1() -> Path | None:
    explicit = os.environ.get("PULUMI_KFT_ORACLE_V1")
    candidates = [Path(explicit)] if explicit else sorted(CACHE.glob("oracle-v1-*/bin/oracle-v1"), reverse=True)
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def examples_of(binary: Path) -> Path:
    """The operator's examples/ directory that tools/build-oracle-v1 copied from the same module."""
    return binary.parent.parent / "share" / "examples"


def answers(binary: Path, files: Iterable[Path], timeout: float = 300) -> dict[tuple[str, int], dict[str, Any]]:
    """(file, document number) -> the oracle's answer: the Pods (and ConfigMaps) v1 creates, or its error."""
    command = [str(binary), *map(str, files)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"oracle-v1 exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    found = {}
    for line in done.stdout.splitlines():
        answer = json.loads(line)
        found[(answer["file"], answer["document"])] = answer
    return found
