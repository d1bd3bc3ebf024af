"""watch/cli.py: `trainjob list|get|logs|wait` through the CLI's main(), against a loopback API server
answering recorded objects (the live commands: tests/cluster/test_watch.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from pulumi_kubeflow_trainer.cli import main
from pulumi_kubeflow_trainer.watch.cli import FAILED_EXIT, TIMED_OUT_EXIT, table

from .objects import RUNNING, finished, jobset, listed, pod, terminated
from .recorded_api import kubeconfig_for, serving
from .test_trainjobs import JOBSETS, TRAINJOBS, pods_path


@pytest.fixture
def kubeconfig(tmp_path: Path):
    def write(url: str) -> str:
        path = tmp_path / "kubeconfig"
        path.write_text(yaml.safe_dump(kubeconfig_for(url)))
        return str(path)

    return write


def test_list_prints_a_table_and_json(kubeconfig, capsys):
    served = {JOBSETS: listed(jobset("mnist", status=RUNNING), jobset("bert", suspend=True, queue="team-q")), TRAINJOBS: listed()}
    with serving(served) as server:
        assert main(["list", "--kubeconfig", kubeconfig(server.url)]) == 0
        text = capsys.readouterr().out
        assert main(["list", "--kubeconfig", kubeconfig(server.url), "-o", "json"]) == 0
        rows = json.loads(capsys.readouterr().out)
    assert text.splitlines()[0].split() == ["NAME", "MODE", "STATE", "NODES", "QUEUE", "RUNTIME", "AGE"]
    assert [line.split()[:5] for line in text.splitlines()[1:]] == [["bert", "rendered", "Queued", "2", "team-q"],
                                                                    ["mnist", "rendered", "Running", "2", "-"]]
    assert [(row["name"], row["state"], row["namespace"]) for row in rows] == [("bert", "Queued", "team-a"), ("mnist", "Running", "team-a")]


def test_a_table_is_cut_to_the_width_given():
    rows = [{"name": "a-very-long-trainjob-name-" * 3, "state": "Running"}]
    cut = table(["name", "state"], rows, width=40)
    assert max(len(line) for line in cut.splitlines()) <= 40
    assert cut.splitlines()[1].split()[0].endswith("~")


@pytest.mark.parametrize(("status", "pods", "code", "said"), [
    (finished("Completed", "AllJobsCompleted", "jobset completed successfully"), [], 0, "TrainJob team-a/j: Complete"),
    (finished("Failed", "FailedJobs", "jobset failed"), [pod("j", "node", 0, phase="Failed", statuses=[terminated("OOMKilled", 137)])],
     FAILED_EXIT, "OOMKilled: Pod j-node-0-0-x (node-0): container node was killed"),
    (RUNNING, [pod("j", "node", 0)], TIMED_OUT_EXIT, "TrainJob team-a/j: Running still, after 0.1 s"),
], ids=["Complete exits 0", "Failed exits 3 and names the cause", "a timeout exits 4"])
def test_wait_says_how_it_ended_in_its_exit_status(status, pods, code, said, kubeconfig, capsys):
    with serving({f"{JOBSETS}/j": (200, jobset("j", status=status)), pods_path("j"): listed(*pods)}) as server:
        assert main(["wait", "j", "--kubeconfig", kubeconfig(server.url), "--timeout", "0.1"]) == code
    assert said in capsys.readouterr().out


def test_get_prints_state_pods_and_hints(kubeconfig, capsys):
    failed = jobset("j", status=finished("Failed", "FailedJobs", "jobset failed"))
    with serving({f"{JOBSETS}/j": (200, failed), pods_path("j"): listed(pod("j", "node", 0, phase="Failed", statuses=[terminated("OOMKilled", 137)]))}) as server:
        assert main(["get", "j", "--kubeconfig", kubeconfig(server.url)]) == 0
    text = capsys.readouterr().out
    assert "State:      Failed" in text and "node-0   j-node-0-0-x   Failed" in text and "Hints:\n  OOMKilled: Pod j-node-0-0-x" in text


@pytest.mark.parametrize(("arguments", "message"), [
    (["list", "--kubeconfig", "/no/such/file"], "error: --kubeconfig /no/such/file: no such file"),
    (["get", "ghost", "--kubeconfig", "{kubeconfig}"], "error: no TrainJob team-a/ghost: neither a TrainJob object nor a JobSet"),
    (["logs", "j", "--kubeconfig", "{kubeconfig}"], "error: TrainJob team-a/j (Created): no Pod for node 0 yet"),
], ids=["a kubeconfig that is no file", "a name that is no TrainJob", "a log before the Pod exists"])
def test_errors_are_one_line(arguments, message, kubeconfig, capsys):
    with serving({f"{JOBSETS}/j": (200, jobset("j")), pods_path("j"): listed()}) as server:
        path = kubeconfig(server.url)
        assert main([argument.replace("{kubeconfig}", path) for argument in arguments]) == 1
    err = capsys.readouterr().err
    assert err.startswith(message) and len(err.strip().splitlines()) == 1, err
