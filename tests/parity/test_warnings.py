"""Warnings for checks upstream lacks, on the Pulumi component (the CLI and render() are tested in tests/plugins, tests/test_cli.py)."""

import pulumi
import pytest

from pulumi_kubeflow_trainer import TrainerArgs, TrainJob
from tests.builders import container, make_runtime
from tests.resources.conftest import RecordingMocks


def test_the_component_logs_what_upstream_renders_but_a_check_warns_about(monkeypatch):
    """pulumi.log.warn on the TrainJob component, for the same warnings render() gives (docs/parity.md)."""
    pulumi.runtime.set_mocks(RecordingMocks(), project="project", stack="stack", preview=False)
    seen = []
    monkeypatch.setattr(pulumi.log, "warn", lambda message, resource=None, **_: seen.append(message))

    @pulumi.runtime.test
    def program():
        TrainJob("j", runtime=make_runtime("rt").torch().trainer().build(), trainer=TrainerArgs(num_nodes=1), active_deadline_seconds=60)

    program()
    assert any("spec.activeDeadlineSeconds: Invalid value: 60: has no effect once rendered" in m for m in seen), seen


def test_the_component_refuses_what_the_api_server_would_refuse_in_its_jobset():
    """Where the component creates the JobSet, what the API server would refuse stops the program with
    a Pulumi error naming the field, not a warning and a JobSet that never starts."""
    pulumi.runtime.set_mocks(RecordingMocks(), project="project", stack="stack", preview=True)

    @pulumi.runtime.test
    def program():
        TrainJob("j", runtime=make_runtime("rt").torch().trainer(container(image=None)).build(), trainer=TrainerArgs(num_nodes=1))

    with pytest.raises(pulumi.RunError, match="spec.trainer.image: Required value: container 'node' of replicated job 'node' has no image"):
        program()
