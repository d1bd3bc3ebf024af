"""The checksum manifest written into the output directory.

`.initializer-manifest.json` (written atomically at the end of a successful run):

    {
      "format": "pulumi-kubeflow-trainer/initializer-manifest/v1",
      "source": "s3://bucket/prefix",          # STORAGE_URI as downloaded
      "revision": "<commit sha>",              # Hugging Face only
      "files": [
        {"path": "train/part-0.parquet",       # relative to the output directory, "/"-separated
         "size": 1234,                         # bytes
         "sha256": "<hex>",                    # of the local file
         "etag": "\"<etag>\"",                 # S3 ETag (quoted, as S3 returns it) or Hub blob id
         "source": "prefix/train/part-0.parquet"}   # S3 key or Hub path
      ]
    }

While a run is in progress every finished file is appended as one JSON line to
`.initializer-manifest.journal`. A run that is killed therefore leaves a record of what it
completed; the next run replays the journal and skips those files (the file system does not
keep the ETag that says whether a local file is still the remote object's current version).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from .safe_paths import JOURNAL_NAME, MANIFEST_NAME, STAGING_DIR_NAME

MANIFEST_FORMAT = "pulumi-kubeflow-trainer/initializer-manifest/v1"


@dataclass(frozen=True)
class ManifestEntry:
    """One downloaded file."""

    path: str
    size: int
    sha256: str
    etag: str | None = None
    source: str | None = None
    # Hugging Face downloads use it to skip re-hashing files that did not change on disk.
    mtime_ns: int | None = None

    @classmethod
    def from_json(cls, value: Any) -> ManifestEntry | None:
        """Parse one entry; None for anything malformed (a torn journal line, a hand edit)."""
        if not isinstance(value, dict):
            return None
        try:
            fields: dict[str, Any] = {name: value.get(name) for name in cls.__dataclass_fields__}
            entry = cls(**fields)
        except TypeError:
            return None
        if not isinstance(entry.path, str) or not isinstance(entry.size, int):
            return None
        return entry if isinstance(entry.sha256, str) else None

    def to_json(self) -> dict[str, Any]:
        return {name: value for name, value in asdict(self).items() if value is not None}


class ChecksumManifest:
    """Entries known for an output directory, with a journal for crash-safe progress."""

    def __init__(self, root: Path, entries: dict[str, ManifestEntry] | None = None) -> None:
        self.root = Path(root)
        self.entries: dict[str, ManifestEntry] = dict(entries or {})
        self._lock = threading.Lock()
        self._journal: TextIO | None = None

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST_NAME

    @property
    def journal_path(self) -> Path:
        return self.root / JOURNAL_NAME

    @classmethod
    def load(cls, root: Path) -> ChecksumManifest:
        """Read the last manifest, then replay the journal of an interrupted run over it."""
        manifest = cls(root)
        for entry in _read_manifest_entries(manifest.manifest_path):
            manifest.entries[entry.path] = entry
        for entry in _read_journal_entries(manifest.journal_path):
            manifest.entries[entry.path] = entry
        return manifest

    def get(self, relative_path: str) -> ManifestEntry | None:
        return self.entries.get(relative_path)

    def record(self, entry: ManifestEntry) -> None:
        """Remember a finished file and append it to the journal (thread-safe)."""
        line = json.dumps(entry.to_json(), separators=(",", ":")) + "\n"
        with self._lock:
            self.entries[entry.path] = entry
            if self._journal is None:
                self._journal = open(self.journal_path, "a", encoding="utf-8")
            self._journal.write(line)
            self._journal.flush()

    def write(self, source: str, paths: list[str], revision: str | None = None) -> Path:
        """Atomically write the manifest for `paths`, then drop the journal."""
        document: dict[str, Any] = {"format": MANIFEST_FORMAT, "source": source}
        if revision:
            document["revision"] = revision
        document["files"] = [self.entries[path].to_json() for path in sorted(paths)]
        staging = self.root / STAGING_DIR_NAME
        staging.mkdir(exist_ok=True)
        temporary = staging / (MANIFEST_NAME + ".tmp")
        with open(temporary, "w", encoding="utf-8") as stream:
            json.dump(document, stream, indent=1, sort_keys=False)
            stream.write("\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, self.manifest_path)
        with contextlib.suppress(OSError):
            staging.rmdir()  # only when empty: a running S3 download still owns its parts
        self.close()
        self.journal_path.unlink(missing_ok=True)
        return self.manifest_path

    def close(self) -> None:
        with self._lock:
            if self._journal is not None:
                self._journal.close()
                self._journal = None


def _read_manifest_entries(path: Path) -> list[ManifestEntry]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(document, dict) or document.get("format") != MANIFEST_FORMAT:
        return []
    files = document.get("files")
    parsed = (ManifestEntry.from_json(value) for value in files) if isinstance(files, list) else ()
    return [entry for entry in parsed if entry is not None]


def _read_journal_entries(path: Path) -> list[ManifestEntry]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    entries = []
    for line in lines:
        try:
            entry = ManifestEntry.from_json(json.loads(line))
        except ValueError:
            continue  # the last line of a killed run may be torn
        if entry is not None:
            entries.append(entry)
    return entries
