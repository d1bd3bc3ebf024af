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
from pulumi_kubeflow_trainer.blueprints import bundled_runtime_names
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
    assert kinds == [("Secret", "job-mpi-ssh-auth"), ("ConfigMap", "job-mpi-hostfile"), ("JobSet", "job")]


def test_render_with_a_seed_is_reproducible(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    first = run(capsys, "render", "-f", files["dir"], "--seed", "s")
    assert first == run(capsys, "render", "-f", files["dir"], "--seed", "s")


def test_the_snapshot_is_emitted_on_request_only_as_by_the_components(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    _, out, _ = run(capsys, "render", "-f", files["dir"], "--snapshot", "--seed", "s")
    assert "job-runtime-snapshot" in out
    for off in ([], ["--no-snapshot"]):
        _, out, _ = run(capsys, "render", "-f", files["dir"], *off, "--seed", "s")
        assert "job-runtime-snapshot" not in out


@pytest.mark.parametrize("command", ["render", "validate"])
def test_render_and_validate_resolve_the_bundled_runtimes_unless_turned_off(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    trainjob = write(tmp_path / "t.yaml", make_trainjob("team", "job").runtime_ref("torch-distributed").num_nodes(2).obj())
    for on in ([], ["--bundled-runtimes"]):
        code, out, err = run(capsys, command, "-f", trainjob, *on)
        assert (code, err) == (0, ""), (on, err)
        assert command == "validate" or "PET_NNODES" in out
    code, out, err = run(capsys, command, "-f", trainjob, "--no-bundled-runtimes")
    said = (out + err).splitlines()[0]
    assert code == 1 and f"{trainjob}#1 (TrainJob/job): spec.runtimeRef: " in said and "ClusterTrainingRuntime 'torch-distributed' not found" in said
    assert "turned off here (bundled=False, --no-bundled-runtimes)" in said and "torch-distributed, " in said


def test_a_given_runtime_wins_over_the_bundled_one_of_the_same_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    mine = write(tmp_path / "rt.yaml", make_runtime("torch-distributed").jax().trainer(container(image="mine:1")).obj())
    trainjob = write(tmp_path / "t.yaml", make_trainjob("team", "job").runtime_ref("torch-distributed").num_nodes(2).obj())
    code, out, _ = run(capsys, "render", "-f", mine, "-f", trainjob, "--bundled-runtimes", "--no-snapshot")
    assert code == 0 and "image: mine:1" in out and "JAX_NUM_PROCESSES" in out


def test_render_multikueue(capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path) -> None:
    trainjob = write(tmp_path / "mk.yaml", make_trainjob("team", "mk").runtime_ref("rt").managed_by(c.MANAGED_BY_MULTIKUEUE).obj())
    code, out, err = run(capsys, "render", "-f", files["runtime"], "-f", trainjob)
    assert (code, out) == (0, "")
    assert err.startswith(f"warning: {trainjob}#1 (TrainJob/mk): spec.managedBy is kueue.x-k8s.io/multikueue")
    _, out, _ = run(capsys, "render", "-f", files["runtime"], "-f", trainjob, "--multikueue-jobset", "--seed", "s")
    assert "managedBy: kueue.x-k8s.io/multikueue" in out


def test_render_errors_go_to_stderr_with_their_source(capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path) -> None:
    trainjob = write(tmp_path / "bad.yaml", make_trainjob("team", "job").runtime_ref("rt").env(OMPI_MCA_plm_rsh_args="x").obj())
    code, out, err = run(capsys, "render", "-f", files["runtime"], "-f", trainjob)
    assert (code, out) == (1, "")
    assert err == (
        f"error: {trainjob}#1 (TrainJob/job): spec.trainer.env: Invalid value: [\"OMPI_MCA_plm_rsh_args\"]: must not have "
        "reserved envs, invalid envs configured: [OMPI_MCA_plm_rsh_args]; the MPI runtime sets them\n"
    )


def test_validate_accepts_valid_input_silently(capsys: pytest.CaptureFixture[str], files: dict[str, str]) -> None:
    assert run(capsys, "validate", "-f", files["dir"]) == (0, "", "")


def test_validate_prints_one_path_message_line_per_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trainjob = write(tmp_path / "bad.yaml", make_trainjob("team", "Bad_Name").runtime_ref("rt").num_nodes(2**31).num_proc_per_node(2**31).obj())
    code, out, err = run(capsys, "validate", "-f", trainjob)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    where = f"{trainjob}#1 (TrainJob/Bad_Name): "
    assert all(line.startswith(where) for line in lines), "each line names the file and the document"
    assert [line[len(where):].split(": ", 1)[0] for line in lines] == ["metadata.name", "spec.trainer.numNodes", "spec.trainer.numProcPerNode"]
    assert "metadata.name must match RFC 1035 DNS label format" in lines[0]


def test_validate_reports_webhook_errors_and_warnings(capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path) -> None:
    deprecated = make_runtime("old").torch().trainer().label(c.LABEL_SUPPORT, c.SUPPORT_DEPRECATED).obj()
    bad = make_trainjob("team", "j").runtime_ref("old").env(PET_NNODES="1").obj()
    path = write(tmp_path / "all.yaml", deprecated, bad)
    code, out, err = run(capsys, "validate", "-f", path)
    assert code == 1
    assert out.startswith(f"{path}#2 (TrainJob/j): spec.trainer.env: Invalid value: ")
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
    assert out.startswith(f'{files["trainjob"]}#1 (TrainJob/job): spec.trainer: Invalid value: "object": field is immutable')


def test_validate_reports_runtime_errors_as_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    runtime = make_runtime("rt").torch().job(replicated_job("node", container("main"), ancestor="trainer")).obj()
    path = write(tmp_path / "rt.yaml", runtime)
    code, out, _ = run(capsys, "validate", "-f", path)
    assert code == 1
    assert out.startswith(f"{path}#1 (ClusterTrainingRuntime/rt): spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers: ")


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
    path = write(tmp_path / "s.yaml", trainjob.obj())
    code, out, err = run(capsys, "status", "-f", path, "--now", "2026-01-01T00:05:00Z")
    assert code == 0
    assert err.startswith(f"warning: {path}#1 (TrainJob/job): no JobSet named 'job'")
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


def test_what_the_cluster_refuses_stops_render_and_is_a_warning_of_validate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`render` creates the JobSet: what the API server would refuse in it is an error. `validate` answers
    for the TrainJob object as v2.3.0 admits it: a warning, an error with --strict. Checks the cluster
    would not refuse (a deadline without effect) are warnings of both."""
    runtime = make_runtime("rt").torch().trainer(container(image=None)).obj()
    trainjob = make_trainjob("team", "job").runtime_ref("rt").num_nodes(1).set("spec.activeDeadlineSeconds", 60).obj()
    path = write(tmp_path / "all.yaml", runtime, trainjob)
    where = f"{path}#2 (TrainJob/job)"
    code, out, err = run(capsys, "render", "-f", path)
    assert (code, out) == (1, "")
    assert f"error: {where}: spec.trainer.image: Required value: " in err
    code, out, err = run(capsys, "validate", "-f", path)
    assert (code, out) == (0, ""), err
    lines = err.splitlines()
    assert any(line.startswith(f"warning: {where}: spec.trainer.image: Required value: ") for line in lines), err
    assert any(line.startswith(f"warning: {where}: spec.activeDeadlineSeconds: ") for line in lines), err
    code, out, _ = run(capsys, "validate", "--strict", "-f", path)
    assert code == 1 and out.startswith(f"{where}: spec.")


def test_validate_strict_reports_every_finding_of_a_file_at_once(capsys: pytest.CaptureFixture[str], files: dict[str, str], tmp_path: Path) -> None:
    """A typo and a negative node count in one TrainJob: both, not the typo alone."""
    trainjob = make_trainjob("team", "job").runtime_ref("rt").num_nodes(-1).set("spec.trainer.imagee", "x").obj()
    path = write(tmp_path / "typo.yaml", trainjob)
    code, out, _ = run(capsys, "validate", "--strict", "-f", files["runtime"], "-f", path)
    assert code == 1
    assert sorted(line.split(": ", 2)[1] for line in out.splitlines()) == ["spec.trainer.imagee", "spec.trainer.numNodes"], out
    assert all(line.startswith(f"{path}#1 (TrainJob/job): ") for line in out.splitlines())
    assert "Invalid value: -1: must be greater than or equal to 0" in out
    code, out, _ = run(capsys, "validate", "-f", files["runtime"], "-f", path)
    assert code == 1 and [line.split(": ", 2)[1] for line in out.splitlines()] == ["spec.trainer.imagee"], "v2.3.0 admits the count"


@pytest.mark.parametrize(
    ("trainer", "path", "says"),
    [
        ({"numNodes": -1}, "spec.trainer.numNodes", "Invalid value: -1: must be greater than or equal to 0"),
        ({"numProcPerNode": 0}, "spec.trainer.numProcPerNode", "Invalid value: 0: must be greater than or equal to 1"),
        ({"resourcesPerNode": {"requests": {"nvidia.com/gpu": 2}}}, "spec.trainer.resourcesPerNode.limits",
         "Required value: nvidia.com/gpu is requested (2) without a limit"),
        ({"resourcesPerNode": {"requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": 2}}}, "spec.trainer.resourcesPerNode.requests",
         'Invalid value: "1": must be equal to nvidia.com/gpu limit of 2'),
        ({"resourcesPerNode": {"requests": {"cpu": "4"}, "limits": {"cpu": "2"}}}, "spec.trainer.resourcesPerNode.requests",
         'Invalid value: "4": must be less than or equal to cpu limit of 2'),
    ],
    ids=["a negative node count", "no process per node", "a GPU requested without a limit", "a GPU requested below its limit",
         "a CPU request above its limit"],
)
def test_render_and_validate_answer_the_same_trainjob_alike(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, trainer: dict[str, Any], path: str, says: str
) -> None:
    """One lookup (the bundled torch-distributed, not given), one finding: an error of `render`, a
    warning of `validate` (v2.3.0 admits it), an error of `validate --strict`; each names the file."""
    trainjob = make_trainjob("team", "job").runtime_ref("torch-distributed").obj()
    trainjob["spec"]["trainer"] = {"image": "train:1", **trainer}
    file = write(tmp_path / "job.yaml", trainjob)
    finding = f"{file}#1 (TrainJob/job): {path}: {says}"
    code, out, err = run(capsys, "render", "-f", file)
    assert (code, out) == (1, "") and err.startswith(f"error: {finding}"), err
    code, out, err = run(capsys, "validate", "-f", file)
    assert (code, out) == (0, "") and f"warning: {finding}" in err, err
    code, out, _ = run(capsys, "validate", "--strict", "-f", file)
    assert code == 1 and out.startswith(finding), out


def test_trainjob_runtimes_lists_the_bundled_runtimes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "runtimes")
    assert (code, err) == (0, "")
    header, *rows = out.splitlines()
    assert header.split() == ["NAME", "FRAMEWORK", "DESCRIPTION"]
    assert [row.split()[0] for row in rows] == bundled_runtime_names()
    torch = next(row for row in rows if row.startswith("torch-distributed "))
    assert torch.split()[1] == "torch" and "PyTorch DDP/FSDP with torchrun" in torch


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
    assert result.stdout.startswith(f"{bad}#1 (TrainJob/job): spec.trainer.numNodes: Invalid value: 2147483648")
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
