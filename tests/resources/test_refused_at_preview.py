"""What the API server would refuse in the JobSet a TrainJob component creates stops the program at
preview, as a Pulumi error with the field path, the value and the fix (issue 22, part 4); so does an
unknown bundled runtime, listing the known ones; and TrainerArgs takes the SDK's resource shorthand
as `TrainerArgs.from_function` does (part 5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pytest

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainerArgs, TrainJob
from pulumi_kubeflow_trainer.blueprints import bundled_runtime_names

from .conftest import RecordingMocks, settled


@pytest.fixture
def previewing() -> RecordingMocks:
    recording = RecordingMocks()
    pulumi.runtime.set_mocks(recording, project="project", stack="stack", preview=True)
    return recording


@dataclass(frozen=True)
class Refusal:
    name: str
    trainer: TrainerArgs
    says: str


REFUSALS = [
    Refusal("a negative node count", TrainerArgs(image="train:1", num_nodes=-2),
            "spec.trainer.numNodes: Invalid value: -2: must be greater than or equal to 0"),
    Refusal("no process per node", TrainerArgs(image="train:1", num_proc_per_node=0),
            "spec.trainer.numProcPerNode: Invalid value: 0: must be greater than or equal to 1"),
    Refusal("a GPU requested without a limit, as in the KEP's example",
            TrainerArgs(image="train:1", resources_per_node={"requests": {"nvidia.com/gpu": 8}}),
            "spec.trainer.resourcesPerNode.limits: Required value: nvidia.com/gpu is requested (8) without a limit; the API "
            'server refuses the Pod ("Limit must be set for non overcommitable resources"): set limits {"nvidia.com/gpu": "8"} too'),
    Refusal("a GPU requested below its limit", TrainerArgs(image="train:1", resources_per_node={"requests": {"nvidia.com/gpu": 4},
                                                                                                "limits": {"nvidia.com/gpu": 8}}),
            'spec.trainer.resourcesPerNode.requests: Invalid value: "4": must be equal to nvidia.com/gpu limit of 8'),
]


@pytest.mark.parametrize("case", REFUSALS, ids=lambda case: case.name)
def test_what_the_api_server_would_refuse_stops_the_preview(previewing: RecordingMocks, case: Refusal) -> None:
    @pulumi.runtime.test
    def program() -> None:
        TrainJob("job", runtime=ClusterTrainingRuntime.bundled("torch-distributed"), namespace="team", trainer=case.trainer)

    with pytest.raises(pulumi.RunError) as raised:
        program()
    assert str(raised.value).startswith("kubeflow:trainer:TrainJob job: invalid input:\n")
    assert case.says in str(raised.value)
    assert not [args for args in previewing.registered if args.typ.endswith("JobSet")], "no JobSet registered"


def test_an_unknown_bundled_runtime_is_a_pulumi_error_listing_the_known_ones(previewing: RecordingMocks) -> None:
    @pulumi.runtime.test
    def program() -> None:
        ClusterTrainingRuntime.bundled("pytorch-distributed")

    with pytest.raises(pulumi.RunError) as raised:
        program()
    message = str(raised.value)
    assert message.startswith("kubeflow:trainer:ClusterTrainingRuntime pytorch-distributed: invalid input:\n"
                              "no bundled runtime named 'pytorch-distributed'; did you mean 'torch-distributed'? ")
    assert message.endswith(", ".join(bundled_runtime_names()))


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({"gpu": 8}, {"limits": {"nvidia.com/gpu": 8}, "requests": {"nvidia.com/gpu": 8}}),
        ({"gpu": 2, "cpu": 4, "memory": "16Gi"}, {"limits": {"nvidia.com/gpu": 2, "cpu": 4, "memory": "16Gi"},
                                                   "requests": {"nvidia.com/gpu": 2, "cpu": 4, "memory": "16Gi"}}),
        ({"limits": {"nvidia.com/gpu": 8}}, {"limits": {"nvidia.com/gpu": 8}}),
    ],
    ids=["the SDK's gpu shorthand", "the shorthand with cpu and memory", "the Kubernetes form as is"],
)
def test_trainer_args_take_the_resource_shorthand_from_function_takes(resources: dict[str, Any], expected: dict[str, Any]) -> None:
    assert TrainerArgs(resources_per_node=resources).to_manifest()["resourcesPerNode"] == expected
    assert TrainerArgs.from_function(_train, resources_per_node=resources).resources_per_node == expected


def _train() -> None:
    pass


def test_a_gpu_shorthand_renders_a_jobset_with_equal_requests_and_limits(previewing: RecordingMocks) -> None:
    @pulumi.runtime.test
    def program() -> Any:
        job = TrainJob("job", runtime=ClusterTrainingRuntime.bundled("torch-distributed"), namespace="team",
                       trainer=TrainerArgs(image="train:1", num_nodes=2, resources_per_node={"gpu": 8}))
        return settled(job).apply(lambda _: check(previewing))

    def check(mocks: RecordingMocks) -> None:
        jobset = mocks.named("job-jobset").inputs
        node = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
        assert node["resources"] == {"limits": {"nvidia.com/gpu": "8"}, "requests": {"nvidia.com/gpu": "8"}}
        assert {"name": "PET_NPROC_PER_NODE", "value": "auto"} in node["env"]

    program()
