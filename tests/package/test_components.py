"""The package's components under Pulumi mocks: each makes the Python component as its child, with the
same manifests, passes its Outputs on, and reports bad input as property errors."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi.resource import DependencyResource

from pulumi_kubeflow_trainer import render
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.package.components import ClusterTrainingRuntime, RuntimeReferences, TrainJob
from pulumi_kubeflow_trainer.package.host import KubeflowTrainerProvider
from tests.resources.conftest import RecordingMocks, settled

TRAINER = {"num_nodes": 2.0, "command": ["torchrun", "train.py"], "resources_per_node": {"limits": {"cpu": 1.0}}}


@pulumi.runtime.test
def test_the_trainjob_makes_the_python_trainjob_with_the_manifests_of_a_python_program(mocks: RecordingMocks):
    runtime = ClusterTrainingRuntime("torch", {"bundled": "torch-distributed"})
    job = TrainJob("mnist", {"runtime": runtime, "namespace": "team", "trainer": TRAINER})
    python_program = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "mnist", "namespace": "team"},
                      "spec": {"runtimeRef": {"name": "torch-distributed"},
                               "trainer": {"numNodes": 2, "command": ["torchrun", "train.py"], "resourcesPerNode": {"limits": {"cpu": 1}}}}}

    def check(_: Any) -> None:
        registered = {(args.name, args.typ) for args in mocks.registered}
        assert {("torch", "kubeflow-trainer:index:ClusterTrainingRuntime"), ("torch", "kubeflow:trainer:ClusterTrainingRuntime"),
                ("mnist", "kubeflow-trainer:index:TrainJob"), ("mnist", "kubeflow:trainer:TrainJob")} <= registered
        assert job.trainjob._name == "mnist" and job.trainjob._type == "kubeflow:trainer:TrainJob", "the child has the resource's name"  # noqa: SLF001
        want = next(m for m in render([python_program, bundled_runtime("torch-distributed").to_manifest()], runtime_snapshot=False) if m["kind"] == "JobSet")
        assert mocks.named("mnist-jobset").inputs["spec"] == want["spec"]

    return settled(job.trainjob).apply(check)


@pulumi.runtime.test
def test_the_outputs_are_the_python_components(mocks: RecordingMocks):
    runtime = ClusterTrainingRuntime("torch", {"bundled": "torch-distributed"})
    job = TrainJob("mnist", {"runtime_ref": "torch-distributed", "runtimes": [runtime]})
    assert job.jobset_name is job.trainjob.jobset_name and runtime.manifest is runtime.runtime.manifest
    return pulumi.Output.all(job.jobset_name, job.namespace, runtime.runtime_name).apply(
        lambda values: _assert_equal(values, ["mnist", None, "torch-distributed"]))


def _assert_equal(got: Any, want: Any) -> None:
    assert got == want


@pytest.mark.parametrize(("args", "path", "reason"), [
    ({"runtime_ref": "torch-distributed", "trainer": {"resources_per_node": {"limits": {"cpu": "lots"}}}}, "trainer.resourcesPerNode.limits.cpu",
     'Invalid value: "lots"'),
    ({"manifest": {"spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"resourcesPerNode": {"limits": {"cpu": "lots"}}}}}},
     "manifest.spec.trainer.resourcesPerNode.limits.cpu", 'Invalid value: "lots"'),
    ({"runtime_ref": "torch-distributed", "job_name": "Bad_Name"}, "jobName", "RFC 1035"),
    ({"runtime_ref": "no-such-runtime"}, "runtimeRef", "not found: specified clusterTrainingRuntime"),
], ids=["a trainer input", "a manifest field", "the job name", "a runtime found nowhere"])
def test_bad_input_is_a_property_error_at_the_input_path(mocks: RecordingMocks, args: dict[str, Any], path: str, reason: str):
    with pytest.raises(pulumi.InputPropertiesError) as raised:
        TrainJob("bad", args)
    (error,) = raised.value.errors or []
    assert error["property_path"] == path and reason in error["reason"]


def test_a_count_from_another_resource_is_refused_at_its_path(mocks: RecordingMocks):
    """Values that decide what is rendered must be plain, as in Python; a YAML `${res.output}` is an Output."""
    with pytest.raises(pulumi.InputPropertiesError) as raised:
        TrainJob("bad", {"runtime_ref": "torch-distributed", "trainer": {"num_nodes": pulumi.Output.from_input(2)}})
    (error,) = raised.value.errors or []
    assert error["property_path"] == "trainer.numNodes" and "Invalid value: a Pulumi Output" in error["reason"]


def test_an_unknown_bundled_runtime_is_a_property_error(mocks: RecordingMocks):
    with pytest.raises(pulumi.InputPropertiesError) as raised:
        ClusterTrainingRuntime("torch", {"bundled": "no-such-runtime"})
    assert [error["property_path"] for error in raised.value.errors or []] == ["bundled"]


def test_the_host_passes_property_errors_to_the_engine_as_they_are(mocks: RecordingMocks):
    """Not wrapped into the host's ComponentInitError, which the engine would print with a Python stack."""
    with pytest.raises(pulumi.InputPropertiesError):
        KubeflowTrainerProvider().construct("bad", "kubeflow-trainer:index:TrainJob", {"runtimeRef": "no-such-runtime"})


def test_a_reference_to_a_runtime_is_the_component_made_for_it(mocks: RecordingMocks):
    references = RuntimeReferences()
    runtime = ClusterTrainingRuntime("torch", {"bundled": "torch-distributed"})
    references.add(runtime)
    token = "kubeflow-trainer:index:ClusterTrainingRuntime"
    assert references.construct("torch", token, f"urn:pulumi:s::p::{token}::torch") is runtime
    unknown = references.construct("other", token, f"urn:pulumi:s::p::{token}::other")
    assert isinstance(unknown, DependencyResource), "an unknown reference stays a plain reference, refused by conversion"
