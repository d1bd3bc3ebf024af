"""resources/completion: the TrainJob status the component reports from its JobSet's live status."""

from __future__ import annotations

import pytest

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.resources.completion import failed_condition, trainjob_status
from tests.builders import make_trainjob

COMPLETED = {"terminalState": "Completed", "conditions": [
    {"type": "Completed", "status": "True", "reason": "AllJobsCompleted", "message": "jobset completed successfully",
     "lastTransitionTime": "2026-12-01T00:00:00Z"}]}
FAILED = {"terminalState": "Failed", "conditions": [
    {"type": "Failed", "status": "True", "reason": "FailedJobs", "message": "jobset failed", "lastTransitionTime": "2026-12-01T00:00:00Z"}]}


@pytest.mark.parametrize("managed_by", [None, c.MANAGED_BY_TRAINER, c.MANAGED_BY_MULTIKUEUE])
def test_a_completed_jobset_completes_the_trainjob_whoever_manages_it(managed_by: str | None) -> None:
    trainjob = make_trainjob().runtime_ref("rt").obj()
    if managed_by:
        trainjob["spec"]["managedBy"] = managed_by
    status = trainjob_status(trainjob, COMPLETED)
    assert [(cond["type"], cond["status"]) for cond in status["conditions"] if cond["type"] == "Complete"] == [("Complete", "True")]


def test_a_failed_jobset_dispatched_by_multikueue_fails_the_trainjob() -> None:
    trainjob = make_trainjob().runtime_ref("rt").obj()
    trainjob["spec"]["managedBy"] = c.MANAGED_BY_MULTIKUEUE
    assert failed_condition(trainjob_status(trainjob, FAILED)) is not None
