"""TrainJob status from its JobSet (SEMANTICS §5, §7.4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.framework.errors import TrainerError, TrainJobInvalidError
from pulumi_kubeflow_trainer.status import compute_status, timestamp
from tests.builders import TrainJobBuilder, make_trainjob

CREATED = datetime(2026, 1, 1, tzinfo=timezone.utc)
NOW = CREATED + timedelta(minutes=10)
EARLIER = timestamp(CREATED + timedelta(minutes=1))


def job(**status: Any) -> TrainJobBuilder:
    builder = make_trainjob("team", "job").runtime_ref("rt").set("metadata.creationTimestamp", timestamp(CREATED))
    return builder.set("status", status) if status else builder


def condition(kind: str, status: str, reason: str, message: str, when: str = EARLIER, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "status": status, "reason": reason, "message": message, "lastTransitionTime": when, **extra}


def jobset(*conditions: dict[str, Any], jobs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"conditions": list(conditions)}
    if jobs is not None:
        status["replicatedJobsStatus"] = jobs
    return {"apiVersion": c.JOBSET_API_VERSION, "kind": "JobSet", "metadata": {"name": "job", "namespace": "team"}, "status": status}


SUSPENDED = condition("Suspended", "True", "Suspended", "TrainJob is suspended")
RESUMED = condition("Suspended", "False", "Resumed", "TrainJob is resumed", timestamp(NOW))
JOBSET_COMPLETED = condition("Completed", "True", "AllJobsCompleted", "jobset completed successfully", observedGeneration=3)
JOBSET_FAILED = condition("Failed", "True", "FailedJobs", "jobset failed due to one or more job failures")
DEADLINE = condition("Failed", "True", "DeadlineExceeded", "TrainJob exceeded its active deadline", timestamp(NOW))


@dataclass(frozen=True)
class Case:
    name: str
    trainjob: TrainJobBuilder
    jobset: dict[str, Any] | None
    want: dict[str, Any]
    supported: bool = True
    now: datetime = field(default=NOW)


CASES = [
    Case("a running trainjob that was never suspended has no condition", job(), jobset(), {}),
    Case(
        "a suspended trainjob is Suspended",
        job().suspend(),
        jobset(),
        {"conditions": [condition("Suspended", "True", "Suspended", "TrainJob is suspended", timestamp(NOW))]},
    ),
    Case("staying suspended keeps the transition time", job(conditions=[SUSPENDED]).suspend(), jobset(), {"conditions": [SUSPENDED]}),
    Case("a resumed trainjob is Suspended=False with reason Resumed", job(conditions=[SUSPENDED]), jobset(), {"conditions": [RESUMED]}),
    Case(
        "a completed jobset completes the trainjob with its reason, message and time",
        job(),
        jobset(JOBSET_COMPLETED),
        {"conditions": [{**JOBSET_COMPLETED, "type": "Complete"}]},
    ),
    Case(
        "a failed jobset fails the trainjob with its reason, message and time",
        job(),
        jobset(JOBSET_FAILED),
        {"conditions": [JOBSET_FAILED]},
    ),
    Case(
        "jobset conditions that are not True are not copied",
        job(),
        jobset(condition("Completed", "False", "", ""), condition("Failed", "False", "", ""), condition("StartupPolicyCompleted", "True", "", "")),
        {},
    ),
    Case(
        "replicated job statuses map one to one in order",
        job(),
        jobset(jobs=[{"name": "node", "ready": 2, "active": 2}, {"name": "init", "succeeded": 1}]),
        {
            "jobsStatus": [
                {"name": "node", "ready": 2, "succeeded": 0, "failed": 0, "active": 2, "suspended": 0},
                {"name": "init", "ready": 0, "succeeded": 1, "failed": 0, "active": 0, "suspended": 0},
            ]
        },
    ),
    Case(
        "without a jobset the status is kept",
        job(conditions=[SUSPENDED], jobsStatus=[{"name": "node", "ready": 1, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0}]).suspend(),
        None,
        {"conditions": [SUSPENDED], "jobsStatus": [{"name": "node", "ready": 1, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0}]},
    ),
    Case(
        "a trainjob past its deadline fails with DeadlineExceeded",
        job().set("spec.activeDeadlineSeconds", 60),
        jobset(),
        {"conditions": [DEADLINE]},
    ),
    Case("a trainjob within its deadline is left running", job().set("spec.activeDeadlineSeconds", 3600), jobset(), {}),
    Case("the deadline is not enforced while suspended", job().set("spec.activeDeadlineSeconds", 60).suspend(), jobset(), {"conditions": [condition("Suspended", "True", "Suspended", "TrainJob is suspended", timestamp(NOW))]}),
    Case(
        "the deadline counts from the resume, not the creation",
        job(conditions=[{**RESUMED, "lastTransitionTime": timestamp(NOW - timedelta(seconds=30))}]).set("spec.activeDeadlineSeconds", 60),
        jobset(),
        {"conditions": [{**RESUMED, "lastTransitionTime": timestamp(NOW - timedelta(seconds=30))}]},
    ),
    Case(
        "a resumed trainjob past its deadline since the resume fails",
        job(conditions=[{**RESUMED, "lastTransitionTime": timestamp(NOW - timedelta(seconds=90))}]).set("spec.activeDeadlineSeconds", 60),
        jobset(),
        {"conditions": [{**RESUMED, "lastTransitionTime": timestamp(NOW - timedelta(seconds=90))}, DEADLINE]},
    ),
    Case("a finished trainjob is not failed by its deadline", job().set("spec.activeDeadlineSeconds", 60), jobset(JOBSET_COMPLETED), {"conditions": [{**JOBSET_COMPLETED, "type": "Complete"}]}),
    Case("a DeadlineExceeded failure survives the recomputation", job(conditions=[DEADLINE]).set("spec.activeDeadlineSeconds", 60), jobset(), {"conditions": [DEADLINE]}),
    Case("a multikueue trainjob's status is left untouched", job().managed_by(c.MANAGED_BY_MULTIKUEUE).suspend(), jobset(JOBSET_FAILED), {}),
    Case(
        "a multikueue trainjob's existing status is kept as it is",
        job(conditions=[SUSPENDED]).managed_by(c.MANAGED_BY_MULTIKUEUE),
        jobset(JOBSET_COMPLETED),
        {"conditions": [SUSPENDED]},
    ),
    Case(
        "an unsupported runtime fails the trainjob",
        job().runtime_ref("rt", kind="Other", api_group="example.com"),
        None,
        {"conditions": [condition("Failed", "True", "TrainingRuntimeNotSupported", "unsupported runtime: Other.example.com", timestamp(NOW))]},
        supported=False,
    ),
    Case(
        "an unsupported runtime with defaulted ref names the defaults",
        job(),
        None,
        {"conditions": [condition("Failed", "True", "TrainingRuntimeNotSupported", "unsupported runtime: ClusterTrainingRuntime.trainer.kubeflow.org", timestamp(NOW))]},
        supported=False,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_status(case: Case) -> None:
    manifest = case.trainjob.obj()
    before = case.trainjob.obj()
    assert compute_status(manifest, case.jobset, runtime_supported=case.supported, now=case.now) == case.want
    assert manifest == before, "the input is not modified"


def test_conditions_update_in_place_and_move_the_time_only_when_the_status_flips() -> None:
    old_failed = condition("Failed", "True", "Old", "old message", timestamp(CREATED))
    status = compute_status(job(conditions=[SUSPENDED, old_failed]).obj(), jobset(JOBSET_FAILED), runtime_supported=True, now=NOW)
    assert status["conditions"] == [RESUMED, {**JOBSET_FAILED, "lastTransitionTime": timestamp(CREATED)}]


def test_a_jobset_condition_without_a_time_gets_now() -> None:
    completed = {key: value for key, value in JOBSET_COMPLETED.items() if key != "lastTransitionTime"}
    status = compute_status(job().obj(), jobset(completed), runtime_supported=True, now=NOW)
    assert status["conditions"][0]["lastTransitionTime"] == timestamp(NOW)


def test_an_unreadable_creation_time_means_no_deadline_start() -> None:
    manifest = job().set("spec.activeDeadlineSeconds", 1).set("metadata.creationTimestamp", "yesterday").obj()
    assert compute_status(manifest, jobset(), runtime_supported=True, now=NOW) == {}


def test_a_creation_time_without_zone_is_utc() -> None:
    manifest = job().set("spec.activeDeadlineSeconds", 60).set("metadata.creationTimestamp", "2026-01-01T00:00:00").obj()
    assert compute_status(manifest, jobset(), runtime_supported=True, now=NOW)["conditions"] == [DEADLINE]


@dataclass(frozen=True)
class Misshapen:
    name: str
    trainjob: dict[str, Any]
    jobset: dict[str, Any] | None
    says: list[str]


MISSHAPEN = [
    Misshapen("conditions that are not a list", job().set("status", {"conditions": {"type": "x"}}).obj(), None,
              ['TrainJob/job: status.conditions: Invalid value: {"type": "x"}: must be a list']),
    Misshapen("a condition that is not an object", job().set("status", {"conditions": ["Suspended"]}).obj(), None,
              ['TrainJob/job: status.conditions[0]: Invalid value: "Suspended": must be an object']),
    Misshapen("a deadline that is not an integer", job().set("spec.activeDeadlineSeconds", "60").obj(), None,
              ['TrainJob/job: spec.activeDeadlineSeconds: Invalid value: "60": must be an integer']),
    Misshapen("a deadline that is a boolean", job().set("spec.activeDeadlineSeconds", True).obj(), None,
              ["TrainJob/job: spec.activeDeadlineSeconds: Invalid value: true: must be an integer"]),
    Misshapen("every misshapen field of the jobset at once", job().obj(), {"metadata": {"name": "js"}, "status": {"conditions": "x", "replicatedJobsStatus": [1]}},
              ['JobSet/js: status.conditions: Invalid value: "x": must be a list', "JobSet/js: status.replicatedJobsStatus[0]: Invalid value: 1: must be an object"]),
    Misshapen("a trainjob that is not an object", ["TrainJob"], None, ['TrainJob/?: Invalid value: ["TrainJob"]: must be an object']),  # type: ignore[list-item]
]


@pytest.mark.parametrize("case", MISSHAPEN, ids=lambda case: case.name)
def test_fields_of_the_wrong_shape_are_field_errors(case: Misshapen) -> None:
    with pytest.raises(TrainJobInvalidError) as raised:
        compute_status(case.trainjob, case.jobset, runtime_supported=True, now=NOW)
    assert [error.describe() for error in raised.value.errors] == case.says


def test_a_deadline_beyond_any_date_never_passes() -> None:
    manifest = job().set("spec.activeDeadlineSeconds", 2**63 - 1).obj()
    assert compute_status(manifest, jobset(), runtime_supported=True, now=NOW) == {}


def test_a_naive_now_is_utc() -> None:
    manifest = job().set("spec.activeDeadlineSeconds", 60).obj()
    assert compute_status(manifest, jobset(), runtime_supported=True, now=NOW.replace(tzinfo=None))["conditions"] == [DEADLINE]


@pytest.mark.parametrize("now", ["2026-01-01", datetime.min.replace(tzinfo=timezone(timedelta(hours=1)))], ids=["a string", "before year 1 in UTC"])
def test_a_now_that_is_no_utc_datetime_is_a_trainer_error(now: Any) -> None:
    with pytest.raises(TrainerError, match="^now: "):
        compute_status(job().obj(), None, runtime_supported=True, now=now)
