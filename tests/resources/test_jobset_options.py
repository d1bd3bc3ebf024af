"""The resource options the TrainJob component gives its JobSet, as the Pulumi engine receives them
(the RegisterResource requests of the mock monitor), not as a constant says they should be."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pulumi
import pytest

from pulumi_kubeflow_trainer import TrainJob

from .conftest import RecordingMocks, settled

# What the JobSet webhook refuses to change on a live JobSet, written out here rather than read from
# the package, so that a wrong list in the package fails this test.
IMMUTABLE = [
    "spec.replicatedJobs",
    "spec.network",
    "spec.successPolicy",
    "spec.failurePolicy",
    "spec.startupPolicy",
    "spec.managedBy",
    "spec.coordinator",
    "spec.volumeClaimPolicies",
]


@pytest.fixture
def requests(mocks: RecordingMocks) -> Iterator[dict[str, Any]]:
    """Every RegisterResource request, by resource name: what the engine is told, options included."""
    monitor = pulumi.runtime.settings.get_monitor()
    register = monitor.RegisterResource
    seen: dict[str, Any] = {}

    def recording(request: Any) -> Any:
        seen[request.name] = request
        return register(request)

    monitor.RegisterResource = recording
    try:
        yield seen
    finally:
        monitor.RegisterResource = register


@pulumi.runtime.test
def test_the_jobset_is_replaced_on_immutable_changes_and_updated_on_suspend(mocks: RecordingMocks, requests: dict[str, Any]) -> Any:
    job = TrainJob("mnist", runtime_ref="deepspeed-distributed", suspend=True)

    def check(_: Any) -> None:
        jobset = requests["mnist-jobset"]
        assert list(jobset.replaceOnChanges) == IMMUTABLE, "a change the JobSet cannot take in place replaces it"
        assert "spec.suspend" not in jobset.replaceOnChanges, "suspend and resume are in-place updates"
        assert jobset.deleteBeforeReplace and jobset.deleteBeforeReplaceDefined, "the new JobSet has the same name"
        assert mocks.named("mnist-jobset").inputs["spec"]["suspend"] is True
        hostfile = requests["mnist-mpi-hostfile"]
        assert list(hostfile.replaceOnChanges) == [] and not hostfile.deleteBeforeReplace, "only the JobSet is replaced so"

    return settled(job).apply(check)
