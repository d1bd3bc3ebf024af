"""Parsing of STORAGE_URI into an `S3Location` or a `HubRepoLocation`.

URIs are split by hand rather than with `urllib.parse.urlparse`: S3 keys may contain `?`, `#`
and `@`, which urlparse would silently cut off as query, fragment or user info.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from .config import DATASET, MODEL
from .errors import ConfigurationError, UnsupportedSchemeError

S3_SCHEME = "s3"
HF_SCHEME = "hf"
SUPPORTED_SCHEMES = (S3_SCHEME, HF_SCHEME)

# Hub prefixes as used by huggingface_hub's HfFileSystem (`hf://datasets/org/name`).
_HUB_TYPE_PREFIXES = {"datasets": DATASET, "models": MODEL}
_HUB_NAME_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
# Bucket names per AWS rules, relaxed to allow underscores and upper case used by some
# S3-compatible stores; what matters here is that nothing URL-structural slips through.
_BUCKET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,62}$")


@dataclass(frozen=True)
class S3Location:
    """`s3://bucket/prefix`: a prefix (a "directory") or the key of one object."""

    bucket: str
    prefix: str

    def uri(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}"


@dataclass(frozen=True)
class HubRepoLocation:
    """`hf://[datasets/|models/]org/name[@revision][/subpath]` on the Hugging Face Hub."""

    repo_id: str
    repo_type: str
    revision: str | None = None
    subpath: str = ""

    def uri(self) -> str:
        prefix = "datasets/" if self.repo_type == DATASET else ""
        return f"hf://{prefix}{self.repo_id}"


def split_scheme(uri: str) -> tuple[str, str]:
    """Return (lower-case scheme, rest) or raise when STORAGE_URI has no scheme."""
    scheme, separator, rest = uri.partition("://")
    if not separator or not scheme:
        raise ConfigurationError(
            "STORAGE_URI must look like s3://bucket/prefix or hf://org/name, "
            f"got a value without a scheme ({len(uri)} characters)"
        )
    return scheme.lower(), rest


def parse_storage_uri(uri: str, kind: str) -> S3Location | HubRepoLocation:
    """Parse STORAGE_URI for the dataset or model initializer."""
    scheme, rest = split_scheme(uri)
    if scheme == S3_SCHEME:
        return parse_s3_uri(rest)
    if scheme == HF_SCHEME:
        return parse_hub_uri(rest, kind)
    raise UnsupportedSchemeError(
        f"unsupported STORAGE_URI scheme {scheme + '://'!r} for the {kind} initializer: "
        f"expected one of {', '.join(s + '://' for s in SUPPORTED_SCHEMES)}"
    )


def parse_s3_uri(rest: str) -> S3Location:
    """Parse the part after `s3://`; the prefix keeps every character of the key."""
    bucket, _, prefix = rest.partition("/")
    if "@" in bucket or ":" in bucket:
        # Never echo it: this is most likely `key:secret@bucket`.
        raise ConfigurationError(
            "STORAGE_URI must not carry credentials or a port in the bucket part; "
            "use ACCESS_KEY_ID / SECRET_ACCESS_KEY and ENDPOINT"
        )
    if not _BUCKET_NAME.match(bucket):
        raise ConfigurationError(f"STORAGE_URI has an invalid S3 bucket name {bucket!r}")
    return S3Location(bucket=bucket, prefix=prefix)


def parse_hub_uri(rest: str, kind: str) -> HubRepoLocation:
    """Parse the part after `hf://`.

    The default repo type follows the initializer (upstream: datasets for the dataset
    initializer, models for the model initializer); a `datasets/` or `models/` prefix picks it
    explicitly. A sub-path after `org/name` does not narrow the download, as upstream: the
    Kubeflow SDK uses it to point torchtune at files inside the downloaded repo.
    """
    segments = [segment for segment in rest.split("/") if segment]
    repo_type = kind
    if segments and segments[0] in _HUB_TYPE_PREFIXES:
        repo_type = _HUB_TYPE_PREFIXES[segments.pop(0)]
    elif segments and segments[0] == "spaces":
        raise ConfigurationError("hf://spaces/... repositories are not supported; use a model or dataset repo")
    if not segments:
        raise ConfigurationError("STORAGE_URI hf:// needs a repository, e.g. hf://org/name")
    name_count = 2 if len(segments) >= 2 else 1
    name_segments, subpath = segments[:name_count], "/".join(segments[name_count:])
    name_segments[-1], revision = _split_revision(name_segments[-1])
    for segment in name_segments:
        if not _HUB_NAME_SEGMENT.match(segment) or ".." in segment:
            raise ConfigurationError(f"STORAGE_URI has an invalid Hugging Face repo name {segment!r}")
    return HubRepoLocation("/".join(name_segments), repo_type, revision, subpath)


def _split_revision(segment: str) -> tuple[str, str | None]:
    name, separator, revision = segment.partition("@")
    if not separator:
        return name, None
    if not revision:
        raise ConfigurationError("STORAGE_URI has an empty revision after '@'")
    # `refs/pr/1` has to be written `refs%2Fpr%2F1` inside the URI.
    return name, unquote(revision)
