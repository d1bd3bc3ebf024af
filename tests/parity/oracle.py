"""The parity oracle that tools/build-oracle builds: upstream Trainer's own code, run over our inputs.

`find_oracle()` looks for it ($PULUMI_KFT_ORACLE, which tools/test sets, else the tool cache);
`Oracle.batch()` sends many inputs to one process (JSON lines in, JSON lines out).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pulumi-kubeflow-trainer"


def find_oracle() -> Path | None:
    explicit = os.environ.get("PULUMI_KFT_ORACLE")
    candidates = [Path(explicit)] if explicit else sorted(CACHE.glob("oracle-*/bin/oracle"), reverse=True)
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


@dataclass(frozen=True)
class Request:
    id: str
    yaml: str
    runs: int = 2
    mask: bool = True
    normalize: tuple[dict[str, Any], ...] = ()


@dataclass
class Answer:
    id: str
    variants: list[dict[str, Any]]  # {"objects": [...], "errors": [...], "stage": ..., "panic": ...}
    normalized: list[dict[str, Any]]


class Oracle:
    def __init__(self, binary: Path, crd_dirs: Iterable[Path] = ()) -> None:
        self.binary = binary
        self.crd_dirs = list(crd_dirs)

    def batch(self, requests: list[Request], timeout: float = 600) -> dict[str, Answer]:
        """One oracle process for all the requests."""
        command = [str(self.binary), "--batch"]
        for crd_dir in self.crd_dirs:
            command += ["--crds", str(crd_dir)]
        payload = "".join(
            json.dumps({"id": r.id, "yaml": r.yaml, "runs": r.runs, "mask": r.mask, "normalize": list(r.normalize)}) + "\n"
            for r in requests
        )
        done = subprocess.run(command, input=payload, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"oracle failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        answers = {}
        for line in done.stdout.splitlines():
            data = json.loads(line)
            answers[data["id"]] = Answer(data["id"], data["variants"], data["normalized"])
        missing = [r.id for r in requests if r.id not in answers]
        if missing:
            raise RuntimeError(f"oracle gave no answer for {missing[:5]} ({len(missing)} requests)")
        return answers
