"""Mapping remote names (S3 keys, Hub file paths) to files that are guaranteed to be inside --output.

A remote name is refused, rather than sanitised, when it is not a plain relative path: silently
rewriting `a/../b` to `b` could make two keys collide or shadow each other. Existing symlinks in
the output tree are refused too, because a rename into a symlinked directory lands outside.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from .errors import UnsafePathError

MANIFEST_NAME = ".initializer-manifest.json"
JOURNAL_NAME = ".initializer-manifest.journal"
STAGING_DIR_NAME = ".initializer-staging"
# Top-level names the initializer itself writes; a remote file must not overwrite them.
RESERVED_TOP_LEVEL_NAMES = frozenset({MANIFEST_NAME, JOURNAL_NAME, STAGING_DIR_NAME})

_MAX_NAME_BYTES = 255
_MAX_REPORTED = 5


def path_problem(relative_path: str) -> str | None:
    """Why `relative_path` cannot be written below the output directory, or None when it can."""
    if not relative_path:
        return "empty path"
    if relative_path.startswith("/"):
        return "absolute path"
    if "\\" in relative_path:
        return "backslash in path"
    if any(ord(character) < 0x20 or character == "\x7f" for character in relative_path):
        return "control character in path"
    segments = relative_path.split("/")
    if segments[0] in RESERVED_TOP_LEVEL_NAMES:
        return f"reserved name {segments[0]!r}"
    for segment in segments:
        if segment in ("", ".", ".."):
            return f"path segment {segment!r} is not a plain name"
        if len(segment.encode("utf-8", "surrogateescape")) > _MAX_NAME_BYTES:
            return "path segment longer than 255 bytes"
    return None


def describe_unsafe(problems: list[tuple[str, str]]) -> str:
    """One line naming the first few unsafe names and the total count."""
    shown = "; ".join(f"{name!r}: {reason}" for name, reason in problems[:_MAX_REPORTED])
    more = f" (and {len(problems) - _MAX_REPORTED} more)" if len(problems) > _MAX_REPORTED else ""
    return (
        f"refusing to download: {len(problems)} remote name(s) would not stay inside the output "
        f"directory: {shown}{more}; nothing was written"
    )


class OutputRoot:
    """The --output directory; hands out target paths only after checking them."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(os.path.abspath(path))
        # The root itself may be a symlink (e.g. to a mounted volume); everything below may not.
        self.real_path = Path(os.path.realpath(self.path))
        self._checked_directories: set[str] = set()

    def target_problem(self, relative_path: str) -> str | None:
        """Check the name, then every existing component on disk below the root."""
        problem = path_problem(relative_path)
        if problem is not None:
            return problem
        segments = relative_path.split("/")
        current = self.real_path
        for depth, segment in enumerate(segments):
            current = current / segment
            is_last = depth == len(segments) - 1
            if not is_last and str(current) in self._checked_directories:
                continue
            problem = _existing_component_problem(current, is_last)
            if problem is not None:
                return problem
            if not is_last:
                self._checked_directories.add(str(current))
        return None

    def target_path(self, relative_path: str) -> Path:
        """The absolute target of a checked relative path."""
        target = self.real_path.joinpath(*relative_path.split("/"))
        if os.path.commonpath([self.real_path, target]) != str(self.real_path):
            raise UnsafePathError(f"{relative_path!r} resolves outside the output directory")
        return target


def _existing_component_problem(path: Path, is_last: bool) -> str | None:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(mode):
        return f"existing symlink {path.name!r} in the output directory"
    if is_last and stat.S_ISDIR(mode):
        return "a directory already exists where the file would go"
    if not is_last and not stat.S_ISDIR(mode):
        return f"existing file {path.name!r} is where a directory would go"
    return None


def find_layout_conflicts(relative_paths: Iterable[str]) -> list[tuple[str, str]]:
    """Paths that collide with each other: duplicates, or a file that is also a directory."""
    files: set[str] = set()
    conflicts: list[tuple[str, str]] = []
    ordered = sorted(relative_paths)
    for relative_path in ordered:
        if relative_path in files:
            conflicts.append((relative_path, "two remote names map to the same file"))
        files.add(relative_path)
    for relative_path in ordered:
        parts = relative_path.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if parent in files:
                conflicts.append((relative_path, f"{parent!r} is both a file and a directory"))
                break
    return conflicts
