"""Update rules (SEMANTICS §1.1, §1.5, §4.2): CEL immutability and the webhook's runtime-patch rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.framework.update_rules import validate_update
from tests.builders import TrainJobBuilder, make_trainjob

IMMUTABLE = "field is immutable"
SUSPEND_ONLY = "RuntimePatches can only be modified when the TrainJob is suspended before or after the update"
KUEUE = "kueue.x-k8s.io/manager"


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("torch-distributed")


def kueue_patch(trainjob: TrainJobBuilder, zone: str = "a", **pod: Any) -> TrainJobBuilder:
    spec = {"nodeSelector": {"zone": zone}, **pod}
    return trainjob.runtime_patch(KUEUE, jobs=[{"name": "node", "template": {"spec": {"template": {"spec": spec}}}}])


def errors(old: TrainJobBuilder, new: TrainJobBuilder, jobset: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    return [(error.path, error.message) for error in validate_update(old.build(), new.build(), jobset)]


@dataclass(frozen=True)
class Case:
    name: str
    old: TrainJobBuilder
    new: TrainJobBuilder
    paths: list[str]
    says: str = IMMUTABLE


IMMUTABILITY = [
    Case("a changed runtimeRef is rejected", job(), job().runtime_ref("other"), ["spec.runtimeRef"]),
    Case("a changed trainer is rejected", job().num_nodes(1), job().num_nodes(2), ["spec.trainer"]),
    Case("a changed initializer is rejected", job().dataset("hf://a/b"), job().dataset("hf://a/c"), ["spec.initializer"]),
    Case(
        "a changed activeDeadlineSeconds is rejected",
        job().set("spec.activeDeadlineSeconds", 10),
        job().set("spec.activeDeadlineSeconds", 20),
        ["spec.activeDeadlineSeconds"],
    ),
    Case("managedBy is defaulted, so setting it later changes it", job(), job().managed_by(c.MANAGED_BY_MULTIKUEUE), ["spec.managedBy"]),
    Case(
        "several changed fields are each reported",
        job().num_nodes(1),
        job().runtime_ref("other").num_nodes(2),
        ["spec.runtimeRef", "spec.trainer"],
    ),
    Case(
        "immutable pod fields of the same manager's patch for the same job are rejected",
        kueue_patch(job().suspend(), volumes=[{"name": "a", "emptyDir": {}}]),
        kueue_patch(job().suspend(), volumes=[{"name": "b", "emptyDir": {}}]),
        ["spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec.volumes"],
    ),
    Case(
        "runtimePatches changed on a running trainjob are rejected",
        kueue_patch(job(), "a"),
        kueue_patch(job(), "b"),
        ["spec.runtimePatches"],
        SUSPEND_ONLY,
    ),
    Case("a patch added to a running trainjob is rejected", job(), kueue_patch(job()), ["spec.runtimePatches"], SUSPEND_ONLY),
    Case("a patch removed from a running trainjob is rejected", kueue_patch(job()), job(), ["spec.runtimePatches"], SUSPEND_ONLY),
]


@pytest.mark.parametrize("case", IMMUTABILITY, ids=lambda case: case.name)
def test_rejected_updates(case: Case) -> None:
    found = errors(case.old, case.new)
    assert [path for path, _ in found] == case.paths
    assert all(case.says in message for _, message in found)


def test_the_immutability_message_is_the_cel_one() -> None:
    ((_, message),) = errors(job().num_nodes(1), job().num_nodes(2))
    assert message.startswith('Invalid value: "object": field is immutable')


@dataclass(frozen=True)
class Allowed:
    name: str
    old: TrainJobBuilder
    new: TrainJobBuilder


ALLOWED = [
    Allowed("suspend may change", job(), job().suspend()),
    Allowed("a trainer added where there was none passes (the rule needs the field before and after)", job(), job().num_nodes(2)),
    Allowed("a trainer removed passes (the rule needs the field before and after)", job().num_nodes(2), job()),
    Allowed("an initializer added passes", job(), job().model("hf://a/b")),
    Allowed("an activeDeadlineSeconds added passes", job(), job().set("spec.activeDeadlineSeconds", 60)),
    Allowed("spelling out defaulted runtimeRef fields is no change", job(), job().runtime_ref("torch-distributed", kind=c.CLUSTER_TRAINING_RUNTIME_KIND, api_group=c.GROUP)),
    Allowed("spelling out the default managedBy is no change", job(), job().managed_by(c.MANAGED_BY_TRAINER)),
    Allowed("patches may change while suspended before and after", kueue_patch(job().suspend(), "a"), kueue_patch(job().suspend(), "b")),
    Allowed("patches may change in the update that suspends", kueue_patch(job(), "a"), kueue_patch(job().suspend(), "b")),
    Allowed("patches may change in the update that resumes (Kueue admission)", kueue_patch(job().suspend(), "a"), kueue_patch(job(), "b")),
    Allowed(
        "only the patch time changed is no change",
        job().set("spec.runtimePatches", [{"manager": KUEUE, "time": "2026-01-01T00:00:00Z"}]),
        job().set("spec.runtimePatches", [{"manager": KUEUE, "time": "2026-01-02T00:00:00Z"}]),
    ),
    Allowed("mutable pod fields of a patch may change while suspended", kueue_patch(job().suspend(), "a", tolerations=[]), kueue_patch(job().suspend(), "b")),
    Allowed("nothing changed", kueue_patch(job().num_nodes(2)), kueue_patch(job().num_nodes(2))),
]


@pytest.mark.parametrize("case", ALLOWED, ids=lambda case: case.name)
def test_allowed_updates(case: Allowed) -> None:
    assert errors(case.old, case.new) == []


def jobset(**active: int) -> dict[str, Any]:
    statuses = [{"name": name, "ready": 0, "succeeded": 0, "failed": 0, "active": count, "suspended": 0} for name, count in active.items()]
    return {"apiVersion": c.JOBSET_API_VERSION, "kind": "JobSet", "metadata": {"name": "job"}, "status": {"replicatedJobsStatus": statuses}}


def test_patches_may_not_change_while_jobset_jobs_are_active() -> None:
    found = errors(kueue_patch(job(), "a"), kueue_patch(job().suspend(), "b"), jobset(initializer=0, node=2, launcher=1))
    assert [path for path, _ in found] == ["spec.runtimePatches", "spec.runtimePatches"]
    assert "RuntimePatches cannot be modified when the JobSet's ReplicatedJob node is still active" in found[0][1]
    assert "ReplicatedJob launcher is still active" in found[1][1]


def test_patches_may_change_once_the_jobset_jobs_are_suspended() -> None:
    assert errors(kueue_patch(job(), "a"), kueue_patch(job().suspend(), "b"), jobset(node=0)) == []


def test_an_active_jobset_does_not_matter_when_the_patches_are_unchanged() -> None:
    assert errors(kueue_patch(job()), kueue_patch(job().suspend()), jobset(node=3)) == []
