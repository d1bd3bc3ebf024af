"""`HubSource`: Hugging Face Hub repositories through huggingface_hub's `snapshot_download`.

Before downloading, the revision is resolved to a commit (so the manifest pins exactly what was
fetched, and a bad token fails here instead of snapshot_download quietly returning an old
local_dir) and the file list is checked for paths that would escape --output. After
downloading, every file is hashed and checked against the Hub's own checksums: the LFS sha256
for large files, the git blob id for the rest.
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TextIO

from .config import InitializerSettings
from .errors import ConfigurationError, TransferError, UnsafePathError
from .hub_errors import translate_hub_error
from .manifest import ChecksumManifest, ManifestEntry
from .patterns import PathFilter
from .progress import DirectoryGrowthReporter, TransferProgress, format_bytes
from .safe_paths import OutputRoot, describe_unsafe
from .storage_uri import HubRepoLocation

_HASH_CHUNK = 8 * 1024 * 1024


class HubSource:
    """Downloads one Hub repository (at one revision) into the output directory."""

    def __init__(
        self,
        settings: InitializerSettings,
        location: HubRepoLocation,
        path_filter: PathFilter,
        stream: TextIO | None = None,
    ) -> None:
        if settings.revision and location.revision and settings.revision != location.revision:
            raise ConfigurationError(
                f"REVISION {settings.revision!r} contradicts the revision {location.revision!r} in STORAGE_URI"
            )
        self.settings = settings
        self.location = location
        self.revision = settings.revision or location.revision or "main"
        self.path_filter = path_filter
        self.runtime_secrets: list[str] = []
        self._stream = stream
        # Passed explicitly: huggingface_hub reads HF_ENDPOINT only once, when first imported.
        self.endpoint = settings.hf_endpoint

    def download(self) -> Path:
        """Resolve, check, download, verify; return the manifest path."""
        from huggingface_hub import HfApi

        api = HfApi(endpoint=self.endpoint, token=self.settings.access_token)
        commit = self._call(api.repo_info, repo_id=self.location.repo_id, repo_type=self.location.repo_type,
                            revision=self.revision).sha
        files = self._list_files(api, commit)
        output = OutputRoot(self.settings.output_dir)
        problems = [(hub_file.path, problem) for hub_file in files
                    if (problem := output.target_problem(hub_file.path)) is not None]
        if problems:
            raise UnsafePathError(describe_unsafe(problems))
        total = sum(hub_file.size for hub_file in files)
        progress = TransferProgress(self.settings.kind, len(files), total, self._stream)
        progress.info(
            f"{self.location.uri()}@{commit[:12]}: {len(files)} file(s), {format_bytes(total)}, "
            f"{self.settings.workers} worker(s)"
        )
        output.real_path.mkdir(parents=True, exist_ok=True)
        with DirectoryGrowthReporter(output.real_path, progress):
            self._snapshot_download(commit, output.real_path)
        manifest = ChecksumManifest.load(output.real_path)
        self._verify_and_record(files, output, manifest)
        manifest_path = manifest.write(self.location.uri(), [hub_file.path for hub_file in files], revision=commit)
        progress.files_done, progress.bytes_done = len(files), total
        progress.finish()
        progress.info(f"manifest: {manifest_path}")
        return manifest_path

    def _call(self, function: Any, **arguments: Any) -> Any:
        try:
            return function(**arguments)
        except Exception as error:  # noqa: BLE001 - huggingface_hub/httpx errors become one line
            raise translate_hub_error(error, self.location.uri(), self.revision, self.endpoint) from None

    def _list_files(self, api: Any, commit: str) -> list[Any]:
        from huggingface_hub.hf_api import RepoFile

        entries = self._call(
            lambda **arguments: list(api.list_repo_tree(**arguments)),
            repo_id=self.location.repo_id, repo_type=self.location.repo_type, revision=commit, recursive=True,
        )
        return [entry for entry in entries if isinstance(entry, RepoFile) and self.path_filter.accepts(entry.path)]

    def _snapshot_download(self, commit: str, local_dir: Path) -> None:
        from huggingface_hub import snapshot_download
        from huggingface_hub.utils import disable_progress_bars  # type: ignore[attr-defined]  # exported, not re-exported by name

        # tqdm bars with carriage returns are unreadable in `kubectl logs`; DirectoryGrowthReporter
        # prints the periodic progress line instead.
        disable_progress_bars()
        self._call(
            snapshot_download,
            repo_id=self.location.repo_id,
            repo_type=self.location.repo_type,
            revision=commit,
            local_dir=local_dir,
            token=self.settings.access_token,
            endpoint=self.endpoint,
            max_workers=self.settings.workers,
            **self.path_filter.hub_arguments(),
        )

    def _verify_and_record(self, files: list[Any], output: OutputRoot, manifest: ChecksumManifest) -> None:
        def verify(hub_file: Any) -> ManifestEntry:
            return verified_entry(hub_file, output.target_path(hub_file.path), manifest.get(hub_file.path))

        with ThreadPoolExecutor(min(self.settings.workers, 8), thread_name_prefix="hub-verify") as pool:
            for entry in pool.map(verify, files):
                manifest.entries[entry.path] = entry


def verified_entry(hub_file: Any, target: Path, previous: ManifestEntry | None) -> ManifestEntry:
    """Hash a downloaded file and compare it with the Hub's checksum for it.

    A file whose size, mtime and blob id match the previous manifest is not hashed again.
    """
    try:
        status = os.stat(target)
    except FileNotFoundError:
        raise TransferError(f"{hub_file.path!r} is missing after the download") from None
    if status.st_size != hub_file.size:
        raise TransferError(f"{hub_file.path!r} has {status.st_size} bytes, the Hub lists {hub_file.size}")
    if (
        previous is not None
        and previous.etag == hub_file.blob_id
        and previous.size == status.st_size
        and previous.mtime_ns == status.st_mtime_ns
    ):
        return previous
    is_lfs = hub_file.lfs is not None
    sha256, git_blob_id = hash_hub_file(target, status.st_size, with_git_blob_id=not is_lfs)
    expected = hub_file.lfs.sha256 if is_lfs else hub_file.blob_id
    actual = sha256 if is_lfs else git_blob_id
    if expected and actual != expected:
        raise TransferError(f"{hub_file.path!r}: content does not match the Hub's checksum")
    return ManifestEntry(hub_file.path, status.st_size, sha256, hub_file.blob_id, hub_file.path, status.st_mtime_ns)


def hash_hub_file(path: Path, size: int, with_git_blob_id: bool) -> tuple[str, str | None]:
    """sha256 of the content and, for small (non-LFS) files, the git blob id the Hub lists.

    The blob id is git's sha1 over "blob <size>\\0" followed by the content.
    """
    sha256 = hashlib.sha256()
    git_blob = hashlib.sha1(f"blob {size}\0".encode(), usedforsecurity=False) if with_git_blob_id else None
    with open(path, "rb") as stream:
        while chunk := stream.read(_HASH_CHUNK):
            sha256.update(chunk)
            if git_blob is not None:
                git_blob.update(chunk)
    return sha256.hexdigest(), git_blob.hexdigest() if git_blob is not None else None
