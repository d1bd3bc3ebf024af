"""How S3 runs fail: unsafe keys, missing buckets, bad credentials; nothing leaks or escapes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import Bucket, enforced_moto_auth, make_s3_source, run_in_process, tree_of


@dataclass(frozen=True)
class UnsafeKeyCase:
    name: str
    keys: list[str]
    prefix: str


UNSAFE_KEY_CASES = [
    UnsafeKeyCase("a parent segment in a key is refused", ["data/ok.txt", "data/../escape.txt"], "data/"),
    UnsafeKeyCase("a nested parent segment is refused", ["data/a/../../escape.txt", "data/ok.txt"], "data/"),
    UnsafeKeyCase("a double slash that would make an absolute path is refused", ["data//etc/escape.txt"], "data/"),
    UnsafeKeyCase("a key that is only a parent reference is refused", ["data/..", "data/ok.txt"], "data/"),
    UnsafeKeyCase("a dot segment is refused", ["data/./ok.txt"], "data/"),
    UnsafeKeyCase("a key under the whole-bucket uri starting with a slash is refused", ["/escape.txt", "ok.txt"], ""),
    UnsafeKeyCase("a key that would overwrite the manifest is refused",
                  ["data/.initializer-manifest.json", "data/ok.txt"], "data/"),
    UnsafeKeyCase("a key that is both a file and a directory is refused", ["data/a", "data/a/b"], "data/"),
]


@pytest.mark.parametrize("case", UNSAFE_KEY_CASES, ids=lambda case: case.name)
def test_unsafe_keys_fail_the_run_before_anything_is_written(
    case: UnsafeKeyCase, bucket: Bucket, s3_env, tmp_path: Path
) -> None:
    for key in case.keys:
        bucket.put(key, b"payload")
    sandbox = tmp_path / "sandbox"
    output = sandbox / "level1" / "output"

    run = run_in_process("dataset", output, {**s3_env, "STORAGE_URI": bucket.uri(case.prefix)})

    assert run.status == 1
    assert "refusing to download" in run.stderr
    assert "nothing was written" in run.stderr
    assert not output.exists()  # not even the safe keys: no partial download
    assert tree_of(tmp_path) == {}


def test_an_existing_symlink_in_the_output_is_not_followed(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    output = tmp_path / "output"
    output.mkdir()
    (output / "cache").symlink_to(outside)
    bucket.put("data/cache/evil.txt", b"payload")
    bucket.put("data/fine.txt", b"payload")

    run = run_in_process("dataset", output, {**s3_env, "STORAGE_URI": bucket.uri("data/")})

    assert run.status == 1
    assert "existing symlink 'cache'" in run.stderr
    assert list(outside.iterdir()) == []
    assert not (output / "fine.txt").exists()


@pytest.mark.parametrize(
    ("uri_suffix", "message"),
    [
        ("missing-bucket-0000/data", "bucket does not exist (NoSuchBucket)"),
        (None, "no objects found under this prefix"),
    ],
    ids=["a missing bucket is a one-line error", "an empty prefix is a one-line error"],
)
def test_missing_sources_fail_with_one_line(bucket: Bucket, s3_env, tmp_path: Path, uri_suffix, message) -> None:
    uri = f"s3://{uri_suffix}" if uri_suffix else bucket.uri("nothing/here/")

    run = run_in_process("dataset", tmp_path / "out", {**s3_env, "STORAGE_URI": uri})

    assert run.status == 1
    assert run.stderr.count("\n") == 1
    assert message in run.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("credentials", "code"),
    [
        (lambda key, secret: (key, secret + "-wrong"), "SignatureDoesNotMatch"),
        (lambda key, secret: ("AKIAUNKNOWNKEY000000", secret), "InvalidAccessKeyId"),
    ],
    ids=["a wrong secret key is rejected", "an unknown access key is rejected"],
)
def test_bad_credentials_are_rejected_without_printing_them(
    bucket: Bucket, s3_env, iam_user, moto_endpoint: str, tmp_path: Path, credentials, code
) -> None:
    bucket.put("data/a.txt", b"a")
    access_key, secret_key = credentials(*iam_user)
    environ = {**s3_env, "STORAGE_URI": bucket.uri("data/"), "ACCESS_KEY_ID": access_key, "SECRET_ACCESS_KEY": secret_key}

    with enforced_moto_auth(moto_endpoint):
        run = run_in_process("dataset", tmp_path / "out", environ)

    assert run.status == 1
    assert f"access denied to s3://{bucket.name}/data/ ({code})" in run.stderr
    assert access_key not in run.stderr and secret_key not in run.stderr
    assert not (tmp_path / "out").exists()


def test_valid_credentials_pass_when_moto_enforces_signatures(
    bucket: Bucket, s3_env, iam_user, moto_endpoint: str, tmp_path: Path
) -> None:
    bucket.put("data/a.txt", b"a")
    access_key, secret_key = iam_user
    environ = {**s3_env, "STORAGE_URI": bucket.uri("data/"), "ACCESS_KEY_ID": access_key, "SECRET_ACCESS_KEY": secret_key}

    with enforced_moto_auth(moto_endpoint):
        run = run_in_process("dataset", tmp_path / "out", environ)

    assert run.status == 0, run.stderr
    assert (tmp_path / "out" / "a.txt").read_bytes() == b"a"


def test_role_arn_is_assumed_through_sts(bucket: Bucket, s3_env, moto_endpoint: str, tmp_path: Path) -> None:
    bucket.put("data/a.txt", b"a")
    environ = {**s3_env, "ROLE_ARN": "arn:aws:iam::123456789012:role/reader", "STS_ENDPOINT": moto_endpoint}
    source, _ = make_s3_source(environ, bucket.uri("data/"), tmp_path / "out")

    source.download()

    credentials = source.client()._request_signer._credentials.get_frozen_credentials()
    assert credentials.access_key != s3_env["ACCESS_KEY_ID"]
    assert credentials.access_key in source.runtime_secrets  # redacted from any error message
    assert (tmp_path / "out" / "a.txt").read_bytes() == b"a"


def test_revision_is_refused_for_s3(bucket: Bucket, s3_env, tmp_path: Path) -> None:
    run = run_in_process("model", tmp_path / "out", {**s3_env, "STORAGE_URI": bucket.uri("m/"), "REVISION": "v1"})

    assert run.status == 1
    assert "REVISION is only supported for hf:// URIs" in run.stderr
