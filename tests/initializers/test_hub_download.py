"""Hugging Face downloads through huggingface_hub against the local fake Hub (tests/initializers/fake_hf_hub.py).

These tests cover our side (URI parsing, revision pinning, patterns, path checks, checksum
verification, error lines) and that snapshot_download works against the routes the fake
serves. They do not cover the real Hub's redirects to its CDN, Xet storage, rate limits or gated-repo
flows.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from pulumi_kubeflow_trainer.initializers.safe_paths import MANIFEST_NAME

from .conftest import run_in_process
from .fake_hf_hub import FakeHub

TOKEN = "hf_fake_token_0123456789"


def downloaded_files(output: Path) -> dict[str, bytes]:
    """The repository files in output (huggingface_hub's .cache/ and our manifest excluded)."""
    return {
        path.relative_to(output).as_posix(): path.read_bytes()
        for path in output.rglob("*")
        if path.is_file() and not path.relative_to(output).as_posix().startswith((".cache/", MANIFEST_NAME))
    }


def hub_env(hub: FakeHub, uri: str, **extra: str) -> dict[str, str]:
    return {"STORAGE_URI": uri, "HF_ENDPOINT": hub.endpoint, **extra}


DATASET_FILES = {
    "README.md": b"# tiny\n",
    "data/train.parquet": os.urandom(20_000),
    "data/test.csv": b"text,label\nhello,1\n",
}
MODEL_FILES = {
    "config.json": b'{"hidden_size": 8}',
    "model.safetensors": os.urandom(30_000),
    "tokenizer.model": os.urandom(500),
    "pytorch_model.bin": os.urandom(1000),
    "flax_model.msgpack": os.urandom(1000),
    "README.md": b"# model card\n",
}


def test_a_dataset_repo_is_downloaded_with_a_pinned_manifest(fake_hub: FakeHub, tmp_path: Path) -> None:
    commit = fake_hub.add_repo("org/tiny", "dataset").add_commit(DATASET_FILES)

    run = run_in_process("dataset", tmp_path / "dataset", hub_env(fake_hub, "hf://org/tiny"))

    assert run.status == 0, run.stderr
    assert downloaded_files(tmp_path / "dataset") == DATASET_FILES
    manifest = json.loads((tmp_path / "dataset" / MANIFEST_NAME).read_text())
    assert manifest["revision"] == commit
    assert {entry["path"]: entry["sha256"] for entry in manifest["files"]} == {
        path: hashlib.sha256(content).hexdigest() for path, content in DATASET_FILES.items()
    }


@pytest.mark.parametrize(
    ("extra_env", "want"),
    [
        ({}, {"config.json", "model.safetensors", "tokenizer.model"}),
        ({"ALLOW_PATTERNS": "", "IGNORE_PATTERNS": ""}, set(MODEL_FILES)),
        ({"ALLOW_PATTERNS": "*.json,*.md"}, {"config.json", "README.md"}),
        ({"IGNORE_PATTERNS": "*.model"}, {"config.json", "model.safetensors"}),
    ],
    ids=[
        "a model repo gets upstream's default allow and ignore patterns",
        "empty pattern lists download the whole repo",
        "ALLOW_PATTERNS replaces the default allow list",
        "IGNORE_PATTERNS replaces the default ignore list",
    ],
)
def test_model_patterns_select_files(fake_hub: FakeHub, tmp_path: Path, extra_env, want) -> None:
    fake_hub.add_repo("org/model", "model").add_commit(MODEL_FILES)

    run = run_in_process("model", tmp_path / "model", hub_env(fake_hub, "hf://org/model", **extra_env))

    assert run.status == 0, run.stderr
    assert set(downloaded_files(tmp_path / "model")) == want


@pytest.mark.parametrize(
    ("uri", "extra_env"),
    [("hf://org/model", {"REVISION": "v1"}), ("hf://org/model@v1", {})],
    ids=["REVISION pins a tag", "a revision in the uri pins a tag"],
)
def test_a_revision_pins_an_older_commit(fake_hub: FakeHub, tmp_path: Path, uri, extra_env) -> None:
    repo = fake_hub.add_repo("org/model", "model")
    old_commit = repo.add_commit({"config.json": b'{"v": 1}'}, ref="v1")
    repo.add_commit({"config.json": b'{"v": 2}'}, ref="main")

    run = run_in_process("model", tmp_path / "model", hub_env(fake_hub, uri, **extra_env))

    assert run.status == 0, run.stderr
    assert (tmp_path / "model" / "config.json").read_bytes() == b'{"v": 1}'
    assert json.loads((tmp_path / "model" / MANIFEST_NAME).read_text())["revision"] == old_commit


def test_a_model_initializer_can_fetch_a_dataset_repo_by_prefix(fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.add_repo("org/tiny", "dataset").add_commit({"config.json": b"{}"})

    run = run_in_process("model", tmp_path / "m", hub_env(fake_hub, "hf://datasets/org/tiny"))

    assert run.status == 0, run.stderr
    assert set(downloaded_files(tmp_path / "m")) == {"config.json"}


def test_a_private_repo_needs_the_access_token(fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.add_repo("org/private", "dataset", token=TOKEN).add_commit(DATASET_FILES)

    run = run_in_process("dataset", tmp_path / "d", hub_env(fake_hub, "hf://org/private", ACCESS_TOKEN=TOKEN))

    assert run.status == 0, run.stderr
    assert downloaded_files(tmp_path / "d") == DATASET_FILES


@pytest.mark.parametrize(
    ("uri", "extra_env", "message"),
    [
        ("hf://org/private", {"ACCESS_TOKEN": TOKEN + "-wrong"}, "repository not found (HTTP 401); if it is private, check ACCESS_TOKEN"),
        ("hf://org/absent", {"ACCESS_TOKEN": TOKEN}, "hf://datasets/org/absent: repository not found (HTTP 404)"),
        ("hf://org/private@no-such-tag", {"ACCESS_TOKEN": TOKEN}, "revision 'no-such-tag' not found"),
        ("hf://org/private@v1", {"ACCESS_TOKEN": TOKEN, "REVISION": "v2"}, "REVISION 'v2' contradicts the revision 'v1'"),
    ],
    ids=[
        "a wrong token fails without printing it",
        "a missing repo fails with one line",
        "a missing revision fails with one line",
        "a revision in the uri and a different REVISION are refused",
    ],
)
def test_hub_failures_are_one_redacted_line(fake_hub: FakeHub, tmp_path: Path, uri, extra_env, message) -> None:
    fake_hub.add_repo("org/private", "dataset", token=TOKEN).add_commit(DATASET_FILES)

    run = run_in_process("dataset", tmp_path / "d", hub_env(fake_hub, uri, **extra_env))

    assert run.status == 1
    assert message in run.stderr
    assert run.stderr.count("\n") == 1
    assert TOKEN not in run.stderr
    assert not (tmp_path / "d").exists()


def test_an_unreachable_hub_is_a_one_line_error(tmp_path: Path) -> None:
    from .conftest import free_port

    environ = {"STORAGE_URI": "hf://org/tiny", "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}

    run = run_in_process("dataset", tmp_path / "d", environ)

    assert run.status == 1
    assert "cannot reach the Hugging Face Hub at http://127.0.0.1:" in run.stderr


def test_a_repo_file_path_escaping_the_output_is_refused_before_download(fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.add_repo("org/evil", "dataset").add_commit({"ok.txt": b"ok", "../escape.txt": b"payload"})

    run = run_in_process("dataset", tmp_path / "out" / "d", hub_env(fake_hub, "hf://org/evil"))

    assert run.status == 1
    assert "'../escape.txt': path segment '..' is not a plain name" in run.stderr
    assert fake_hub.downloads() == []
    assert not (tmp_path / "out").exists()


def test_content_that_does_not_match_the_hub_checksum_fails_the_run(fake_hub: FakeHub, tmp_path: Path) -> None:
    repo = fake_hub.add_repo("org/tiny", "dataset")
    repo.add_commit({"data/train.parquet": b"A" * 4096})
    repo.serve_instead["data/train.parquet"] = b"B" * 4096  # same size, other bytes

    run = run_in_process("dataset", tmp_path / "d", hub_env(fake_hub, "hf://org/tiny"))

    assert run.status == 1
    assert "'data/train.parquet': content does not match the Hub's checksum" in run.stderr


def test_a_rerun_downloads_nothing_again(fake_hub: FakeHub, tmp_path: Path) -> None:
    fake_hub.add_repo("org/tiny", "dataset").add_commit(DATASET_FILES)
    environ = hub_env(fake_hub, "hf://org/tiny")
    assert run_in_process("dataset", tmp_path / "d", environ).status == 0
    downloads_after_first_run = len(fake_hub.downloads())

    rerun = run_in_process("dataset", tmp_path / "d", environ)

    assert rerun.status == 0, rerun.stderr
    assert downloads_after_first_run == len(DATASET_FILES)
    assert len(fake_hub.downloads()) == downloads_after_first_run
