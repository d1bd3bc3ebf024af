"""Executing a `DownloadPlan` with a pool of threads.

Every object is fetched into a private temporary file in `<output>/.initializer-staging/` and
renamed into place only once complete and checked, so a reader (or a killed run) never sees a
half-written file under its final name. Objects larger than `ranged_threshold` are split into
byte ranges fetched in parallel; smaller ones are one task each, hashed while they stream.
"""

from __future__ import annotations

import os
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InitializerError, TransferError
from .manifest import ChecksumManifest
from .progress import TransferProgress
from .s3_plan import PlannedFile
from .s3_transfer import (
    ByteRange,
    FileDigests,
    RetryPolicy,
    hash_file_descriptor,
    split_ranges,
    stream_range,
)

# Objects above the threshold are split into ranges fetched in parallel. One S3 connection moves
# on the order of 100 MB/s, so splitting pays off for multi-GB shards; below a few hundred MiB a
# single stream is about as fast, costs one request instead of several, and does not punish
# stores that serve a range by reading the whole object (moto does).
DEFAULT_PART_SIZE = 64 * 1024 * 1024
DEFAULT_RANGED_THRESHOLD = 256 * 1024 * 1024
# S3 reports these when the ETag is not the MD5 of the content even though it looks like one.
_ENCRYPTIONS_WITHOUT_MD5_ETAG = ("aws:kms", "aws:kms:dsse")


@dataclass(frozen=True)
class TransferOptions:
    workers: int
    part_size: int = DEFAULT_PART_SIZE
    ranged_threshold: int = DEFAULT_RANGED_THRESHOLD
    retry: RetryPolicy = RetryPolicy()


class FileAssembly:
    """The parts of one object being written into one temporary file."""

    def __init__(self, planned: PlannedFile, staging: Path, options: TransferOptions, mode: int) -> None:
        self.planned = planned
        size = planned.remote.size
        self.ranges = split_ranges(size, options.part_size) if size > options.ranged_threshold else [ByteRange(0, size)]
        self._staging = staging
        self._mode = mode
        self._remaining = len(self.ranges)
        self._lock = threading.Lock()
        self._descriptor: int | None = None
        self._temporary: str | None = None
        self.check_md5 = planned.remote.md5_etag() is not None
        # One range: hash while streaming. Several: hash in a second pass once all are written.
        # (Hashing runs at well over 1 GB/s; on a connection of ~100 MB/s it costs a few percent,
        # so it stays on the downloading thread.)
        self.stream_digests = FileDigests(self.check_md5) if len(self.ranges) == 1 else None

    def descriptor(self) -> int:
        with self._lock:
            if self._descriptor is None:
                self._descriptor, self._temporary = tempfile.mkstemp(dir=self._staging, suffix=".part")
                if len(self.ranges) > 1:
                    os.ftruncate(self._descriptor, self.planned.remote.size)
            return self._descriptor

    def note_response(self, response: dict[str, Any]) -> None:
        encryption = response.get("ServerSideEncryption")
        if encryption in _ENCRYPTIONS_WITHOUT_MD5_ETAG or response.get("SSECustomerAlgorithm"):
            self.check_md5 = False

    def part_finished(self) -> bool:
        """Count a finished part; True for the caller that finished the last one."""
        with self._lock:
            self._remaining -= 1
            return self._remaining == 0

    def commit(self) -> str:
        """Check the content, move the file into place and return its sha256."""
        descriptor, remote = self.descriptor(), self.planned.remote
        digests = self.stream_digests or hash_file_descriptor(descriptor, remote.size, self.check_md5)
        if self.check_md5 and digests.md5_hex() not in (None, remote.md5_etag()):
            raise TransferError(f"{remote.key!r}: downloaded content does not match the MD5 in its ETag")
        os.fchmod(descriptor, self._mode)
        self.close()
        self.planned.target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(self._temporary, self.planned.target)  # type: ignore[arg-type]
        return digests.sha256.hexdigest()

    def close(self) -> None:
        with self._lock:
            if self._descriptor is not None and self._descriptor >= 0:
                os.close(self._descriptor)
            # -1 rather than None: a part still running must fail, not open a second file.
            self._descriptor = -1


