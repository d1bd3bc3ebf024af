"""run_local end to end: real processes, real torchrun on CPU (gloo), real mpirun (Open MPI), JobSet order
and outcome."""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pulumi_kubeflow_trainer import render
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.functions import FunctionTrainer
from pulumi_kubeflow_trainer.local import main, run_local
from tests.builders import container, make_runtime, make_trainjob, render_one, replicated_job
from tests.functions import sample_functions

SCRIPTS = Path(__file__).resolve().parent / "scripts"
RANK_LINE = re.compile(r"^\[(?P<pod>[\w-]+)\] rank=(?P<rank>\d+) world=(?P<world>\d+) node=(?P<node>\d+) sum=(?P<sum>\d+)$")
TWO_BY_TWO = {("ddp-node-0-0", 0), ("ddp-node-0-0", 1), ("ddp-node-0-1", 2), ("ddp-node-0-1", 3)}


@pytest.fixture(scope="session")
def torch_importable() -> None:
    # Only looked up, not imported: torch runs in the Pods' processes, and importing it here costs seconds.
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not importable: install the `local` test extra (see README) to run the torchrun tests")


@pytest.fixture(scope="session")
def mpirun_installed() -> None:
    # tools/test installs Open MPI where it can (root and apt-get); under .ci/run a missing one fails.
    if shutil.which("mpirun") is None:
        message = "mpirun is not installed (Debian: apt-get install openmpi-bin; tools/test does it as root)"
        if os.environ.get("PULUMI_KFT_REQUIRE_ENGINE") == "1":
            pytest.fail(f"{message} (PULUMI_KFT_REQUIRE_ENGINE=1)", pytrace=False)
        pytest.skip(message)


def function_trainjob(name: str, runtime_name: str, trainer: FunctionTrainer) -> list[dict[str, Any]]:
    """FunctionTrainer → TrainJob on a bundled runtime → render, as a Pulumi program would do it."""
    runtime = bundled_runtime(runtime_name)
    trainjob = make_trainjob("default", name).runtime_ref(runtime_name).set("spec.trainer", trainer.to_manifest(runtime))
    return render([trainjob.obj(), runtime], runtime_snapshot=False)


def ranks_in(lines: list[str]) -> set[tuple[str, int]]:
    matches = [RANK_LINE.match(line) for line in lines]
    found = [m for m in matches if m]
    assert all(m["world"] == "4" and m["sum"] == "10" for m in found), found
    return {(m["pod"], int(m["rank"])) for m in found}


def test_a_torch_function_all_reduces_across_two_nodes_of_two_processes(torch_importable: None, tmp_path: Path) -> None:
    trainer = FunctionTrainer.from_function(
        sample_functions.all_reduce_check, func_args={"expected_world_size": 4, "expected_nodes": 2}, num_nodes=2, num_proc_per_node=2
    )
    lines: list[str] = []
    result = run_local(function_trainjob("ddp", "torch-distributed", trainer), workdir=tmp_path, timeout=300, log=lines.append)
    assert result.ok, "\n".join([str(result), *lines])
    assert ranks_in(lines) == TWO_BY_TWO
    assert result.exit_codes == {"ddp-node-0-0": 0, "ddp-node-0-1": 0}


