"""Progress lines on stderr: files, bytes and rate, at most one line per interval.

Initializer logs end up in `kubectl logs`, where a line per file or a carriage-return progress
bar is noise; a periodic summary line is what an operator can read.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

DEFAULT_INTERVAL_SECONDS = 5.0


def format_bytes(count: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(count) < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError("unreachable")


class TransferProgress:
    """Thread-safe counters with throttled reporting."""

    def __init__(
        self,
        label: str,
        total_files: int,
        total_bytes: int,
        stream: TextIO | None = None,
        interval: float = DEFAULT_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.total_files = total_files
        self.total_bytes = total_bytes
        self.files_done = 0
        self.bytes_done = 0
        self._stream = stream
        self.interval = interval
        self._clock = clock
        self._started = clock()
        self._last_report = self._started
        self._lock = threading.Lock()

    def info(self, message: str) -> None:
        stream = self._stream or sys.stderr
        print(f"[{self.label}] {message}", file=stream, flush=True)

    def add_bytes(self, count: int) -> None:
        with self._lock:
            self.bytes_done += count
            due = self._clock() - self._last_report >= self.interval
            if due:
                self._last_report = self._clock()
        if due:
            self.info(self.status_line())

    def file_done(self) -> None:
        with self._lock:
            self.files_done += 1

    def elapsed(self) -> float:
        return max(self._clock() - self._started, 1e-9)

    def status_line(self) -> str:
        rate = self.bytes_done / self.elapsed()
        return (
            f"{self.files_done}/{self.total_files} files, "
            f"{format_bytes(self.bytes_done)}/{format_bytes(self.total_bytes)}, "
            f"{format_bytes(rate)}/s"
        )

    def finish(self) -> None:
        self.info(f"downloaded {self.status_line()} in {self.elapsed():.1f}s")


def directory_size(root: Path) -> int:
    """Bytes below `root` (incomplete downloads included); unreadable entries count as 0."""
    total = 0
    for directory, _, names in os.walk(root):
        for name in names:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                pass
    return total


class DirectoryGrowthReporter:
    """Reports how a directory grows while a library we do not instrument fills it."""

    def __init__(self, root: Path, progress: TransferProgress) -> None:
        self._root = root
        self._progress = progress
        self._baseline = directory_size(root) if root.exists() else 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="progress", daemon=True)

    def __enter__(self) -> DirectoryGrowthReporter:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self._progress.interval):
            grown = max(directory_size(self._root) - self._baseline, 0)
            self._progress.bytes_done = grown
            self._progress.info(self._progress.status_line())
