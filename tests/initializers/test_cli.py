"""The command line as a container runs it: `python -m pulumi_kubeflow_trainer.initializers ...`."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

import pulumi_kubeflow_trainer.initializers as initializers_package
from pulumi_kubeflow_trainer.initializers.cli import dataset_main, main, model_main, write_termination_message
from pulumi_kubeflow_trainer.initializers.safe_paths import JOURNAL_NAME, MANIFEST_NAME

from .conftest import Bucket, enforced_moto_auth, tree_of

COMPONENTS_DIR = Path(initializers_package.__file__).resolve().parents[2]


def subprocess_env(extra: dict[str, str]) -> dict[str, str]:
    """A clean environment: only what a container would get, plus the package on the path."""
    environ = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    environ.update(
        PYTHONPATH=str(COMPONENTS_DIR),
        AWS_EC2_METADATA_DISABLED="true",
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
    )
    environ.update(extra)
    return environ


def run_module(python: str, arguments: list[str], environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-m", "pulumi_kubeflow_trainer.initializers", *arguments],
        env=subprocess_env(environ),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_module_downloads_a_dataset_end_to_end(bucket: Bucket, s3_env, python_executable, tmp_path: Path) -> None:
    objects = {f"corpus/{index:03d}/text.txt": os.urandom(1000 + index) for index in range(120)}
    objects["corpus/big/weights.bin"] = os.urandom(40 * 1024 * 1024 + 3)  # crosses the ranged threshold
    for key, content in objects.items():
        bucket.put(key, content)
    output = tmp_path / "workspace" / "dataset"

    completed = run_module(
        python_executable, ["dataset", "--output", str(output)], {**s3_env, "STORAGE_URI": bucket.uri("corpus")}
    )

    assert completed.returncode == 0, completed.stderr
    downloaded = tree_of(output)
    manifest = json.loads(downloaded.pop(MANIFEST_NAME))
    want = {key.removeprefix("corpus/"): hashlib.sha256(content).hexdigest() for key, content in objects.items()}
    assert {path: hashlib.sha256(content).hexdigest() for path, content in downloaded.items()} == want
    assert {entry["path"]: entry["sha256"] for entry in manifest["files"]} == want
    assert "121/121 files" in completed.stderr
    assert completed.stdout == ""


def test_a_killed_process_resumes_where_it_stopped(bucket: Bucket, s3_env, python_executable, tmp_path: Path) -> None:
    objects = {f"many/{index:04d}.bin": os.urandom(2048) for index in range(400)}
    for key, content in objects.items():
        bucket.put(key, content)
    output = tmp_path / "out"
    environ = subprocess_env({**s3_env, "STORAGE_URI": bucket.uri("many/"), "WORKERS": "1"})
    process = subprocess.Popen(
        [python_executable, "-m", "pulumi_kubeflow_trainer.initializers", "dataset", "--output", str(output)],
        env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    journal = output / JOURNAL_NAME
    deadline = time.monotonic() + 120  # a bound on waiting, not an assertion on speed
    while process.poll() is None and time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count("\n") >= 20:
            process.send_signal(signal.SIGKILL)
            break
        time.sleep(0.01)
    process.wait(timeout=60)
    if process.returncode == 0:
        pytest.skip("the download finished before it could be killed")
    completed_before = journal.read_text().count("\n")

    rerun = run_module(python_executable, ["dataset", "--output", str(output)], {**s3_env, "STORAGE_URI": bucket.uri("many/")})

    assert rerun.returncode == 0, rerun.stderr
    assert f"{completed_before} already present" in rerun.stderr
    assert {path: content for path, content in tree_of(output).items() if path != MANIFEST_NAME} == {
        key.removeprefix("many/"): content for key, content in objects.items()
    }


def test_an_unknown_scheme_exits_non_zero_with_one_line(python_executable, tmp_path: Path) -> None:
    completed = run_module(python_executable, ["model", "--output", str(tmp_path)], {"STORAGE_URI": "gs://bucket/model"})

    assert completed.returncode == 1
    assert completed.stderr == (
        "model initializer failed: unsupported STORAGE_URI scheme 'gs://' for the model initializer: "
        "expected one of s3://, hf://\n"
    )


def test_bad_credentials_exit_non_zero_without_traceback_or_secrets(
    bucket: Bucket, s3_env, iam_user, moto_endpoint: str, python_executable, tmp_path: Path
) -> None:
    bucket.put("data/a.txt", b"a")
    access_key, secret_key = iam_user
    environ = {**s3_env, "STORAGE_URI": bucket.uri("data/"), "ACCESS_KEY_ID": access_key,
               "SECRET_ACCESS_KEY": secret_key + "x"}

    with enforced_moto_auth(moto_endpoint):
        completed = run_module(python_executable, ["dataset", "--output", str(tmp_path / "out")], environ)

    assert completed.returncode == 1
    assert completed.stderr.count("\n") == 1
    assert "Traceback" not in completed.stderr
    assert "SignatureDoesNotMatch" in completed.stderr
    assert access_key not in completed.stderr and secret_key not in completed.stderr


@pytest.mark.parametrize(
    ("entry_point", "arguments", "status"),
    [
        (main, ["--help"], 0),
        (main, ["checkpoint"], 2),
        (dataset_main, ["--workers", "lots"], 2),
        (model_main, ["--help"], 0),
    ],
    ids=[
        "help exits zero",
        "an unknown initializer is a usage error",
        "a non-numeric worker count is a usage error",
        "the model console script has its own help",
    ],
)
def test_entry_points_return_exit_statuses(entry_point, arguments, status, capsys) -> None:
    assert entry_point(arguments) == status


def test_the_console_entry_point_runs_the_initializer(monkeypatch, tmp_path: Path, capsys) -> None:
    monkeypatch.setenv("STORAGE_URI", "ftp://host/file")

    assert dataset_main(["--output", str(tmp_path)]) == 1
    assert "unsupported STORAGE_URI scheme 'ftp://'" in capsys.readouterr().err


def test_the_error_line_goes_to_the_termination_log_when_kubernetes_provides_one(tmp_path: Path) -> None:
    termination_log = tmp_path / "termination-log"
    termination_log.touch()

    write_termination_message("dataset initializer failed: boom", str(termination_log))

    assert termination_log.read_text() == "dataset initializer failed: boom\n"


def test_the_cli_imports_neither_boto3_nor_huggingface_hub_nor_pulumi(python_executable) -> None:
    probe = (
        "import sys, pulumi_kubeflow_trainer.initializers.cli; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('boto3', 'botocore', 'huggingface_hub', 'pulumi', 'pydantic')))"
    )
    completed = subprocess.run(
        [python_executable, "-c", probe], env=subprocess_env({}), capture_output=True, text=True, timeout=60
    )
    assert completed.stdout.strip() == "[]", completed.stderr


IMPORT_BLOCKER = """
import sys