class ParallelDownloader:
    """Runs every part of every planned file on one thread pool, stopping at the first error."""

    def __init__(
        self,
        client: Any,
        bucket: str,
        manifest: ChecksumManifest,
        progress: TransferProgress,
        options: TransferOptions,
        staging: Path,
    ) -> None:
        self._client = client
        self._bucket = bucket
        self._manifest = manifest
        self._progress = progress
        self._options = options
        self._staging = staging
        self._mode = _default_file_mode()
        self._failed = threading.Event()
        self._errors: list[BaseException] = []
        self._errors_lock = threading.Lock()
        # Bounded submission keeps memory flat for datasets with millions of objects.
        self._slots = threading.BoundedSemaphore(options.workers * 4)

    def run(self, planned_files: list[PlannedFile]) -> None:
        with ThreadPoolExecutor(self._options.workers, thread_name_prefix="s3-download") as pool:
            for planned in planned_files:
                if self._failed.is_set():
                    break
                if planned.verify_existing:
                    self._submit(pool, self._adopt_or_download, planned)
                    continue
                assembly = FileAssembly(planned, self._staging, self._options, self._mode)
                for byte_range in assembly.ranges:
                    self._submit(pool, self._fetch_part, assembly, byte_range)
        self._raise_first_error()

    def _submit(self, pool: ThreadPoolExecutor, function: Any, *arguments: Any) -> None:
        self._slots.acquire()
        future = pool.submit(self._guarded, function, *arguments)
        future.add_done_callback(self._release_slot)

    def _release_slot(self, _: Future[None]) -> None:
        self._slots.release()

    def _guarded(self, function: Any, *arguments: Any) -> None:
        if self._failed.is_set():
            return
        try:
            function(*arguments)
        except BaseException as error:  # noqa: BLE001 - reported once the pool drains
            with self._errors_lock:
                self._errors.append(error)
            self._failed.set()

    def _fetch_part(self, assembly: FileAssembly, byte_range: ByteRange) -> None:
        def on_chunk(chunk: bytes) -> None:
            if assembly.stream_digests is not None:
                assembly.stream_digests.update(chunk)
            self._progress.add_bytes(len(chunk))

        try:
            response = stream_range(
                self._client, self._bucket, assembly.planned.remote, assembly.descriptor(),
                byte_range, on_chunk, self._options.retry,
            )
            assembly.note_response(response)
            if assembly.part_finished():
                self._record(assembly.planned, assembly.commit())
        except BaseException:
            assembly.close()
            raise

    def _adopt_or_download(self, planned: PlannedFile) -> None:
        """Keep a file of the right size whose MD5 equals the ETag; fetch it otherwise."""
        descriptor = os.open(planned.target, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            digests = hash_file_descriptor(descriptor, planned.remote.size, with_md5=True)
        finally:
            os.close(descriptor)
        if digests.md5_hex() == planned.remote.md5_etag():
            self._record(planned, digests.sha256.hexdigest(), transferred=False)
            return
        assembly = FileAssembly(planned, self._staging, self._options, self._mode)
        for byte_range in assembly.ranges:  # sequential: this task already holds a worker
            self._fetch_part(assembly, byte_range)

    def _record(self, planned: PlannedFile, sha256: str, transferred: bool = True) -> None:
        self._manifest.record(planned.manifest_entry(sha256))
        self._progress.file_done()
        if not transferred:
            self._progress.add_bytes(planned.remote.size)

    def _raise_first_error(self) -> None:
        if not self._errors:
            return
        first = self._errors[0]
        others = f" ({len(self._errors) - 1} more download(s) failed)" if len(self._errors) > 1 else ""
        if isinstance(first, InitializerError):
            raise type(first)(f"{first}{others}") from None
        raise TransferError(f"{type(first).__name__}: {first}{others}") from None


def _default_file_mode() -> int:
    """0666 minus the process umask, as `open()` would give; mkstemp files start at 0600."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask
