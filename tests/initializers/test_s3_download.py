"""S3 downloads against moto in server mode (real HTTP on 127.0.0.1)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from pulumi_kubeflow_trainer.initializers.errors import TransferError
from pulumi_kubeflow_trainer.initializers.s3_transfer import CHUNK_SIZE
from pulumi_kubeflow_trainer.initializers.safe_paths import JOURNAL_NAME, MANIFEST_NAME, STAGING_DIR_NAME

from .conftest import Bucket, make_s3_source, run_in_process, tree_of

MIB = 1024 * 1024


def small_dataset(count: int, prefix: str = "data/") -> dict[str, bytes]:
    """Objects of varied sizes in nested "directories", including an empty one."""
    return {
        f"{prefix}shard-{index % 7}/part-{index:04d}.jsonl": os.urandom(index * 37 % 4096)
        for index in range(count)
    }


def upload(bucket: Bucket, objects: dict[str, bytes]) -> None:
    for key, content in objects.items():
        bucket.put(key, content)


def relative_to(prefix: str, objects: dict[str, bytes]) -> dict[str, bytes]:
    return {key[len(prefix):]: content for key, content in objects.items()}


def manifest_of(output: Path) -> dict:
    return json.loads((output / MANIFEST_NAME).read_text())


def test_many_small_objects_arrive_intact_with_a_checksum_manifest(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    objects = small_dataset(300)
    upload(bucket, objects)
    output = tmp_path / "dataset"

    run = run_in_process("dataset", output, {**s3_env, "STORAGE_URI": bucket.uri("data")}, workers=8)

    assert run.status == 0, run.stderr
    assert tree_of(output) == {**relative_to("data/", objects), MANIFEST_NAME: (output / MANIFEST_NAME).read_bytes()}
    manifest = manifest_of(output)
    assert manifest["source"] == bucket.uri("data")
    assert {entry["path"]: entry["sha256"] for entry in manifest["files"]} == {
        path: hashlib.sha256(content).hexdigest() for path, content in relative_to("data/", objects).items()
    }
    assert not (output / STAGING_DIR_NAME).exists()
    assert not (output / JOURNAL_NAME).exists()
    assert "300/300 files" in run.stderr


def test_a_multipart_object_is_downloaded_intact(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    parts = [os.urandom(5 * MIB), os.urandom(5 * MIB), os.urandom(123)]
    etag = bucket.put_multipart("models/llm/model.safetensors", parts)
    assert etag.strip('"').endswith("-3")

    run = run_in_process("model", tmp_path / "model", {**s3_env, "STORAGE_URI": bucket.uri("models/llm")})

    assert run.status == 0, run.stderr
    assert (tmp_path / "model" / "model.safetensors").read_bytes() == b"".join(parts)
    assert manifest_of(tmp_path / "model")["files"][0]["etag"] == etag


def test_a_large_object_is_fetched_as_parallel_ranges_and_reassembled(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    content = os.urandom(5 * MIB + 17)
    bucket.put("big/blob.bin", content)
    source, gets = make_s3_source(s3_env, bucket.uri("big/"), tmp_path / "out", part_size=MIB, ranged_threshold=MIB)

    source.download()

    assert (tmp_path / "out" / "blob.bin").read_bytes() == content
    ranges = sorted(call["Range"] for call in gets.calls)
    assert len(ranges) == 6
    assert "bytes=0-1048575" in ranges and "bytes=5242880-5242896" in ranges
    assert all(call["IfMatch"] == source.last_plan.to_download[0].remote.etag for call in gets.calls)


def test_a_uri_naming_one_object_downloads_that_object(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    bucket.put("exports/2026/train.csv", b"a,b\n1,2\n")
    bucket.put("exports/2026/train.csv.bak", b"old")

    run = run_in_process("dataset", tmp_path / "d", {**s3_env, "STORAGE_URI": bucket.uri("exports/2026/train.csv")})

    assert run.status == 0, run.stderr
    assert set(tree_of(tmp_path / "d")) == {"train.csv", MANIFEST_NAME}


def test_a_prefix_is_a_directory_not_a_string_prefix(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    upload(bucket, {"data/a.txt": b"a", "data/sub/": b"", "data2/b.txt": b"b", "database.txt": b"c"})

    run = run_in_process("dataset", tmp_path / "d", {**s3_env, "STORAGE_URI": bucket.uri("data")})

    assert run.status == 0, run.stderr
    assert set(tree_of(tmp_path / "d")) == {"a.txt", MANIFEST_NAME}


@pytest.mark.parametrize(
    ("kind", "extra_env", "want"),
    [
        ("dataset", {"IGNORE_PATTERNS": "*.tmp,logs/"}, {"model.bin", "weights.safetensors", "config.json"}),
        ("model", {}, {"weights.safetensors", "config.json", "notes.tmp", "logs/run.txt"}),
        ("model", {"IGNORE_PATTERNS": ""}, {"model.bin", "weights.safetensors", "config.json", "notes.tmp", "logs/run.txt"}),
        ("dataset", {"ALLOW_PATTERNS": "*.json,*.safetensors"}, {"weights.safetensors", "config.json"}),
    ],
    ids=[
        "ignore patterns skip matching files and directories",
        "the model initializer skips upstream's default weight formats",
        "an empty IGNORE_PATTERNS downloads every file of a model",
        "allow patterns keep only matching files",
    ],
)
def test_patterns_select_the_downloaded_files(bucket: Bucket, s3_env, tmp_path: Path, kind, extra_env, want) -> None:
    names = ["model.bin", "weights.safetensors", "config.json", "notes.tmp", "logs/run.txt"]
    upload(bucket, {f"repo/{name}": name.encode() for name in names})

    run = run_in_process(kind, tmp_path / "out", {**s3_env, "STORAGE_URI": bucket.uri("repo/"), **extra_env})

    assert run.status == 0, run.stderr
    assert set(tree_of(tmp_path / "out")) == want | {MANIFEST_NAME}


def test_a_rerun_fetches_only_missing_or_changed_files(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    objects = small_dataset(40)
    upload(bucket, objects)
    output = tmp_path / "out"
    first, _ = make_s3_source(s3_env, bucket.uri("data/"), output)
    first.download()
    (output / "shard-1/part-0001.jsonl").unlink()
    bucket.put("data/shard-2/part-0002.jsonl", b"x" * len(objects["data/shard-2/part-0002.jsonl"]))

    rerun, gets = make_s3_source(s3_env, bucket.uri("data/"), output)
    rerun.download()

    assert gets.keys() == ["data/shard-1/part-0001.jsonl", "data/shard-2/part-0002.jsonl"]
    assert (output / "shard-2/part-0002.jsonl").read_bytes() == b"x" * len(objects["data/shard-2/part-0002.jsonl"])
    assert len(rerun.last_plan.already_present) == 38


class InterruptedRun(Exception):
    """Stands in for the process being killed."""


def test_an_interrupted_download_resumes_from_its_journal(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    objects = small_dataset(30)
    upload(bucket, objects)
    output = tmp_path / "out"
    interrupted, first_gets = make_s3_source({**s3_env, "WORKERS": "1"}, bucket.uri("data/"), output)

    def stop_after_ten(**_: object) -> None:
        if len(first_gets.calls) > 10:
            raise InterruptedRun()

    interrupted.client().meta.events.register("before-call.s3.GetObject", stop_after_ten)
    with pytest.raises(TransferError, match="InterruptedRun"):
        interrupted.download()
    assert (output / JOURNAL_NAME).read_text().count("\n") == 10
    assert not (output / MANIFEST_NAME).exists()

    resumed, resumed_gets = make_s3_source(s3_env, bucket.uri("data/"), output)
    resumed.download()

    fetched_before = {call["Key"] for call in first_gets.calls[:10]}
    assert set(resumed_gets.keys()) == set(objects) - fetched_before
    assert len(resumed_gets.calls) == 20
    assert tree_of(output) == {**relative_to("data/", objects), MANIFEST_NAME: (output / MANIFEST_NAME).read_bytes()}


def test_files_already_on_disk_are_adopted_when_their_md5_matches_the_etag(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    objects = {"data/same.txt": b"same content", "data/stale.txt": b"remote value"}
    upload(bucket, objects)
    output = tmp_path / "out"
    output.mkdir()
    (output / "same.txt").write_bytes(b"same content")
    (output / "stale.txt").write_bytes(b"local  value")  # same size, other bytes

    source, gets = make_s3_source(s3_env, bucket.uri("data/"), output)
    source.download()

    assert gets.keys() == ["data/stale.txt"]
    assert (output / "stale.txt").read_bytes() == b"remote value"
    assert {entry["path"] for entry in manifest_of(output)["files"]} == {"same.txt", "stale.txt"}


def test_a_connection_dropped_mid_stream_resumes_from_the_last_byte(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    content = os.urandom(2 * CHUNK_SIZE + 5)
    bucket.put("data/blob.bin", content)
    source, gets = make_s3_source(s3_env, bucket.uri("data/"), tmp_path / "out")

    def break_first_body(parsed: dict, **_: object) -> None:
        if len(gets.calls) == 1:
            parsed["Body"] = BodyThatBreaks(parsed["Body"], after_chunks=1)

    source.client().meta.events.register("after-call.s3.GetObject", break_first_body)
    source.download()

    assert (tmp_path / "out" / "blob.bin").read_bytes() == content
    assert [call.get("Range") for call in gets.calls] == [None, f"bytes={CHUNK_SIZE}-{len(content) - 1}"]


class BodyThatBreaks:
    """A StreamingBody that fails like a reset connection after some chunks."""

    def __init__(self, body, after_chunks: int) -> None:
        self._body = body
        self._after_chunks = after_chunks

    def iter_chunks(self, chunk_size: int):
        from botocore.exceptions import ResponseStreamingError

        for index, chunk in enumerate(self._body.iter_chunks(chunk_size)):
            if index == self._after_chunks:
                raise ResponseStreamingError(error="connection reset by peer (simulated)")
            yield chunk

    def close(self) -> None:
        self._body.close()


def test_content_that_does_not_match_a_single_part_etag_is_not_kept(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    bucket.put("data/a.txt", b"original bytes")
    source, _ = make_s3_source(s3_env, bucket.uri("data/"), tmp_path / "out")

    def corrupt(parsed: dict, **_: object) -> None:
        parsed["Body"] = BodyThatFlipsBytes(parsed["Body"])

    source.client().meta.events.register("after-call.s3.GetObject", corrupt)
    with pytest.raises(TransferError, match="'data/a.txt': downloaded content does not match the MD5 in its ETag"):
        source.download()

    assert not (tmp_path / "out" / "a.txt").exists()
    assert not (tmp_path / "out" / STAGING_DIR_NAME).exists()


class BodyThatFlipsBytes:
    """A StreamingBody whose bytes arrive altered but complete, as with corruption in transit."""

    def __init__(self, body) -> None:
        self._body = body

    def iter_chunks(self, chunk_size: int):
        for chunk in self._body.iter_chunks(chunk_size):
            yield bytes(byte ^ 0xFF for byte in chunk)

    def close(self) -> None:
        self._body.close()