class BlockImports:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ImportError("blocked for this test: " + name)

sys.meta_path.insert(0, BlockImports())
from pulumi_kubeflow_trainer.initializers.cli import main
sys.exit(main(["dataset", "--output", {output!r}]))
"""


@pytest.mark.parametrize(
    "scheme",
    ["s3", "hf"],
    ids=["an s3 run works without huggingface_hub installed", "an hf run works without boto3 installed"],
)
def test_each_scheme_needs_only_its_own_client_library(
    scheme, bucket: Bucket, s3_env, fake_hub, python_executable, tmp_path: Path
) -> None:
    if scheme == "s3":
        bucket.put("data/a.txt", b"a")
        environ, blocked = {**s3_env, "STORAGE_URI": bucket.uri("data/")}, ("huggingface_hub", "httpx2", "httpx")
    else:
        fake_hub.add_repo("org/tiny", "dataset").add_commit({"a.txt": b"a"})
        environ, blocked = {"STORAGE_URI": "hf://org/tiny", "HF_ENDPOINT": fake_hub.endpoint}, ("boto3", "botocore")
    script = IMPORT_BLOCKER.format(blocked=set(blocked), output=str(tmp_path / "out"))

    completed = subprocess.run(
        [python_executable, "-c", script], env=subprocess_env(environ), capture_output=True, text=True, timeout=120
    )

    assert completed.returncode == 0, completed.stderr
    assert (tmp_path / "out" / "a.txt").read_bytes() == b"a"
