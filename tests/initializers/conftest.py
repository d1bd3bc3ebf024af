"""Fixtures for the initializer tests: a moto S3 server over real HTTP and a fake Hugging Face Hub.

Nothing here reaches beyond 127.0.0.1: AWS credential discovery (instance metadata, profiles)
is switched off, and every client is pointed at a local endpoint.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import socket
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .fake_hf_hub import FakeHub

ADMIN_KEY = "testing"
ADMIN_SECRET = "testing"
REGION = "us-east-1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(autouse=True)
def offline_environment(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No instance-metadata lookups, no ~/.aws, no ~/.cache/huggingface, no telemetry."""
    home = tmp_path_factory.mktemp("home")
    for name in ("AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(home / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / "aws-credentials"))
    monkeypatch.setenv("HF_HOME", str(home / "hf"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """moto in server mode on a free loopback port, shared by the session."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one log line per request otherwise
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


def admin_session_client(endpoint: str, service: str = "s3"):
    import boto3

    return boto3.client(
        service,
        endpoint_url=endpoint,
        aws_access_key_id=ADMIN_KEY,
        aws_secret_access_key=ADMIN_SECRET,
        region_name=REGION,
    )


@pytest.fixture
def s3_admin(moto_endpoint: str):
    """A client with full rights, for arranging buckets and objects."""
    return admin_session_client(moto_endpoint)


@dataclass
class Bucket:
    name: str
    client: object

    def put(self, key: str, content: bytes) -> None:
        self.client.put_object(Bucket=self.name, Key=key, Body=content)

    def put_multipart(self, key: str, parts: list[bytes]) -> str:
        upload = self.client.create_multipart_upload(Bucket=self.name, Key=key)
        etags = [
            self.client.upload_part(
                Bucket=self.name, Key=key, UploadId=upload["UploadId"], PartNumber=number, Body=part
            )["ETag"]
            for number, part in enumerate(parts, start=1)
        ]
        completed = self.client.complete_multipart_upload(
            Bucket=self.name,
            Key=key,
            UploadId=upload["UploadId"],
            MultipartUpload={"Parts": [{"ETag": etag, "PartNumber": n} for n, etag in enumerate(etags, 1)]},
        )
        return completed["ETag"]

    def uri(self, prefix: str = "") -> str:
        return f"s3://{self.name}/{prefix}"


@pytest.fixture
def bucket(s3_admin) -> Bucket:
    name = f"test-{uuid.uuid4().hex[:16]}"
    s3_admin.create_bucket(Bucket=name)
    return Bucket(name, s3_admin)


@pytest.fixture
def s3_env(moto_endpoint: str) -> dict[str, str]:
    """The env contract pointing at moto; tests add STORAGE_URI."""
    return {
        "ENDPOINT": moto_endpoint,
        "ACCESS_KEY_ID": ADMIN_KEY,
        "SECRET_ACCESS_KEY": ADMIN_SECRET,
        "REGION": REGION,
    }


@contextlib.contextmanager
def enforced_moto_auth(endpoint: str) -> Iterator[None]:
    """Make moto check signatures and IAM policies (it accepts anything by default)."""
    import urllib.request

    def reset_auth(count: str) -> None:
        # text/plain: with urllib's default form content type moto would see an empty body.
        request = urllib.request.Request(
            f"{endpoint}/moto-api/reset-auth", data=count.encode(), method="POST",
            headers={"Content-Type": "text/plain"},
        )
        urllib.request.urlopen(request, timeout=10).read()

    reset_auth("0")
    try:
        yield
    finally:
        reset_auth("inf")


@pytest.fixture
def iam_user(moto_endpoint: str) -> tuple[str, str]:
    """An IAM user allowed to read S3, created while moto still accepts anything."""
    iam = admin_session_client(moto_endpoint, "iam")
    name = f"reader-{uuid.uuid4().hex[:8]}"
    iam.create_user(UserName=name)
    iam.put_user_policy(
        UserName=name,
        PolicyName="read-s3",
        PolicyDocument='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}',
    )
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return key["AccessKeyId"], key["SecretAccessKey"]


@dataclass
class InitializerRun:
    status: int
    stderr: str


def run_in_process(kind: str, output: Path, environ: dict[str, str], workers: int | None = None) -> InitializerRun:
    """Run the initializer as the CLI would, capturing what it prints."""
    from pulumi_kubeflow_trainer.initializers import run_initializer

    stream = io.StringIO()
    status = run_initializer(kind, str(output), workers, environ=environ, stream=stream)
    return InitializerRun(status, stream.getvalue())


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_of(root: Path) -> dict[str, bytes]:
    """Every regular file below root, keyed by "/"-separated relative path."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


@pytest.fixture
def fake_hub() -> Iterator[FakeHub]:
    hub = FakeHub().start()
    yield hub
    hub.stop()


@pytest.fixture
def python_executable() -> str:
    return sys.executable


class GetObjectRecorder:
    """Records the parameters of every GetObject a client sends (Key, Range, IfMatch)."""

    def __init__(self, client) -> None:
        self.calls: list[dict] = []
        client.meta.events.register("provide-client-params.s3.GetObject", self._record)

    def _record(self, params: dict, **_: object) -> None:
        self.calls.append(dict(params))

    def keys(self) -> list[str]:
        return sorted(call["Key"] for call in self.calls)


def make_s3_source(s3_env: dict[str, str], uri: str, output: Path, kind: str = "dataset", **options):
    """An S3Source as the CLI builds it, plus a recorder of its GETs."""
    from pulumi_kubeflow_trainer.initializers.config import load_settings
    from pulumi_kubeflow_trainer.initializers.patterns import resolve_path_filter
    from pulumi_kubeflow_trainer.initializers.s3_source import S3Source
    from pulumi_kubeflow_trainer.initializers.storage_uri import parse_storage_uri

    settings = load_settings(kind, {**s3_env, "STORAGE_URI": uri}, output_dir=output)
    source = S3Source(
        settings, parse_storage_uri(uri, kind), resolve_path_filter(settings, "s3"), io.StringIO(), **options
    )
    return source, GetObjectRecorder(source.client())
