"""Listing an S3 prefix and deciding, before anything is written, what each object becomes.

`plan_downloads` is the only place where remote keys turn into local paths. It checks every
key first and raises `UnsafePathError` for the whole run if any key would escape the output
directory, so a hostile dataset never leaves a partial download behind.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import SourceNotFoundError, UnsafePathError
from .manifest import ChecksumManifest, ManifestEntry
from .patterns import PathFilter
from .s3_client import translate_s3_error
from .safe_paths import OutputRoot, describe_unsafe, find_layout_conflicts
from .storage_uri import S3Location

_MD5_ETAG = re.compile(r'^"?[0-9a-fA-F]{32}"?$')


@dataclass(frozen=True)
class RemoteObject:
    """One object as listed: key, size and ETag (quoted, as S3 returns it)."""

    key: str
    size: int
    etag: str

    def md5_etag(self) -> str | None:
        """The content MD5 when the ETag is one (single-part uploads without SSE-KMS/SSE-C)."""
        return self.etag.strip('"').lower() if _MD5_ETAG.match(self.etag) else None


@dataclass(frozen=True)
class PlannedFile:
    """An object to fetch, and where it goes."""

    relative_path: str
    target: Path
    remote: RemoteObject
    # The file is on disk with the right size but no manifest entry (e.g. the run was killed
    # between the rename and the journal line): adopt it when its MD5 matches the ETag.
    verify_existing: bool = False

    def manifest_entry(self, sha256: str) -> ManifestEntry:
        return ManifestEntry(
            path=self.relative_path,
            size=self.remote.size,
            sha256=sha256,
            etag=self.remote.etag,
            source=self.remote.key,
        )


@dataclass
class DownloadPlan:
    location: S3Location
    to_download: list[PlannedFile] = field(default_factory=list)
    already_present: list[PlannedFile] = field(default_factory=list)
    filtered_out: int = 0

    @property
    def bytes_to_download(self) -> int:
        return sum(planned.remote.size for planned in self.to_download)

    @property
    def relative_paths(self) -> list[str]:
        return [planned.relative_path for planned in self.to_download + self.already_present]


def iter_remote_objects(client: Any, location: S3Location) -> Iterator[RemoteObject]:
    """All objects whose key starts with the prefix (directory markers included)."""
    paginator = client.get_paginator("list_objects_v2")
    try:
        for page in paginator.paginate(Bucket=location.bucket, Prefix=location.prefix):
            for listed in page.get("Contents", ()):
                yield RemoteObject(key=listed["Key"], size=int(listed["Size"]), etag=listed.get("ETag", ""))
    except Exception as error:  # noqa: BLE001 - botocore errors become one-line errors
        raise translate_s3_error(error, location.uri()) from None


def relative_path_for(location: S3Location, key: str) -> str | None:
    """Where `key` goes below the output directory, or None when it is not under the prefix.

    `s3://b/data` means the object `data` itself, or the "directory" `data/`; unlike upstream's
    plain string prefix it does not pull in `data2/...`. Nothing is stripped from the result:
    a key like `data//etc/passwd` yields `/etc/passwd`, which the safety check then refuses.
    """
    prefix = location.prefix
    if key == prefix:
        return posixpath.basename(key)
    if not prefix or prefix.endswith("/"):
        return key[len(prefix) :]
    if key.startswith(prefix + "/"):
        return key[len(prefix) + 1 :]
    return None


def plan_downloads(
    client: Any,
    location: S3Location,
    path_filter: PathFilter,
    output: OutputRoot,
    manifest: ChecksumManifest,
) -> DownloadPlan:
    """List, filter and check every key; classify each file as present or to download."""
    plan = DownloadPlan(location)
    accepted: list[tuple[str, RemoteObject]] = []
    problems: list[tuple[str, str]] = []
    listed_any = False
    for remote in iter_remote_objects(client, location):
        relative_path = relative_path_for(location, remote.key)
        if relative_path is None:
            continue
        listed_any = True
        if remote.key.endswith("/") and remote.size == 0:
            continue  # a "folder" placeholder created by consoles; it has no content
        if not path_filter.accepts(relative_path, remote.key):
            plan.filtered_out += 1
            continue
        problem = output.target_problem(relative_path)
        if problem is not None:
            problems.append((remote.key, problem))
        else:
            accepted.append((relative_path, remote))
    if not listed_any:
        raise SourceNotFoundError(f"{location.uri()}: no objects found under this prefix")
    problems.extend(find_layout_conflicts(path for path, _ in accepted))
    if problems:
        raise UnsafePathError(describe_unsafe(problems))
    for relative_path, remote in accepted:
        _classify(plan, PlannedFile(relative_path, output.target_path(relative_path), remote), manifest)
    return plan


def _classify(plan: DownloadPlan, planned: PlannedFile, manifest: ChecksumManifest) -> None:
    try:
        status = os.lstat(planned.target)
    except FileNotFoundError:
        plan.to_download.append(planned)
        return
    if not stat.S_ISREG(status.st_mode) or status.st_size != planned.remote.size:
        plan.to_download.append(planned)
        return
    entry = manifest.get(planned.relative_path)
    if entry is not None and entry.etag == planned.remote.etag and entry.size == planned.remote.size:
        plan.already_present.append(planned)
        return
    verify = planned.remote.md5_etag() is not None
    plan.to_download.append(PlannedFile(planned.relative_path, planned.target, planned.remote, verify))
