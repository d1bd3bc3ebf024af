"""The components' typed arguments: Outputs where a plain value decides the structure, the Args names."""

from __future__ import annotations

import warnings

import pulumi
import pytest

import pulumi_kubeflow_trainer as package
from pulumi_kubeflow_trainer import DatasetInitializerArgs, TrainerArgs, TrainJob
from pulumi_kubeflow_trainer.api import Trainer as TrainerModel

from .conftest import RecordingMocks

PLAIN_VALUE_NEEDED = "Invalid value: a Pulumi Output: this value decides what is rendered, so it must be known at preview; pass a plain value"


def output(value: object) -> pulumi.Output[object]:
    return pulumi.Output.from_input(value)


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"trainer": TrainerArgs(num_nodes=output(2))}, "spec.trainer.numNodes"),  # type: ignore[arg-type]
        ({"trainer": TrainerArgs(num_proc_per_node=output(2))}, "spec.trainer.numProcPerNode"),  # type: ignore[arg-type]
        ({"trainer": TrainerArgs(resources_per_node={"limits": {"cpu": output("2")}})}, "spec.trainer.resourcesPerNode.limits.cpu"),
        ({"suspend": output(True)}, "spec.suspend"),
        ({"active_deadline_seconds": output(60)}, "spec.activeDeadlineSeconds"),
        ({"managed_by": output("kueue.x-k8s.io/multikueue")}, "spec.managedBy"),
        ({"runtime_ref": output("torch-distributed")}, "spec.runtimeRef"),
        ({"job_name": output("mnist")}, "metadata.name"),
    ],
    ids=["numNodes", "numProcPerNode", "a quantity", "suspend", "activeDeadlineSeconds", "managedBy", "runtimeRef", "metadata.name"],
)
def test_an_output_where_a_plain_value_decides_the_structure_is_named_by_its_field(
    mocks: RecordingMocks, arguments: dict[str, object], path: str
) -> None:
    arguments.setdefault("runtime_ref", "torch-distributed")

    @pulumi.runtime.test
    def program() -> None:
        TrainJob("bad", **arguments)  # type: ignore[arg-type]

    with pytest.raises(pulumi.RunError) as raised:
        program()
    message = str(raised.value)
    assert f"{path}: {PLAIN_VALUE_NEEDED}" in message
    assert "pulumi-output://" not in message, "the internal token must not leak"
    assert [args.name for args in mocks.registered if args.name != "bad"] == []


@pytest.mark.parametrize(
    ("trainer", "path"),
    [
        (TrainerArgs(command=output(["torchrun", "train.py"])), "spec.trainer.command"),  # type: ignore[arg-type]
        (TrainerArgs(env=output({"LR": "0.1"})), "spec.trainer.env"),  # type: ignore[arg-type]
    ],
    ids=["command", "env"],
)
def test_a_whole_list_as_an_output_is_refused_by_its_field(mocks: RecordingMocks, trainer: TrainerArgs, path: str) -> None:
    @pulumi.runtime.test
    def program() -> None:
        TrainJob("bad", runtime_ref="torch-distributed", trainer=trainer)

    with pytest.raises(pulumi.RunError, match=f"{path}: Invalid value: a Pulumi Output of a whole list or map"):
        program()


def test_outputs_in_leaf_values_are_still_accepted(mocks: RecordingMocks) -> None:
    @pulumi.runtime.test
    def program() -> None:
        dataset = DatasetInitializerArgs(storage_uri=pulumi.Output.from_input("hf://org/data"), secret_ref=pulumi.Output.from_input("creds"))
        trainer = TrainerArgs(image=pulumi.Output.from_input("registry/train:1"), env={"TOKEN": pulumi.Output.secret("t")})
        TrainJob("ok", runtime_ref="torchtune-llama3.2-1b", trainer=trainer, dataset=dataset, namespace=pulumi.Output.from_input("team"))

    program()
    assert "ok-jobset" in mocks.types()


def test_the_api_model_is_accepted_as_the_trainer(mocks: RecordingMocks) -> None:
    @pulumi.runtime.test
    def program() -> None:
        TrainJob("model", runtime_ref="torch-distributed", trainer=TrainerModel(num_nodes=3))

    program()
    (node,) = mocks.named("model-jobset").inputs["spec"]["replicatedJobs"]
    assert node["template"]["spec"]["parallelism"] == 3


def test_a_manifest_of_another_kind_is_refused_as_the_trainjob(mocks: RecordingMocks) -> None:
    @pulumi.runtime.test
    def program() -> None:
        TrainJob("wrong", {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime", "metadata": {"name": "x"}, "spec": {"template": {}}})

    with pytest.raises(pulumi.RunError, match="TrainJob wrong: "):
        program()


def test_the_old_names_of_the_args_types_still_work_with_a_deprecation_warning() -> None:
    for old, new in {"Trainer": TrainerArgs, "DatasetInitializer": DatasetInitializerArgs}.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert getattr(package, old) is new
        assert [str(warning.message) for warning in caught] == [f"pulumi_kubeflow_trainer.{old} is now {new.__name__}"]
        assert old not in package.__all__


def test_from_function_is_function_trainers() -> None:
    assert TrainerArgs.from_function == package.FunctionTrainer.from_function
