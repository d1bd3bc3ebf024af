"""The one error type of tools/cluster, and its log (stderr; stdout is for results)."""

from __future__ import annotations

import sys


class ClusterError(RuntimeError):
    """A failure `tools/cluster` reports as `ERROR: ...` and exit status 1, without a traceback."""


def log(message: str) -> None:
    print(f"[cluster] {message}", file=sys.stderr, flush=True)
