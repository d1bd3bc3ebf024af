"""resources/kueue.py under Pulumi mocks: a queued TrainJob leaves the JobSet's `spec.suspend` to Kueue
and says `suspend` on its Workload's `spec.active` (tests/cluster/test_kueue.py runs it for real)."""

from __future__ import annotations

import pulumi
import pytest

from pulumi_kubeflow_trainer import TrainJob
from pulumi_kubeflow_trainer.resources.kueue import child_urn, workload_name

from .conftest import settled

WORKLOAD_PATCH = "kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPatch"


def test_the_workload_name_is_the_one_kueue_gives():
    # Kueue v0.17 jobframework/workload_names.go: "jobset-<name>" (truncated), "-", the first 5 hex of
    # sha1("JobSet\njobset.x-k8s.io\n<name>\n<uid>"). That it is the live name is proven by
    # tests/cluster/test_kueue.py (the patch would otherwise create a Workload, which the API refuses).
    uid = "0d4c8d4e-6a3b-4b1e-9a55-2f8f0f6a1c3d"
    name = workload_name("kq-suspend", uid)
    assert name.startswith("jobset-kq-suspend-") and len(name) == len("jobset-kq-suspend-") + 5
    assert len(workload_name("x" * 300, uid)) == 253, "truncated as Kueue truncates (long names)"


@pytest.mark.parametrize("suspend", [True, False])
@pulumi.runtime.test
def test_a_queued_trainjob_says_suspend_on_its_workload(mocks, suspend: bool):
    mocks.uids["mnist-jobset"] = "9b0c2e6e-4c1a-4a9e-8d1f-2f4a3c5b6d7e"  # made in a cluster
    job = TrainJob("mnist", runtime_ref="torch-distributed", queue_name="team-queue", suspend=suspend)

    def check(_):
        assert "suspend" not in mocks.named("mnist-jobset").inputs["spec"], "the JobSet's suspend is Kueue's"
        patch = mocks.named("mnist-workload-active")
        assert patch.typ == WORKLOAD_PATCH
        assert patch.inputs["spec"] == {"active": not suspend}

    return settled(job).apply(check)


@pulumi.runtime.test
def test_a_jobset_rendered_to_a_directory_gets_no_workload_patch(mocks):
    """A render target makes no object (its JobSet has no uid) and Kueue no Workload: a patch could not be
    named (it stopped the preview: "patch resources require the .metadata.name field to be set")."""
    job = TrainJob("rendered", runtime_ref="torch-distributed", queue_name="team-queue", suspend=False)

    def check(_):
        assert "rendered-jobset" in mocks.types()
        assert not [name for name, typ in mocks.types().items() if typ == WORKLOAD_PATCH]

    return settled(job).apply(check)


@pulumi.runtime.test
def test_without_queue_or_suspend_nothing_is_added(mocks):
    queued = TrainJob("queued", runtime_ref="torch-distributed", queue_name="team-queue")
    plain = TrainJob("plain", runtime_ref="torch-distributed", suspend=True)

    def check(_):
        assert set(mocks.types()) >= {"queued-jobset", "plain-jobset"}
        assert not [name for name, typ in mocks.types().items() if typ == WORKLOAD_PATCH]
        assert mocks.named("plain-jobset").inputs["spec"]["suspend"] is True, "without a queue suspend stays on the JobSet"

    return settled(queued, plain).apply(check)


@pytest.mark.parametrize(("parent_urn", "expected"), [
    ("urn:pulumi:dev::trainer::kubeflow:trainer:TrainJob::mnist",
     "urn:pulumi:dev::trainer::kubeflow:trainer:TrainJob$kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPatch::mnist-workload-active"),
    ("urn:pulumi:dev::trainer::my:Platform$kubeflow:trainer:TrainJob::mnist",
     "urn:pulumi:dev::trainer::my:Platform$kubeflow:trainer:TrainJob$kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPatch::mnist-workload-active"),
], ids=["a TrainJob at the top of the stack", "a TrainJob inside another component"])
def test_the_wait_hook_finds_its_patch_by_the_urn_pulumi_gives_a_child(parent_urn: str, expected: str):
    # The hook runs before the patch's own URN resolves: it is matched from its parent's (kueue._settings_of).
    assert child_urn(parent_urn, WORKLOAD_PATCH, "mnist-workload-active") == expected
