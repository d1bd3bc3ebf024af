"""Path safety rules and the checksum manifest (local file system only)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pulumi_kubeflow_trainer.initializers.errors import redact_secrets
from pulumi_kubeflow_trainer.initializers.manifest import MANIFEST_FORMAT, ChecksumManifest, ManifestEntry
from pulumi_kubeflow_trainer.initializers.safe_paths import (
    JOURNAL_NAME,
    MANIFEST_NAME,
    OutputRoot,
    find_layout_conflicts,
    path_problem,
)


@pytest.mark.parametrize(
    "relative_path",
    ["../escape", "a/../../escape", "/etc/passwd", "a//b", "./a", "a/./b", "..", "", "a\\..\\b", "a\nb",
     MANIFEST_NAME, f"{JOURNAL_NAME}", ".initializer-staging/x", "x" * 256],
    ids=[
        "a parent segment at the start is refused",
        "a parent segment in the middle is refused",
        "an absolute path is refused",
        "an empty segment is refused",
        "a dot segment at the start is refused",
        "a dot segment in the middle is refused",
        "a bare parent reference is refused",
        "an empty path is refused",
        "backslashes are refused",
        "control characters are refused",
        "the manifest name is reserved",
        "the journal name is reserved",
        "the staging directory is reserved",
        "a name longer than the file system allows is refused",
    ],
)
def test_unsafe_relative_paths_are_refused(relative_path: str) -> None:
    assert path_problem(relative_path) is not None


@pytest.mark.parametrize(
    "relative_path",
    ["file.txt", "a/b/c.parquet", ".hidden", "dir/..dots..", "name with spaces", "ünïcode/файл"],
    ids=[
        "a plain file is fine",
        "nested directories are fine",
        "a hidden file is fine",
        "dots inside a name are fine",
        "spaces are fine",
        "non-ascii names are fine",
    ],
)
def test_plain_relative_paths_are_accepted(relative_path: str) -> None:
    assert path_problem(relative_path) is None


def test_an_existing_symlinked_directory_in_the_output_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    output = tmp_path / "output"
    output.mkdir()
    (output / "link").symlink_to(outside)
    assert "symlink" in OutputRoot(output).target_problem("link/file.txt")


def test_an_output_directory_that_is_itself_a_symlink_is_allowed(tmp_path: Path) -> None:
    volume = tmp_path / "volume"
    volume.mkdir()
    (tmp_path / "output").symlink_to(volume)
    root = OutputRoot(tmp_path / "output")
    assert root.target_problem("a/b.txt") is None
    assert root.target_path("a/b.txt") == volume / "a" / "b.txt"


def test_a_file_that_is_also_a_directory_is_a_conflict() -> None:
    conflicts = find_layout_conflicts(["a", "a/b", "c"])
    assert conflicts == [("a/b", "'a' is both a file and a directory")]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["..", ".", "", "a", "b", "/", "c.txt", "\\"]), min_size=1, max_size=6))
def test_no_accepted_path_resolves_outside_the_output(segments: list[str]) -> None:
    relative_path = "/".join(segments)
    root = OutputRoot("/srv/output")
    if root.target_problem(relative_path) is None:
        resolved = os.path.normpath(root.target_path(relative_path))
        assert resolved.startswith(str(root.real_path) + os.sep)


def test_redaction_hides_every_secret_value() -> None:
    message = "key AKIAEXAMPLE1 with secret s3cr3t/value failed"
    assert redact_secrets(message, ["AKIAEXAMPLE1", "s3cr3t/value", None, ""]) == "key *** with secret *** failed"


def test_the_manifest_is_written_with_the_documented_format(tmp_path: Path) -> None:
    manifest = ChecksumManifest(tmp_path)
    manifest.record(ManifestEntry("a/b.txt", 3, "ab" * 32, '"etag"', "prefix/a/b.txt"))
    manifest.write("s3://bkt/prefix", ["a/b.txt"])
    document = json.loads((tmp_path / MANIFEST_NAME).read_text())
    assert document == {
        "format": MANIFEST_FORMAT,
        "source": "s3://bkt/prefix",
        "files": [{"path": "a/b.txt", "size": 3, "sha256": "ab" * 32, "etag": '"etag"', "source": "prefix/a/b.txt"}],
    }
    assert not (tmp_path / JOURNAL_NAME).exists()


def test_a_journal_left_by_a_killed_run_is_replayed_and_a_torn_line_ignored(tmp_path: Path) -> None:
    manifest = ChecksumManifest(tmp_path)
    manifest.record(ManifestEntry("done.txt", 1, "00" * 32, '"e1"'))
    manifest.close()
    with open(tmp_path / JOURNAL_NAME, "a") as journal:
        journal.write('{"path": "torn.txt", "si')
    reloaded = ChecksumManifest.load(tmp_path)
    assert set(reloaded.entries) == {"done.txt"}
    assert reloaded.get("done.txt").etag == '"e1"'


def test_a_corrupt_manifest_is_treated_as_empty(tmp_path: Path) -> None:
    (tmp_path / MANIFEST_NAME).write_text("{not json")
    assert ChecksumManifest.load(tmp_path).entries == {}


def test_progress_lines_are_throttled_to_one_per_interval() -> None:
    import io

    from pulumi_kubeflow_trainer.initializers.progress import TransferProgress

    now = [0.0]
    stream = io.StringIO()
    progress = TransferProgress("dataset", 10, 10 * 1024, stream, interval=5.0, clock=lambda: now[0])
    for _ in range(10):
        now[0] += 1.0
        progress.add_bytes(1024)
        progress.file_done()
    progress.finish()

    lines = stream.getvalue().splitlines()
    assert lines == [
        "[dataset] 4/10 files, 5.0 KiB/10.0 KiB, 1.0 KiB/s",
        "[dataset] 9/10 files, 10.0 KiB/10.0 KiB, 1.0 KiB/s",
        "[dataset] downloaded 10/10 files, 10.0 KiB/10.0 KiB, 1.0 KiB/s in 10.0s",
    ]
