"""The `trainjob` CLI: render, validate and status over YAML files; exit codes, streams, no tracebacks."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.cli import main
from pulumi_kubeflow_trainer.status import timestamp
from pulumi_kubeflow_trainer.yamlio import dump_all
from tests.builders import container, make_runtime, make_trainjob, replicated_job

VENV_BIN = Path(sys.executable).parent


def write(path: Path, *documents: dict[str, Any]) -> str:
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    runtime = make_runtime("rt").mpi().trainer(name="launcher").job(replicated_job("node", container())).obj()
    return {
        "runtime": write(tmp_path / "runtime.yaml", runtime),
        "trainjob": write(tmp_path / "trainjob.yaml", make_trainjob("team", "job").runtime_ref("rt").num_nodes(2).obj()),
        "dir": str(tmp_path),
    }


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_render_writes_the_children_as_multi_document_yaml(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    code, out, err = run(capsys, "render", "-f", files["runtime"], "-f", files["trainjob"], "--seed", "s")
    assert (code, err) == (0, "")
    assert out.startswith("---\n")
    kinds = [(doc["kind"], doc["metadata"]["name"]) for doc in yaml.safe_load_all(out)]
    assert kinds == [("Secret", "job-mpi-ssh-auth"), ("ConfigMap", "job-mpi-hostfile"), ("ConfigMap", "job-runtime-snapshot"), ("JobSet", "job")]


def test_render_with_a_seed_is_reproducible(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    first = run(capsys, "render", "-f", files["dir"], "--seed", "s")
    assert first == run(capsys, "render", "-f", files["dir"], "--seed", "s")


def test_render_options_drop_the_snapshot(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    _, out, _ = run(capsys, "render", "-f", files["dir"], "--no-snapshot", "--seed", "s")
    assert "job-runtime-snapshot" not in out


def test_render_resolves_bundled_runtimes_on_request(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trainjob = write(tmp_path / "t.yaml", make_trainjob("team", "job").runtime_ref("torch-distributed").num_nodes(2).obj())
    code, _, err = run(capsys, "render", "-f", trainjob)
    assert code == 1 and "not found" in err and err.startswith("error: ")
    code, out, _ = run(capsys, "render", "-f", trainjob, "--bundled-runtimes")
    assert code == 0 and "PET_NNODES" in out


def test_a_given_runtime_wins_over_the_bundled_one_of_the_same_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    mine = write(tmp_path / "rt.yaml", make_runtime("torch-distributed").jax().trainer(container(image="mine:1")).obj())
    trainjob = write(tmp_path / "t.yaml", make_trainjob("team", "job").runtime_ref("torch-distributed").num_nodes(2).obj())
    code, out, _ = run(capsys, "render", "-f", mine, "-f", trainjob, "--bundled-runtimes", "--no-snapshot")
    assert code == 0 and "image: mine:1" in out and "JAX_NUM_PROCESSES" in out


def test_render_multikueue(capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path) -> None:
    trainjob = write(tmp_path / "mk.yaml", make_trainjob("team", "mk").runtime_ref("rt").managed_by(c.MANAGED_BY_MULTIKUEUE).obj())
    code, out, err = run(capsys, "render", "-f", files["runtime"], "-f", trainjob)
    assert (code, out) == (0, "")
    assert err.startswith("warning: TrainJob/mk: spec.managedBy is kueue.x-k8s.io/multikueue")
    _, out, _ = run(capsys, "render", "-f", files["runtime"], "-f", trainjob, "--multikueue-jobset", "--seed", "s")
    assert "managedBy: kueue.x-k8s.io/multikueue" in out


def test_render_errors_go_to_stderr_with_their_source(capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path) -> None:
    trainjob = write(tmp_path / "bad.yaml", make_trainjob("team", "job").runtime_ref("rt").env(OMPI_MCA_plm_rsh_args="x").obj())
    code, out, err = run(capsys, "render", "-f", files["runtime"], "-f", trainjob)
    assert (code, out) == (1, "")
    assert err == (
        "error: TrainJob/job: spec.trainer.env: Invalid value: [\"OMPI_MCA_plm_rsh_args\"]: must not have reserved envs, "
        "invalid envs configured: [OMPI_MCA_plm_rsh_args]; the MPI runtime sets them\n"
    )


def test_validate_accepts_valid_input_silently(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    assert run(capsys, "validate", "-f", files["dir"]) == (0, "", "")


def test_validate_prints_one_path_message_line_per_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trainjob = write(tmp_path / "bad.yaml", make_trainjob("team", "Bad_Name").runtime_ref("rt").num_nodes(2**31).num_proc_per_node(2**31).obj())
    code, out, err = run(capsys, "validate", "-f", trainjob)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == ["metadata.name", "spec.trainer.numNodes", "spec.trainer.numProcPerNode"]
    assert "metadata.name must match RFC 1035 DNS label format" in lines[0]


def test_validate_reports_webhook_errors_and_warnings(capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path) -> None:
    deprecated = make_runtime("old").torch().trainer().label(c.LABEL_SUPPORT, c.SUPPORT_DEPRECATED).obj()
    bad = make_trainjob("team", "j").runtime_ref("old").env(PET_NNODES="1").obj()
    code, out, err = run(capsys, "validate", "-f", write(tmp_path / "all.yaml", deprecated, bad))
    assert code == 1
    assert out.startswith("spec.trainer.env: Invalid value: ")
    assert len(out.splitlines()) == 1
    warnings = err.splitlines()
    assert len(warnings) == 2 and all(line.startswith("warning: ") for line in warnings)


def test_validate_warns_but_passes(capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path) -> None:
    patched = make_trainjob("team", "job").runtime_ref("rt").runtime_patch("a.io/b", jobs=[{"name": "ghost"}]).obj()
    code, out, err = run(capsys, "validate", "-f", files["runtime"], "-f", write(tmp_path / "p.yaml", patched))
    assert (code, out) == (0, "")
    assert err.startswith("warning: spec.runtimePatches[0]: replicated job 'ghost' does not exist")


def test_validate_checks_updates_against_the_old_objects(capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path) -> None:
    old = write(tmp_path / "old.yaml", make_trainjob("team", "job").runtime_ref("rt").num_nodes(1).obj())
    code, out, _ = run(capsys, "validate", "-f", files["dir"], "--old", old)
    assert code == 1
    assert out.startswith('spec.trainer: Invalid value: "object": field is immutable')


def test_validate_reports_runtime_errors_as_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    runtime = make_runtime("rt").torch().job(replicated_job("node", container("main"), ancestor="trainer")).obj()
    code, out, _ = run(capsys, "validate", "-f", write(tmp_path / "rt.yaml", runtime))
    assert code == 1
    assert out.startswith("spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers: Invalid value: ")


def test_status_prints_trainjobs_with_their_derived_status(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trainjob = make_trainjob("team", "job").runtime_ref("rt").set("metadata.creationTimestamp", "2026-01-01T00:00:00Z").obj()
    jobset = {
        "apiVersion": c.JOBSET_API_VERSION,
        "kind": "JobSet",
        "metadata": {"name": "job", "namespace": "team"},
        "status": {"conditions": [{"type": "Completed", "status": "True", "reason": "AllJobsCompleted", "message": "done", "lastTransitionTime": "2026-01-01T01:00:00Z"}]},
    }
    code, out, err = run(capsys, "status", "-f", write(tmp_path / "s.yaml", trainjob, jobset), "--now", "2026-01-02T00:00:00Z")
    assert (code, err) == (0, "")
    (document,) = yaml.safe_load_all(out)
    assert document["status"]["conditions"] == [
        {"type": "Complete", "status": "True", "reason": "AllJobsCompleted", "message": "done", "lastTransitionTime": "2026-01-01T01:00:00Z"}
    ]


def test_status_evaluates_deadlines_at_now_and_warns_without_a_jobset(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trainjob = make_trainjob("team", "job").runtime_ref("rt").set("spec.activeDeadlineSeconds", 60)
    trainjob.set("metadata.creationTimestamp", "2026-01-01T00:00:00Z")
    code, out, err = run(capsys, "status", "-f", write(tmp_path / "s.yaml", trainjob.obj()), "--now", "2026-01-01T00:05:00Z")
    assert code == 0
    assert err.startswith("warning: TrainJob/job: no JobSet named 'job'")
    (document,) = yaml.safe_load_all(out)
    assert document["status"]["conditions"][0]["reason"] == "DeadlineExceeded"
    assert document["status"]["conditions"][0]["lastTransitionTime"] == timestamp(datetime(2026, 1, 1, 0, 5, tzinfo=timezone.utc))


@dataclass(frozen=True)
class Bad:
    name: str
    text: str
    says: str
    field_error: bool = False  # reported as `path: message`, which `validate` prints without the file


BAD_INPUTS = [
    Bad("malformed yaml names file, line and column", "kind: TrainJob\nmetadata: {name: [\n", "invalid YAML"),
    Bad("a list document is not an object", "- a\n- b\n", "expected a Kubernetes object (a mapping), got list"),
    Bad("a scalar document is not an object", "just text\n", "expected a Kubernetes object (a mapping), got str"),
    Bad("a mapping without kind is not an object", "apiVersion: v1\nmetadata: {name: x}\n", "apiVersion and kind are required"),
    Bad("a kind that is not a string is not an object", "apiVersion: v1\nkind: [TrainJob]\n", "apiVersion and kind are required"),
    Bad(
        "a trainjob with a metadata list is invalid",
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: [1]\nspec: {}\n",
        "metadata: Invalid value: [1]: input should be a valid dictionary",
        field_error=True,
    ),
    Bad("a list as a key is no JSON object", "? [a]\n: b\n", ":1:3: a mapping key must be a string, not a list"),
    Bad("a tag that is no JSON type names its place", "apiVersion: v1\nkind: Secret\ndata: {x: !!binary aGk=}\n", ":3:11: data.x: the tag !!binary is not allowed"),
    Bad("a control character names its place", "apiVersion: v1\nkind: Secret\ndata: {x: \x1b}\n", ":3:11: invalid YAML: the character U+001B"),
    Bad("an alias bomb stops at the limit", "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(f"b{i}: &b{i} [" + ", ".join([f"*{'a' if i == 0 else f'b{i - 1}'}"] * 10) + "]\n" for i in range(6)),
        "values (aliases expanded) in one load: the limit"),
    Bad("an integer beyond int64 is a field error", "apiVersion: v1\nkind: Secret\ndata: {x: 18446744073709551616}\n",
        "data.x: Invalid value: 18446744073709551616: out of range", field_error=True),
]


@pytest.mark.parametrize("command", ["render", "validate", "status"])
@pytest.mark.parametrize("case", BAD_INPUTS, ids=lambda case: case.name)
def test_bad_input_never_produces_a_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, case: Bad) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(case.text)
    code, out, err = run(capsys, command, "-f", str(path))
    assert code == 1
    assert case.says in out + err
    if not (case.field_error and command == "validate"):
        assert err.startswith(f"error: {path}")


@pytest.mark.parametrize(("api_version", "kind", "hint"), [
    ("example.com/v1", "Widget", "remove the document, or fix its kind and apiVersion"),
    ("trainer.kubeflow.org/v1alpha1", "TrainJobb", "did you mean TrainJob?"),
    ("kubeflow.org/v1beta1", "OptimizationJob", "remove the document"),
    ("apps/v1", "Secret", "Secret is read only with its own apiVersion"),
])
def test_unknown_kinds_are_refused_naming_the_document(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path, api_version: str, kind: str, hint: str
) -> None:
    other = write(tmp_path / "other.yaml", {"apiVersion": api_version, "kind": kind, "metadata": {"name": "w"}, "spec": {"x": 1}})
    code, out, _ = run(capsys, "validate", "-f", other)
    assert code == 1
    assert out.startswith(f"kind: Unsupported value: {kind} (apiVersion {api_version}) in {other}#1 ({kind}/w): ")
    assert hint in out
    code, out, err = run(capsys, "render", "-f", other, "-f", files["runtime"], "-f", files["trainjob"], "--seed", "s")
    assert (code, out) == (1, "")
    assert err.startswith(f"error: kind: Unsupported value: {kind} ") and f"{other}#1 ({kind}/w)" in err


def test_the_objects_rules_look_up_pass_through(capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path) -> None:
    others = [
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "team"}, "stringData": {"a": "b"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "team"}, "data": {"a": "b"}},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 10},
        {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "p", "namespace": "team"}},
    ]
    path = write(tmp_path / "others.yaml", *others)
    code, out, err = run(capsys, "render", "-f", path, "-f", files["runtime"], "-f", files["trainjob"], "--seed", "s")
    assert (code, err) == (0, "")
    assert {doc["kind"] for doc in yaml.safe_load_all(out)} == {"Secret", "ConfigMap", "JobSet"}


def test_an_upstream_example_with_a_kueue_queue_puts_the_label_on_the_jobset(
    capsys: pytest.CaptureFixture[str], reference: Path, tmp_path: Path
) -> None:
    trainjob = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
        "metadata": {"name": "pytorch-simple", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
        "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 2}},
    }
    runtime = reference / "runtimes" / "base" / "torch_distributed.yaml"
    code, out, err = run(capsys, "render", "-f", str(runtime), "-f", write(tmp_path / "tj.yaml", trainjob))
    assert (code, err) == (0, "")
    [jobset] = [doc for doc in yaml.safe_load_all(out) if doc["kind"] == "JobSet"]
    assert jobset["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "user-queue"}


def test_checks_upstream_lacks_are_warnings_and_strict_refuses(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    runtime = make_runtime("rt").torch().trainer(container(image=None)).obj()
    trainjob = make_trainjob("team", "job").runtime_ref("rt").num_nodes(1).set("spec.activeDeadlineSeconds", 60).obj()
    path = write(tmp_path / "all.yaml", runtime, trainjob)
    for command in ("render", "validate"):
        code, out, err = run(capsys, command, "-f", path)
        assert code == 0, (command, out, err)
        lines = err.splitlines()
        assert any(line.startswith("warning: TrainJob/job: spec.trainer.image: Required value: ") for line in lines), err
        assert any(line.startswith("warning: TrainJob/job: spec.activeDeadlineSeconds: ") for line in lines), err
    code, out, err = run(capsys, "render", "--strict", "-f", path)
    assert (code, out) == (1, "")
    assert "error: TrainJob/job: spec.trainer.image: Required value: " in err
    code, out, _ = run(capsys, "validate", "--strict", "-f", path)
    assert code == 1 and out.startswith("spec.")


def test_a_missing_file_is_reported_as_unreadable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    assert run(capsys, "render", "-f", str(missing)) == (1, "", f"error: {missing}: cannot read: No such file or directory\n")


def test_an_invalid_now_is_a_usage_error(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["status", "-f", files["trainjob"], "--now", "soon"])
    assert exited.value.code == 2
    assert "'soon' is not an RFC 3339 time" in capsys.readouterr().err


def test_a_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([])
    assert exited.value.code == 2


def test_python_dash_m_runs_the_cli(files: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pulumi_kubeflow_trainer", "validate", "-f", files["dir"]], capture_output=True, text=True, check=False
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_the_console_script_runs_the_cli(files: dict[str, str], tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.yaml", make_trainjob("team", "job").runtime_ref("rt").num_nodes(2**31).obj())
    result = subprocess.run([str(VENV_BIN / "trainjob"), "validate", "-f", bad], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert result.stdout.startswith("spec.trainer.numNodes: Invalid value: 2147483648")
    assert "Traceback" not in result.stderr


def test_a_file_that_is_not_utf8_is_reported_with_its_byte(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"kind: \xff\xfe\n")
    for command in ("render", "validate", "status"):
        assert run(capsys, command, "-f", str(path)) == (1, "", f"error: {path}:1:7: not UTF-8 text: byte 6 (0xff) invalid start byte; YAML files must be UTF-8\n")


def test_rendered_strings_stay_strings_for_kubectl(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    runtime = make_runtime("rt").torch().trainer().obj()
    trainjob = make_trainjob("team", "job").runtime_ref("rt").env(EXPONENT="1e3", OCTAL="0o17", YES="y").obj()
    (tmp_path / "all.yaml").write_text(dump_all([runtime, trainjob]))
    code, out, _ = run(capsys, "render", "-f", str(tmp_path / "all.yaml"))
    assert code == 0
    assert "value: '1e3'" in out and "value: '0o17'" in out and "value: 'y'" in out


def test_an_unquoted_exponent_where_a_string_belongs_is_refused_as_kubectl_would_send_a_number(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    runtime = make_runtime("rt").torch().trainer().obj()
    trainjob = make_trainjob("team", "job").runtime_ref("rt").env(EXPONENT="1e3").obj()
    code, _, err = run(capsys, "render", "-f", write(tmp_path / "all.yaml", runtime, trainjob))  # PyYAML writes 1e3 plain
    assert code == 1 and "spec.trainer.env[0].value" in err
