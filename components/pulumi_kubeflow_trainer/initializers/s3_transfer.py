"""Streaming one byte range of an S3 object into a file, with retries that resume mid-stream.

Bodies are written chunk by chunk (never read whole into memory, unlike upstream's
`op.read(key)`). A dropped connection is retried with a `Range` request from the last byte
written, and `If-Match` on the listed ETag makes sure the resumed bytes belong to the same
object version.
"""

from __future__ import annotations

import hashlib
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import TransferError
from .s3_client import error_code, translate_s3_error
from .s3_plan import RemoteObject

CHUNK_SIZE = 4 * 1024 * 1024


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter for failures after the response body started."""

    attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 20.0

    def delay(self, attempt: int) -> float:
        backoff: float = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return backoff * random.uniform(0.5, 1.0)


@dataclass(frozen=True)
class ByteRange:
    start: int
    end: int  # exclusive

    @property
    def length(self) -> int:
        return self.end - self.start


def split_ranges(size: int, part_size: int) -> list[ByteRange]:
    """Cover [0, size) with consecutive ranges of at most part_size bytes (one for size 0)."""
    if size <= part_size:
        return [ByteRange(0, size)]
    return [ByteRange(start, min(start + part_size, size)) for start in range(0, size, part_size)]


class FileDigests:
    """sha256 for the manifest, plus MD5 when the ETag can be checked against it."""

    def __init__(self, with_md5: bool) -> None:
        self.sha256 = hashlib.sha256()
        self.md5 = hashlib.md5(usedforsecurity=False) if with_md5 else None

    def update(self, chunk: bytes) -> None:
        self.sha256.update(chunk)
        if self.md5 is not None:
            self.md5.update(chunk)

    def md5_hex(self) -> str | None:
        return self.md5.hexdigest() if self.md5 is not None else None


def hash_file_descriptor(descriptor: int, size: int, with_md5: bool) -> FileDigests:
    """Digest an open file from offset 0 without moving a shared file position."""
    digests = FileDigests(with_md5)
    offset = 0
    while offset < size:
        chunk = os.pread(descriptor, min(CHUNK_SIZE * 8, size - offset), offset)
        if not chunk:
            break
        digests.update(chunk)
        offset += len(chunk)
    return digests


def _mid_stream_errors() -> tuple[type[BaseException], ...]:
    """Failures while a body is being read. Failures to connect are not here: botocore has
    already retried those (BOTO_RETRY_ATTEMPTS), and retrying again would only delay the error."""
    from botocore import exceptions as botocore_errors
    from urllib3 import exceptions as urllib3_errors

    return (
        botocore_errors.ResponseStreamingError,
        botocore_errors.IncompleteReadError,
        botocore_errors.ReadTimeoutError,
        botocore_errors.ConnectionClosedError,
        urllib3_errors.ProtocolError,
        urllib3_errors.ReadTimeoutError,
        ConnectionError,
        TimeoutError,
        ShortBodyError,
    )


class ShortBodyError(Exception):
    """The server closed the body before the requested range was complete."""


def stream_range(
    client: Any,
    bucket: str,
    remote: RemoteObject,
    descriptor: int,
    byte_range: ByteRange,
    on_chunk: Callable[[bytes], None],
    retry: RetryPolicy,
) -> dict[str, Any]:
    """Write [start, end) of the object at the same offsets; return the last response headers."""
    retryable = _mid_stream_errors()
    cursor, attempt = _Cursor(byte_range.start), 0
    while True:
        try:
            response = _get_range(client, bucket, remote, cursor.position, byte_range.end)
            _copy_body(response["Body"], descriptor, cursor, byte_range.end, on_chunk)
            if cursor.position < byte_range.end:
                raise ShortBodyError(f"body ended at byte {cursor.position} of {byte_range.end}")
            return response
        except retryable as error:
            attempt += 1
            if attempt > retry.attempts:
                raise TransferError(
                    f"s3://{bucket}/{remote.key}: giving up after {retry.attempts} retries: "
                    f"{type(error).__name__}: {error}"
                ) from None
            time.sleep(retry.delay(attempt))
        except Exception as error:  # noqa: BLE001 - everything else is not worth retrying
            raise _translate_get_error(error, bucket, remote) from None


def _get_range(client: Any, bucket: str, remote: RemoteObject, start: int, end: int) -> dict[str, Any]:
    arguments: dict[str, Any] = {"Bucket": bucket, "Key": remote.key}
    if remote.etag:
        arguments["IfMatch"] = remote.etag
    if start > 0 or end < remote.size:
        arguments["Range"] = f"bytes={start}-{end - 1}"
    response: dict[str, Any] = client.get_object(**arguments)
    return response


class _Cursor:
    """The next offset to write; survives an exception in the middle of a body."""

    def __init__(self, position: int) -> None:
        self.position = position


def _copy_body(body: Any, descriptor: int, cursor: _Cursor, end: int, on_chunk: Callable[[bytes], None]) -> None:
    try:
        for chunk in body.iter_chunks(CHUNK_SIZE):
            if cursor.position + len(chunk) > end:
                raise TransferError(f"server sent more than the {end} bytes that were listed")
            os.pwrite(descriptor, chunk, cursor.position)
            cursor.position += len(chunk)
            on_chunk(chunk)
    finally:
        body.close()


def _translate_get_error(error: BaseException, bucket: str, remote: RemoteObject) -> Exception:
    what = f"s3://{bucket}/{remote.key}"
    if error_code(error) in ("PreconditionFailed", "412"):
        return TransferError(f"{what} changed while it was being downloaded; run the initializer again")
    return translate_s3_error(error, what)
