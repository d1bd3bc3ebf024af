"""The TrainJob record's check: the upstream runtime-patch update rules, at preview time."""

from dataclasses import dataclass

import pytest

from pulumi_kubeflow_trainer.resources.record import TrainJobRecordProvider

KUEUE = [{"manager": "kueue.x-k8s.io/manager", "trainingRuntimeSpec": {"template": {"metadata": {"labels": {"a": "1"}}}}}]
KUEUE_CHANGED = [{"manager": "kueue.x-k8s.io/manager", "trainingRuntimeSpec": {"template": {"metadata": {"labels": {"a": "2"}}}}}]


@dataclass(frozen=True)
class Case:
    name: str
    olds: dict
    news: dict
    want_failure: str | None


CASES = [
    Case("creating a TrainJob checks nothing", {}, {"runtimePatches": KUEUE, "suspend": False}, None),
    Case("unchanged patches on a running job pass", {"runtimePatches": KUEUE, "suspend": False}, {"runtimePatches": KUEUE, "suspend": False}, None),
    Case(
        "changing patches of a running job fails",
        {"runtimePatches": KUEUE, "suspend": False},
        {"runtimePatches": KUEUE_CHANGED, "suspend": False},
        "can only be modified when the TrainJob is suspended",
    ),
    Case("changing patches while suspending passes", {"runtimePatches": KUEUE, "suspend": False}, {"runtimePatches": KUEUE_CHANGED, "suspend": True}, None),
    Case("changing patches while resuming passes", {"runtimePatches": KUEUE, "suspend": True}, {"runtimePatches": KUEUE_CHANGED, "suspend": False}, None),
    Case(
        "a patch's time alone is no change",
        {"runtimePatches": KUEUE, "suspend": False},
        {"runtimePatches": [{**KUEUE[0], "time": "2026-01-01T00:00:00Z"}], "suspend": False},
        None,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_check(case: Case) -> None:
    result = TrainJobRecordProvider().check(case.olds, case.news)
    reasons = [failure.reason for failure in result.failures]
    if case.want_failure is None:
        assert reasons == []
    else:
        assert len(reasons) == 1 and case.want_failure in reasons[0]
        assert result.failures[0].property == "spec.runtimePatches"


def test_only_another_trainjob_replaces_the_record() -> None:
    provider = TrainJobRecordProvider()
    assert provider.diff("x", {"trainjob": "a/b", "suspend": False}, {"trainjob": "a/b", "suspend": True}).replaces == []
    assert provider.diff("x", {"trainjob": "a/b"}, {"trainjob": "a/c"}).replaces == ["trainjob"]