def test_a_yaml_trainjob_on_the_bundled_torch_runtime_runs_through_the_cli(
    torch_importable: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trainjob = tmp_path / "trainjob.yaml"
    trainjob.write_text(f"""\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: ddp
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    numProcPerNode: 2
    command: [torchrun, {SCRIPTS / 'all_reduce.py'}]
    args: [--expected-world-size, "4"]
""")
    code = main(["-f", str(trainjob), "--workdir", str(tmp_path / "work"), "--timeout", "300"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert ranks_in(out.splitlines()) == TWO_BY_TWO
    assert "TrainJob ddp: Completed" in err


def test_a_function_full_of_shell_syntax_arrives_byte_identical_with_its_arguments(tmp_path: Path) -> None:
    text = "$HOME ${HOME} $(HOSTNAME) $$ `id` \"double\" 'single' EOF\nEOM\n'TRAINING_SCRIPT_EOF' \\ Grüße 日本語 🚀"
    out = tmp_path / "out"
    out.mkdir()
    trainer = FunctionTrainer.from_function(sample_functions.echo_what_arrived, func_args={"out_dir": str(out), "text": text})
    result = run_local(function_trainjob("echo", "jax-distributed", trainer), workdir=tmp_path / "work", timeout=120, log=lambda _line: None)
    assert result.ok, str(result)
    shipped = inspect.getsource(sample_functions.echo_what_arrived).encode("utf-8")
    assert (out / "source.py").read_bytes() == shipped
    assert shipped in Path(sample_functions.__file__).read_bytes()
    assert json.loads((out / "args.json").read_text(encoding="utf-8")) == {"out_dir": str(out), "text": text}


@dataclass(frozen=True)
class Failing:
    name: str
    runtime: str
    trainer: Callable[[], FunctionTrainer]
    failed_pod: str
    exit_code: int
    needs: str | None  # the fixture of the launcher it needs
    still_running: str = "fail-node-0-0"


FAILING = [
    Failing(
        "a failing torch rank fails the run and names its node",
        "torch-distributed",
        lambda: FunctionTrainer.from_function(sample_functions.fail_on_rank, func_args={"failing_rank": 1, "exit_code": 3}, num_nodes=2, num_proc_per_node=1),
        "fail-node-0-1",
        1,  # torchrun's own exit code when a worker fails
        "torch_importable",
    ),
    Failing(
        "a failing python node fails the run with its exit code",
        "jax-distributed",
        lambda: FunctionTrainer.from_function(sample_functions.fail_on_process, func_args={"failing_process": 1, "exit_code": 7}, num_nodes=2),
        "fail-node-0-1",
        7,
        None,
    ),
    Failing(
        "a failing mpi rank fails the launcher with its exit code",
        "mpi-distributed",
        lambda: FunctionTrainer.from_function(sample_functions.fail_on_mpi_rank, func_args={"failing_rank": 3, "exit_code": 5}, num_nodes=2, num_proc_per_node=2),
        "fail-launcher-0-0",
        5,  # mpirun exits with the first failed rank's code
        "mpirun_installed",
        "fail-node-0-1",  # an sshd stand-in: never finishes
    ),
]


@pytest.mark.parametrize("case", FAILING, ids=lambda case: case.name)
def test_a_failing_node_fails_the_run_and_stops_the_others(case: Failing, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    if case.needs is not None:
        request.getfixturevalue(case.needs)
    result = run_local(function_trainjob("fail", case.runtime, case.trainer()), workdir=tmp_path, timeout=300, log=lambda _line: None)
    assert (result.status, result.reason, result.failed_pod, result.exit_code) == ("Failed", "FailedJobs", case.failed_pod, case.exit_code)
    assert f"pod {case.failed_pod} failed: container node exited with code {case.exit_code}" == result.message
    assert result.exit_codes[case.still_running] is None  # still running when the run failed: stopped, not finished


def python_step(code: str, **fields: Any) -> dict[str, Any]:
    return {"command": ["python", "-c", code], **fields}


def test_initializers_complete_before_the_trainer_starts_and_share_the_claim(tmp_path: Path) -> None:
    mount = [{"name": "initializer", "mountPath": "/workspace"}]
    write = "import pathlib; p = pathlib.Path('/workspace/dataset'); p.mkdir(); (p / 'rows').write_text('42'); print('downloaded')"
    read = "print('training on', open('/workspace/dataset/rows').read(), 'rows')"
    runtime = (
        make_runtime("ordered")
        .template_spec(volumeClaimPolicies=[{"templates": [{"metadata": {"name": "initializer"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]}])
        .job(replicated_job("dataset-initializer", container("dataset-initializer", **python_step(write, volumeMounts=mount)), ancestor="dataset-initializer"))
        .job({**replicated_job("node", container(**python_step(read, volumeMounts=mount)), ancestor="trainer"),
              "dependsOn": [{"name": "dataset-initializer", "status": "Complete"}]})
    )
    lines: list[str] = []
    result = run_local(render_one(make_trainjob("default", "ft").runtime_ref("ordered"), runtime), workdir=tmp_path, timeout=120, log=lines.append)
    assert result.ok, "\n".join([str(result), *lines])
    assert lines == ["[ft-dataset-initializer-0-0] downloaded", "[ft-node-0-0] training on 42 rows"]
    assert (tmp_path / "claims/initializer/dataset/rows").read_text() == "42"


def test_the_mpi_launcher_starts_once_its_workers_are_ready_and_completes_the_jobset(tmp_path: Path) -> None:
    show_hostfile = "import os; print(open(os.environ['OMPI_MCA_orte_default_hostfile']).read(), end='')"
    trainjob = make_trainjob("default", "mj").runtime_ref("mpi-distributed").num_nodes(2).command("python", "-c", show_hostfile)
    lines: list[str] = []
    result = run_local(render_one(trainjob, bundled_runtime("mpi-distributed")), workdir=tmp_path, timeout=120, log=lines.append)
    assert result.ok, "\n".join([str(result), *lines])
    assert lines == ["[mj-launcher-0-0] 127.0.0.1 slots=2"]


@pytest.mark.parametrize("runtime", ["mpi-distributed", "deepspeed-distributed"])
def test_a_function_on_an_mpi_runtime_all_reduces_over_every_rank_with_the_local_mpirun(
    mpirun_installed: None, runtime: str, tmp_path: Path
) -> None:
    # The launcher runs `mpirun --hostfile <hostfile> python -c <bootstrap>` as rendered; nothing is
    # added for root (run-local allows Open MPI to run as root itself).
    trainer = FunctionTrainer.from_function(sample_functions.mpi_all_reduce_check, func_args={"expected_world_size": 4}, num_nodes=2, num_proc_per_node=2)
    lines: list[str] = []
    result = run_local(function_trainjob("mj", runtime, trainer), workdir=tmp_path, timeout=120, log=lines.append)
    assert result.ok, "\n".join([str(result), *lines])
    assert sorted(line for line in lines if "mpi rank" in line) == [f"[mj-launcher-0-0] mpi rank={r} world=4 sum=10" for r in range(4)]


def test_a_yaml_trainjob_on_the_bundled_mpi_runtime_runs_mpirun_over_the_hostfile_through_the_cli(
    mpirun_installed: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No --hostfile: mpirun finds the hostfile through OMPI_MCA_orte_default_hostfile, as in the cluster.
    trainjob = tmp_path / "trainjob.yaml"
    trainjob.write_text(f"""\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: mj
spec:
  runtimeRef:
    name: mpi-distributed
  trainer:
    numNodes: 2
    numProcPerNode: 2
    command: [mpirun, python, {SCRIPTS / 'mpi_all_reduce.py'}, --expected-world-size, "4"]
""")
    code = main(["-f", str(trainjob), "--workdir", str(tmp_path / "work"), "--timeout", "120"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert sorted(line for line in out.splitlines() if "mpi rank" in line) == [f"[mj-launcher-0-0] mpi rank={r} world=4 sum=10" for r in range(4)]
    assert "TrainJob mj: Completed" in err


@dataclass(frozen=True)
class Stopped:
    name: str
    command: list[str]
    timeout: float
    reason: str
    exit_code: int | None


STOPPED = [
    Stopped("a run past its timeout is stopped and fails", ["python", "-c", "import time; time.sleep(60)"], 0.5, "DeadlineExceeded", None),
    Stopped("a command that is not on PATH fails its pod like a container that cannot start", ["no-such-trainer-binary"], 60, "FailedJobs", 127),
    Stopped("a command path that does not exist fails its pod too", ["/no/such/trainer"], 60, "FailedJobs", 127),
]


@pytest.mark.parametrize("case", STOPPED, ids=lambda case: case.name)
def test_runs_that_cannot_finish_fail(case: Stopped, tmp_path: Path) -> None:
    runtime = make_runtime("plain").trainer(container(command=case.command))
    result = run_local(render_one(make_trainjob("default", "stop").runtime_ref("plain"), runtime), workdir=tmp_path, timeout=case.timeout, log=lambda _l: None)
    assert (result.status, result.reason, result.exit_code) == ("Failed", case.reason, case.exit_code)


def test_an_mpi_run_needs_no_ssh_on_this_host(mpirun_installed: None, tmp_path: Path) -> None:
    # Open MPI stops at start when it finds no ssh or rsh, even for ranks it starts itself.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mpirun").symlink_to(shutil.which("mpirun"))
    (bin_dir / "python").symlink_to(sys.executable)
    assert shutil.which("ssh", path=str(bin_dir)) is None
    trainer = FunctionTrainer.from_function(sample_functions.mpi_all_reduce_check, func_args={"expected_world_size": 2}, num_nodes=2)
    lines: list[str] = []
    result = run_local(function_trainjob("mj", "mpi-distributed", trainer), workdir=tmp_path / "work", timeout=120,
                       env={"PATH": str(bin_dir)}, log=lines.append)
    assert result.ok, "\n".join([str(result), *lines])
    assert sorted(line for line in lines if "mpi rank" in line) == [f"[mj-launcher-0-0] mpi rank={r} world=2 sum=3" for r in range(2)]


def test_an_mpirun_host_outside_the_run_is_refused_not_reached(mpirun_installed: None, tmp_path: Path) -> None:
    trainjob = make_trainjob("default", "mj").runtime_ref("mpi-distributed").num_nodes(1).command("mpirun", "--host", "elsewhere.example", "true")
    lines: list[str] = []
    result = run_local(render_one(trainjob, bundled_runtime("mpi-distributed")), workdir=tmp_path, timeout=60, log=lines.append)
    assert (result.status, result.failed_pod) == ("Failed", "mj-launcher-0-0")
    refusal = "trainjob run-local: mpirun asked to start a daemon on host 'elsewhere.example' over ssh"
    assert any(line.startswith(f"[mj-launcher-0-0] {refusal}") for line in lines), lines


def test_a_missing_mpirun_fails_the_launcher_and_says_how_to_install_it(tmp_path: Path) -> None:
    trainjob = make_trainjob("default", "mj").runtime_ref("mpi-distributed").num_nodes(2).command("mpirun", "python", "train.py")
    lines: list[str] = []
    result = run_local(render_one(trainjob, bundled_runtime("mpi-distributed")), workdir=tmp_path, timeout=60,
                       env={"PATH": str(tmp_path / "empty")}, log=lines.append)
    assert (result.status, result.failed_pod, result.exit_code) == ("Failed", "mj-launcher-0-0", 127)
    assert lines == ["[mj-launcher-0-0] executable file not found in $PATH: 'mpirun'; install Open MPI (Debian: apt-get install openmpi-bin)"]


def test_a_job_waiting_for_a_worker_that_never_completes_is_stuck(tmp_path: Path) -> None:
    runtime = (
        make_runtime("waits")
        .job(replicated_job("workers", container("node", command=["/usr/sbin/sshd", "-D"])))
        .trainer(container(command=["true"]))
    )
    manifests = render_one(make_trainjob("default", "w").runtime_ref("waits"), runtime)
    jobs = next(m for m in manifests if m["kind"] == "JobSet")["spec"]["replicatedJobs"]
    jobs[1]["dependsOn"] = [{"name": "workers", "status": "Complete"}]
    result = run_local(manifests, workdir=tmp_path, timeout=60, log=lambda _l: None)
    assert (result.status, result.reason, result.message) == ("Failed", "Stuck", "node wait for dependencies that cannot be met")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-f", "no-such-file.yaml"], "no-such-file.yaml: cannot read: No such file or directory"),
        (["-f", str(SCRIPTS / "all_reduce.py")], f"{SCRIPTS / 'all_reduce.py'}:1:3: invalid YAML: did not find expected <document start>"),
        (["-f", str(SCRIPTS)], "run-local runs exactly one JobSet (one TrainJob); found 0: none"),
    ],
    ids=["a missing file is named", "a file that is not YAML is named with its line and column, as render names it", "files without a TrainJob or JobSet say what is missing"],
)
def test_the_cli_reports_bad_input_in_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 1
    assert capsys.readouterr().err == f"error: {message}\n"


TRAINJOB = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: demo, namespace: team}\nspec:\n"
JOBSET = "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: x}\nspec:\n"
ONE_POD = "{spec: {template: {spec: {containers: [{name: c, command: [\"true\"]}]}}}}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (TRAINJOB + "  runtimeRef: {name: torch-distributed}\n  trainer: {commnd: [python]}\n",
         "#1 (TrainJob/demo): spec.trainer.commnd: Unsupported field: [\"python\"]"),
        (TRAINJOB + "  runtimeRef: {name: torch-distributd}\n",
         "#1 (TrainJob/demo): spec.runtimeRef: Invalid value: {\"name\": \"torch-distributd\"}: ClusterTrainingRuntime 'torch-distributd' not found"),
        (JOBSET + "  replicatedJobs: oops\n", "#1 (JobSet/x): spec.replicatedJobs: Invalid value: \"oops\": input should be a valid list"),
        (JOBSET + f"  replicatedJobs: [{{name: a, replicas: -3, template: {ONE_POD}}}]\n",
         "#1 (JobSet/x): spec.replicatedJobs[0].replicas: Invalid value: -3: must be greater than or equal to 0"),
        (JOBSET + f"  replicatedJobs: [{{name: a, replicas: 1000000000000, template: {ONE_POD}}}]\n",
         "#1 (JobSet/x): spec.replicatedJobs: Invalid value: 1000000000000 Pods: run-local runs at most 1000 on one host"),
        (TRAINJOB + "  runtimeRef: {name: torch-distributed}\n  trainer: {numNodes: 5000, command: [python]}\n",
         "#1 (TrainJob/demo), its JobSet: spec.replicatedJobs: Invalid value: 5000 Pods: run-local runs at most 1000 on one "
         "host; lower spec.trainer.numNodes"),
    ],
    ids=["a TrainJob's typo names the file and document", "an unknown runtime names the file and document",
         "a JobSet the API server would refuse is refused before anything starts", "so is a negative count",
         "a JobSet of more Pods than one host runs is refused, not planned Pod by Pod",
         "so is a TrainJob whose JobSet would have more, naming the field to lower"],
)
def test_the_cli_names_the_file_and_document_of_bad_input(text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "input.yaml"
    path.write_text(text)
    assert main(["-f", str(path), "--workdir", str(tmp_path / "work")]) == 1
    assert capsys.readouterr().err.startswith(f"error: {path}{message}")
    assert not (tmp_path / "work").exists() or not any((tmp_path / "work").iterdir()), "nothing was started"
