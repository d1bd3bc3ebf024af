"""`S3Source`: plan, download in parallel, write the checksum manifest."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, TextIO

from .config import InitializerSettings
from .errors import ConfigurationError
from .manifest import ChecksumManifest
from .patterns import PathFilter
from .progress import TransferProgress, format_bytes
from .s3_client import build_s3_client
from .s3_download import DEFAULT_PART_SIZE, DEFAULT_RANGED_THRESHOLD, ParallelDownloader, TransferOptions
from .s3_plan import DownloadPlan, plan_downloads
from .safe_paths import STAGING_DIR_NAME, OutputRoot
from .storage_uri import S3Location


class S3Source:
    """Downloads `s3://bucket/prefix` (or one object) into the output directory."""

    def __init__(
        self,
        settings: InitializerSettings,
        location: S3Location,
        path_filter: PathFilter,
        stream: TextIO | None = None,
        part_size: int = DEFAULT_PART_SIZE,
        ranged_threshold: int = DEFAULT_RANGED_THRESHOLD,
        client: Any = None,
    ) -> None:
        if settings.revision:
            raise ConfigurationError("REVISION is only supported for hf:// URIs")
        self.settings = settings
        self.location = location
        self.path_filter = path_filter
        self.options = TransferOptions(settings.workers, part_size, ranged_threshold)
        self.runtime_secrets: list[str] = []
        self._stream = stream
        self._client = client
        self.last_plan: DownloadPlan | None = None

    def client(self) -> Any:
        if self._client is None:
            # Ranged parts and whole files share the pool; a few spare connections avoid
            # "connection pool is full" churn when listing overlaps with the tail of downloads.
            self._client, self.runtime_secrets = build_s3_client(self.settings, self.settings.workers + 4)
        return self._client

    def download(self) -> Path:
        """Run the whole download; return the manifest path."""
        output = OutputRoot(self.settings.output_dir)
        manifest = ChecksumManifest.load(output.real_path)
        # Everything is listed and checked before the first byte is written.
        plan = plan_downloads(self.client(), self.location, self.path_filter, output, manifest)
        self.last_plan = plan
        progress = TransferProgress(self.settings.kind, len(plan.to_download), plan.bytes_to_download, self._stream)
        progress.info(
            f"{self.location.uri()}: {len(plan.to_download)} file(s), {format_bytes(plan.bytes_to_download)} "
            f"to download with {self.options.workers} worker(s); {len(plan.already_present)} already present, "
            f"{plan.filtered_out} filtered out"
        )
        output.real_path.mkdir(parents=True, exist_ok=True)
        staging = output.real_path / STAGING_DIR_NAME
        shutil.rmtree(staging, ignore_errors=True)  # leftovers of a killed run
        staging.mkdir()
        try:
            downloader = ParallelDownloader(
                self.client(), self.location.bucket, manifest, progress, self.options, staging
            )
            downloader.run(plan.to_download)
            manifest_path = manifest.write(self.location.uri(), plan.relative_paths)
        finally:
            manifest.close()
            shutil.rmtree(staging, ignore_errors=True)
        progress.finish()
        progress.info(f"manifest: {manifest_path}")
        return manifest_path
