"""Controller mode (`controller="kubeflow"`) under Pulumi mocks: what is registered instead of the
children, the prediction the component keeps, and status from the live TrainJob."""

from __future__ import annotations

import pulumi
import pytest

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainJob, render
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.resources.controller_mode import EXPECTED, GENERATED, WAIT_FOR_FINISHED, WAIT_FOR_FINISHED_QUEUED
from tests.builders import make_trainjob

from .conftest import KEY_TYPE, settled

TRAINJOB = "kubernetes:trainer.kubeflow.org/v1alpha1:TrainJob"
RUNTIME = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime"


@pulumi.runtime.test
def test_the_trainjob_and_runtime_objects_are_registered_and_no_child_is(mocks):
    manifest = make_trainjob("team", "ds").runtime_ref("deepspeed-distributed").num_nodes(3).obj()
    runtime = ClusterTrainingRuntime.bundled("deepspeed-distributed", controller="kubeflow")
    job = TrainJob("ds", manifest, runtime=runtime, controller="kubeflow", queue_name="team-q")

    def check(_):
        types = {name: typ for name, typ in mocks.types().items() if name.startswith("ds") or "runtime" in typ.lower()}
        assert types["ds-trainjob"] == TRAINJOB
        assert types["deepspeed-distributed-clustertrainingruntime"] == RUNTIME
        assert "ds-jobset" not in types and KEY_TYPE not in types.values(), "the controller makes the children"
        trainjob = mocks.named("ds-trainjob").inputs
        assert trainjob["spec"]["runtimeRef"]["name"] == "deepspeed-distributed"
        assert trainjob["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-q"
        expected = mocks.named("ds-prediction").inputs[EXPECTED]
        assert EXPECTED not in mocks.named("ds").inputs, "the prediction is the child's (a runtime edit changes no component)"
        rendered = render([manifest, bundled_runtime("deepspeed-distributed")], runtime_snapshot=False)
        assert [m["kind"] for m in expected] == [m["kind"] for m in rendered]
        jobset = next(m for m in expected if m["kind"] == "JobSet")
        assert jobset["spec"] == next(m for m in rendered if m["kind"] == "JobSet")["spec"]
        secret = next(m for m in expected if m["kind"] == "Secret")
        assert set(secret["data"].values()) == {GENERATED}, "no key of ours is predicted"

    return settled(runtime, job).apply(check)


@pulumi.runtime.test
def test_conditions_are_the_live_trainjobs(mocks):
    complete = {"type": "Complete", "status": "True", "reason": "JobSetCompleted"}
    mocks.live["mnist-trainjob"] = {"status": {"conditions": [complete], "jobsStatus": [{"name": "node"}]}}
    job = TrainJob("mnist", make_trainjob("team", "mnist").runtime_ref("torch-distributed").obj(), controller="kubeflow",
                   wait_for="completed", wait_timeout_seconds=600)

    def check(values):
        conditions, jobs = values
        assert conditions == [complete] and jobs == [{"name": "node"}]
        annotations = mocks.named("mnist-trainjob").inputs["metadata"]["annotations"]
        assert annotations == {"pulumi.com/waitFor": WAIT_FOR_FINISHED, "pulumi.com/timeoutSeconds": "600"}

    return pulumi.Output.all(job.conditions, job.jobs_status).apply(check)


@pulumi.runtime.test
def test_a_queued_trainjob_waits_past_kueues_suspension_and_keeps_suspend_unset(mocks):
    """Kueue's webhook suspends a queued TrainJob on create and its admission unsuspends it: the
    TrainJob Pulumi applies names no spec.suspend (Kueue's), and the wait ends at Complete or Failed."""
    job = TrainJob("queued", make_trainjob("team", "queued").runtime_ref("torch-distributed").obj(), controller="kubeflow",
                   queue_name="team-q", wait_for="completed", wait_timeout_seconds=600)

    def check(_):
        trainjob = mocks.named("queued-trainjob").inputs
        assert trainjob["metadata"]["annotations"]["pulumi.com/waitFor"] == WAIT_FOR_FINISHED_QUEUED
        assert "suspend" not in trainjob["spec"]

    return settled(job).apply(check)


@pulumi.runtime.test
def test_the_default_mode_keeps_no_prediction(mocks):
    job = TrainJob("mnist", make_trainjob("team", "mnist").runtime_ref("torch-distributed").obj())

    def check(_):
        assert EXPECTED not in mocks.named("mnist").inputs
        assert mocks.types()["mnist-jobset"] == "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"

    return settled(job).apply(check)


@pytest.mark.parametrize("suspend", [True, False], ids=["suspend=True", "suspend=False"])
def test_a_queued_trainjob_with_suspend_is_refused_in_controller_mode(mocks, suspend):
    """Kueue owns spec.suspend of a queued TrainJob object: Pulumi's would be undone on admission."""
    with pytest.raises(Exception, match="spec.suspend: Forbidden: a queued TrainJob in controller mode"):
        TrainJob("queued", make_trainjob("team", "queued").runtime_ref("torch-distributed").obj(), controller="kubeflow",
                 queue_name="team-q", suspend=suspend)


def test_an_unknown_controller_is_refused_at_construction(mocks):
    with pytest.raises(Exception, match="controller: 'argo' is not one of kubeflow"):
        TrainJob("mnist", make_trainjob("team", "mnist").runtime_ref("torch-distributed").obj(), controller="argo")
