"""The env contract, STORAGE_URI parsing and pattern defaults (no network)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pulumi_kubeflow_trainer.initializers.config import (
    DEFAULT_WORKERS,
    HF_MODEL_DEFAULT_ALLOW_PATTERNS,
    MODEL_DEFAULT_IGNORE_PATTERNS,
    load_settings,
)
from pulumi_kubeflow_trainer.initializers.errors import ConfigurationError, UnsupportedSchemeError
from pulumi_kubeflow_trainer.initializers.patterns import PathFilter, resolve_path_filter
from pulumi_kubeflow_trainer.initializers.storage_uri import HubRepoLocation, S3Location, parse_storage_uri


@dataclass(frozen=True)
class SettingsCase:
    name: str
    kind: str
    environ: dict[str, str]
    field: str
    want: object


SETTINGS_CASES = [
    SettingsCase("the dataset output defaults to /workspace/dataset", "dataset",
                 {"STORAGE_URI": "s3://bkt/p"}, "output_dir", Path("/workspace/dataset")),
    SettingsCase("the model output defaults to /workspace/model", "model",
                 {"STORAGE_URI": "s3://bkt/p"}, "output_dir", Path("/workspace/model")),
    SettingsCase("ignore patterns are comma separated and trimmed", "dataset",
                 {"STORAGE_URI": "s3://bkt/p", "IGNORE_PATTERNS": " *.bin, ,*.pt "}, "ignore_patterns", ("*.bin", "*.pt")),
    SettingsCase("an empty IGNORE_PATTERNS is kept apart from an unset one", "model",
                 {"STORAGE_URI": "s3://bkt/p", "IGNORE_PATTERNS": ""}, "ignore_patterns", ()),
    SettingsCase("an unset IGNORE_PATTERNS is None", "model",
                 {"STORAGE_URI": "s3://bkt/p"}, "ignore_patterns", None),
    SettingsCase("an empty ENDPOINT counts as unset, as upstream", "dataset",
                 {"STORAGE_URI": "s3://bkt/p", "ENDPOINT": ""}, "endpoint", None),
    SettingsCase("WORKERS sets the parallelism", "dataset",
                 {"STORAGE_URI": "s3://bkt/p", "WORKERS": "3"}, "workers", 3),
    SettingsCase("WORKERS defaults to 16", "dataset",
                 {"STORAGE_URI": "s3://bkt/p"}, "workers", DEFAULT_WORKERS),
    SettingsCase("REVISION is read for pinning hub downloads", "model",
                 {"STORAGE_URI": "hf://org/name", "REVISION": "v1.0"}, "revision", "v1.0"),
]


@pytest.mark.parametrize("case", SETTINGS_CASES, ids=lambda case: case.name)
def test_settings_follow_the_env_contract(case: SettingsCase) -> None:
    settings = load_settings(case.kind, case.environ)
    assert getattr(settings, case.field) == case.want


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({}, "STORAGE_URI environment variable must be set"),
        ({"STORAGE_URI": "s3://bkt/p", "WORKERS": "many"}, "WORKERS must be an integer"),
        ({"STORAGE_URI": "s3://bkt/p", "WORKERS": "0"}, "WORKERS must be between 1 and 256"),
        ({"STORAGE_URI": "s3://bkt/p", "ENDPOINT": "minio:9000"}, "ENDPOINT must be an http:// or https:// URL"),
    ],
    ids=[
        "a missing STORAGE_URI is refused",
        "a non-numeric WORKERS is refused",
        "zero workers are refused",
        "an endpoint without a scheme is refused",
    ],
)
def test_invalid_settings_are_refused(environ: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        load_settings("dataset", environ)


def test_secrets_are_left_out_of_the_settings_repr() -> None:
    settings = load_settings(
        "dataset",
        {"STORAGE_URI": "s3://bkt/p", "ACCESS_KEY_ID": "AKIDSECRETVALUE", "SECRET_ACCESS_KEY": "sekrit-value",
         "ACCESS_TOKEN": "hf_tokenvalue"},
    )
    assert "AKIDSECRETVALUE" not in repr(settings)
    assert "sekrit-value" not in repr(settings)
    assert "hf_tokenvalue" not in repr(settings)


@dataclass(frozen=True)
class UriCase:
    name: str
    uri: str
    kind: str
    want: object


URI_CASES = [
    UriCase("an s3 prefix keeps the text after the bucket", "s3://bkt/data/train", "dataset", S3Location("bkt", "data/train")),
    UriCase("an s3 bucket without prefix means the whole bucket", "s3://bkt", "dataset", S3Location("bkt", "")),
    UriCase("s3 keys keep question marks and hashes that urlparse would cut", "s3://bkt/a?b#c", "dataset",
            S3Location("bkt", "a?b#c")),
    UriCase("the scheme is case insensitive", "S3://bkt/x", "model", S3Location("bkt", "x")),
    UriCase("an hf uri is a dataset repo for the dataset initializer", "hf://org/name", "dataset",
            HubRepoLocation("org/name", "dataset")),
    UriCase("an hf uri is a model repo for the model initializer", "hf://org/name", "model",
            HubRepoLocation("org/name", "model")),
    UriCase("a datasets/ prefix picks the dataset repo type explicitly", "hf://datasets/org/name", "model",
            HubRepoLocation("org/name", "dataset")),
    UriCase("a sub-path after the repo is kept aside, as upstream drops it from the repo id",
            "hf://org/name/train/part.jsonl", "dataset", HubRepoLocation("org/name", "dataset", None, "train/part.jsonl")),
    UriCase("a revision may follow the repo name after @", "hf://org/name@v2", "model",
            HubRepoLocation("org/name", "model", "v2")),
    UriCase("a revision with slashes is percent-encoded", "hf://org/name@refs%2Fpr%2F1", "model",
            HubRepoLocation("org/name", "model", "refs/pr/1")),
    UriCase("a canonical single-name model is accepted", "hf://gpt2", "model", HubRepoLocation("gpt2", "model")),
]


@pytest.mark.parametrize("case", URI_CASES, ids=lambda case: case.name)
def test_storage_uris_parse_like_upstream(case: UriCase) -> None:
    assert parse_storage_uri(case.uri, case.kind) == case.want


@pytest.mark.parametrize(
    ("uri", "error", "message"),
    [
        ("gs://bucket/x", UnsupportedSchemeError, "unsupported STORAGE_URI scheme 'gs://'"),
        ("cache://schema/table", UnsupportedSchemeError, "unsupported STORAGE_URI scheme 'cache://'"),
        ("/data/local", ConfigurationError, "without a scheme"),
        ("s3://AKIA:secret@bucket/x", ConfigurationError, "must not carry credentials"),
        ("hf://", ConfigurationError, "needs a repository"),
        ("hf://org/../etc", ConfigurationError, "invalid Hugging Face repo name"),
        ("hf://spaces/org/app", ConfigurationError, "spaces"),
    ],
    ids=[
        "an unknown scheme is refused",
        "the upstream cache scheme is not implemented here",
        "a bare path is refused",
        "credentials embedded in the uri are refused without being echoed",
        "an hf uri without a repo is refused",
        "a repo name with dot-dot is refused",
        "spaces are refused",
    ],
)
def test_bad_storage_uris_are_refused(uri: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message) as raised:
        parse_storage_uri(uri, "dataset")
    assert "secret" not in str(raised.value)


@dataclass(frozen=True)
class FilterCase:
    name: str
    kind: str
    scheme: str
    environ: dict[str, str]
    want: PathFilter


FILTER_CASES = [
    FilterCase("a dataset has no default patterns", "dataset", "s3", {}, PathFilter(None, ())),
    FilterCase("an s3 model ignores upstream's non-safetensors weights by default", "model", "s3", {},
               PathFilter(None, MODEL_DEFAULT_IGNORE_PATTERNS)),
    FilterCase("an hf model also allows only upstream's file types by default", "model", "hf", {},
               PathFilter(HF_MODEL_DEFAULT_ALLOW_PATTERNS, MODEL_DEFAULT_IGNORE_PATTERNS)),
    FilterCase("an empty IGNORE_PATTERNS turns the model defaults off", "model", "s3", {"IGNORE_PATTERNS": ""},
               PathFilter(None, ())),
    FilterCase("an empty ALLOW_PATTERNS allows every file of an hf model", "model", "hf", {"ALLOW_PATTERNS": ""},
               PathFilter(None, MODEL_DEFAULT_IGNORE_PATTERNS)),
    FilterCase("ALLOW_PATTERNS replaces the hf model default", "model", "hf", {"ALLOW_PATTERNS": "*.gguf"},
               PathFilter(("*.gguf",), MODEL_DEFAULT_IGNORE_PATTERNS)),
]


@pytest.mark.parametrize("case", FILTER_CASES, ids=lambda case: case.name)
def test_pattern_defaults_follow_upstream(case: FilterCase) -> None:
    settings = load_settings(case.kind, {"STORAGE_URI": f"{case.scheme}://bkt/x", **case.environ})
    assert resolve_path_filter(settings, case.scheme) == case.want


@pytest.mark.parametrize(
    ("path_filter", "relative_path", "key", "accepted"),
    [
        (PathFilter(ignore=("*.bin",)), "sub/model.bin", "p/sub/model.bin", False),
        (PathFilter(ignore=(".bin",)), "model.bin", "p/model.bin", False),
        (PathFilter(ignore=("logs/",)), "logs/run1.txt", "p/logs/run1.txt", False),
        (PathFilter(ignore=("p/secret/*",)), "secret/a", "p/secret/a", False),
        (PathFilter(allow=("*.json",)), "config.json", None, True),
        (PathFilter(allow=("*.json",)), "model.safetensors", None, False),
        (PathFilter(allow=("*.json",), ignore=("tokenizer*",)), "tokenizer.json", None, False),
    ],
    ids=[
        "a star crosses directories like huggingface_hub's fnmatch",
        "a pattern without wildcards also matches as a key suffix like upstream's OpenDAL filter",
        "a trailing slash matches everything below a directory",
        "a pattern may match the full object key",
        "an allowed file passes",
        "a file outside the allow list is skipped",
        "ignore wins over allow",
    ],
)
def test_path_filter_matching(path_filter: PathFilter, relative_path: str, key: str | None, accepted: bool) -> None:
    assert path_filter.accepts(relative_path, key) is accepted
