"""`trainjob migrate`: manifests on stdout, one `lost:` line per lost field on stderr, --strict, -o json,
and the documented errors (file, document, field) without a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from pulumi_kubeflow_trainer.cli import main
from pulumi_kubeflow_trainer.migration import migrate

from ..builders import make_v1_job

VENV_BIN = Path(sys.executable).parent


def write(path: Path, *documents: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["migrate", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_migrate_prints_the_manifests_as_yaml_and_nothing_on_stderr_when_nothing_is_lost(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path / "job.yaml", make_v1_job().build())
    code, out, err = run(capsys, "-f", str(path))
    assert (code, err) == (0, "")
    assert list(yaml.safe_load_all(out)) == migrate(path).manifests


def test_every_lost_field_is_one_line_on_stderr_with_file_document_and_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path / "jobs.yaml", make_v1_job(name="a").build(),
                 make_v1_job(name="b").run_policy(cleanPodPolicy="All").spec(elasticPolicy={"metrics": [{}]}).build())
    code, out, err = run(capsys, "-f", str(path))
    assert code == 0
    assert err.splitlines() == [
        f"lost: {path}#2 (PyTorchJob/b): spec.elasticPolicy.metrics: v1 scaled the Workers with a HorizontalPodAutoscaler on "
        "these metrics; v2 has no autoscaling of nodes",
        f"lost: {path}#2 (PyTorchJob/b): spec.runPolicy.cleanPodPolicy: All: v2 has no cleanPodPolicy: when the job finishes, "
        "the finished Pods are kept until the TrainJob (or its JobSet's ttlSecondsAfterFinished) goes; only the Pods still "
        "running are deleted (as Running did)",
    ]
    assert [doc["metadata"]["name"] for doc in yaml.safe_load_all(out)] == ["a", "b"]


def test_strict_fails_and_prints_no_manifest_when_a_field_is_lost(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path / "job.yaml", make_v1_job().run_policy(cleanPodPolicy="All").build())
    code, out, err = run(capsys, "-f", str(path), "--strict")
    assert (code, out) == (1, "")
    assert err.splitlines()[0].startswith(f"lost: {path}#1 (PyTorchJob/job): spec.runPolicy.cleanPodPolicy: ")
    assert err.splitlines()[-1].startswith("error: 1 field(s) of the v1 jobs have no place in v2")


def test_strict_passes_when_nothing_is_lost(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "-f", str(write(tmp_path / "job.yaml", make_v1_job().build())), "--strict")
    assert (code, err) == (0, "") and out.startswith("---\n")


def test_json_output_is_one_list_kubectl_applies(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path / "job.yaml", make_v1_job().container(imagePullPolicy="Always").build())
    code, out, _ = run(capsys, "-f", str(path), "-o", "json")
    listing = json.loads(out)
    assert (code, listing["kind"], listing["apiVersion"]) == (0, "List", "v1")
    assert [item["kind"] for item in listing["items"]] == ["TrainingRuntime", "TrainJob"]


def test_a_directory_migrates_every_file_in_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", make_v1_job(name="a").build())
    write(tmp_path / "b.yaml", make_v1_job("XGBoostJob", name="b").build())
    code, out, _ = run(capsys, "-f", str(tmp_path))
    assert code == 0
    assert [(doc["kind"], doc["metadata"]["name"]) for doc in yaml.safe_load_all(out)] == [("TrainJob", "a"), ("TrainingRuntime", "b"), ("TrainJob", "b")]


@dataclass(frozen=True)
class Refused:
    name: str
    documents: tuple[Any, ...]
    lines: tuple[str, ...]  # each error line after `error: FILE`


REFUSED = (
    Refused("a TFJob is refused: v2 has no runtime for TensorFlow",
            (make_v1_job(name="ok").build(), {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "tf"}}),
            ('#2 (TFJob/tf): kind: Unsupported value: "TFJob": v2 has no runtime for TensorFlow',)),
    Refused("an MXJob is refused: v2 has no runtime for MXNet",
            ({"apiVersion": "kubeflow.org/v1", "kind": "MXJob", "metadata": {"name": "mx"}},),
            ('#1 (MXJob/mx): kind: Unsupported value: "MXJob": v2 has no runtime for MXNet',)),
    Refused("an object of another kind is refused, every one of them",
            ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}},
             {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "p"}}),
            ('#1 (Service/s): kind: Unsupported value: "Service" (apiVersion "v1"): not a Training Operator v1 job',
             '#2 (PersistentVolumeClaim/p): kind: Unsupported value: "PersistentVolumeClaim"')),
    Refused("a v1 kind of another apiVersion is refused",
            ({"apiVersion": "kubeflow.org/v1beta1", "kind": "PyTorchJob", "metadata": {"name": "old"}},),
            ('#1 (PyTorchJob/old): apiVersion: Unsupported value: "kubeflow.org/v1beta1": PyTorchJob is migrated from '
             "kubeflow.org/v1 only",)),
    Refused("a job v1 refuses is refused with its field", (make_v1_job().replica("Master", replicas=2).build(),),
            ("#1 (PyTorchJob/job): spec.pytorchReplicaSpecs.Master.replicas: Forbidden: 2: must be 1",)),
)


@pytest.mark.parametrize("case", REFUSED, ids=lambda case: case.name)
def test_what_migrate_refuses_is_one_error_line_each_with_file_and_document(
    case: Refused, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path / "in.yaml", *case.documents)
    code, out, err = run(capsys, "-f", str(path))
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert len(lines) == len(case.lines)
    for line, expected in zip(lines, case.lines, strict=True):
        assert line.startswith(f"error: {path}{expected}"), line


def test_yaml_that_does_not_parse_is_an_error_with_its_file_and_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: [\n")
    code, out, err = run(capsys, "-f", str(path))
    assert (code, out) == (1, "")
    assert err.startswith(f"error: {path}:4:1: invalid YAML: ") and len(err.splitlines()) == 1


def test_a_missing_file_is_an_error_naming_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "-f", str(tmp_path / "none.yaml"))
    assert code == 1 and err.startswith(f"error: {tmp_path / 'none.yaml'}: cannot read")


def test_the_installed_trainjob_command_runs_migrate(tmp_path: Path) -> None:
    path = write(tmp_path / "job.yaml", make_v1_job().build())
    done = subprocess.run([str(VENV_BIN / "trainjob"), "migrate", "-f", str(path)], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert yaml.safe_load(done.stdout)["kind"] == "TrainJob"
