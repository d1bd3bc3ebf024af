"""The package's inputs as the Python components' keyword arguments: numbers as the engine carries them,
runtimes by reference, and what only this layer can refuse."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pulumi
import pytest

from pulumi_kubeflow_trainer import DatasetInitializerArgs, TrainerArgs
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.package.args import WaitFor
from pulumi_kubeflow_trainer.package.conversion import plain_numbers, runtime_kwargs, trainjob_kwargs


class Runtime:
    """Stands for a package runtime component: what conversion reads of one is `runtime`."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime


@dataclass(frozen=True)
class Converted:
    name: str
    given: dict[str, Any]
    want: dict[str, Any]


CONVERTED = [
    Converted("whole numbers from the engine are ints again, in objects too",
              {"manifest": {"spec": {"trainer": {"numNodes": 2.0}}}, "active_deadline_seconds": 60.0},
              {"manifest": {"spec": {"trainer": {"numNodes": 2}}}, "active_deadline_seconds": 60}),
    Converted("the trainer becomes TrainerArgs with int counts",
              {"trainer": {"num_nodes": 3.0, "image": "img", "resources_per_node": {"limits": {"nvidia.com/gpu": 4.0}}}},
              {"trainer": TrainerArgs(image="img", num_nodes=3, resources_per_node={"limits": {"nvidia.com/gpu": 4}})}),
    Converted("initializers become the Args types",
              {"dataset": {"storage_uri": "hf://x", "secret_ref": "creds"}},
              {"dataset": DatasetInitializerArgs(storage_uri="hf://x", secret_ref="creds")}),
    Converted("waitFor is the enum's value", {"wait_for": WaitFor.COMPLETED}, {"wait_for": "completed"}),
    Converted("a package runtime is passed as the Python component it made",
              {"runtime": Runtime("python-runtime"), "runtimes": [Runtime("other"), {"kind": "ClusterTrainingRuntime"}]},
              {"runtime": "python-runtime", "runtimes": ["other", {"kind": "ClusterTrainingRuntime"}]}),
    Converted("inputs not given are left out, so the Python defaults apply", {"suspend": None, "run": "2"}, {"run": "2"}),
    Converted("the manifest as YAML text is the manifest", {"manifest_yaml": "kind: TrainJob\n"}, {"manifest": "kind: TrainJob\n"}),
]


@pytest.mark.parametrize("case", CONVERTED, ids=lambda case: case.name)
def test_inputs_become_the_python_keyword_arguments(case: Converted) -> None:
    assert trainjob_kwargs(case.given, Runtime) == case.want


@dataclass(frozen=True)
class Refused:
    name: str
    given: dict[str, Any]
    paths: list[str]
    reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


REFUSED = [
    Refused("a count that is not whole", {"trainer": {"num_nodes": 2.5}}, ["trainer.numNodes"], "Invalid value: 2.5: must be a whole number"),
    Refused("a runtime from another resource's output", {"runtime": pulumi.Output.from_input({"kind": "x"})}, ["runtime"], "a value from another resource"),
    Refused("a reference the host could not resolve (a URN)", {"runtimes": [Runtime("ok"), "urn:pulumi:s::p::kubeflow-trainer:index:TrainJob::job"]},
            ["runtimes[1]"], "not a runtime"),
    Refused("the manifest twice", {"manifest": {}, "manifest_yaml": "kind: TrainJob"}, ["manifest", "manifestYaml"],
            "Forbidden: give one of manifest, manifestYaml, not 2"),
    Refused("every refused input at once", {"trainer": {"num_proc_per_node": 0.5}, "wait_timeout_seconds": 1.5},
            ["waitTimeoutSeconds", "trainer.numProcPerNode"]),
]


@pytest.mark.parametrize("case", REFUSED, ids=lambda case: case.name)
def test_what_only_the_package_sees_is_refused_under_its_path(case: Refused) -> None:
    with pytest.raises(pulumi.InputPropertiesError) as raised:
        trainjob_kwargs(case.given, Runtime)
    assert [error["property_path"] for error in raised.value.errors or []] == case.paths
    assert case.reason in (raised.value.errors or [])[0]["reason"]


def test_a_runtime_manifest_comes_from_one_of_manifest_manifest_yaml_and_bundled() -> None:
    assert runtime_kwargs({"bundled": "torch-distributed", "deploy": True}) == {"manifest": bundled_runtime("torch-distributed").to_manifest(), "deploy": True}
    assert runtime_kwargs({"manifest_yaml": "kind: X", "labels": {"a": "b"}}) == {"manifest": "kind: X", "labels": {"a": "b"}}
    with pytest.raises(pulumi.InputPropertiesError) as raised:
        runtime_kwargs({"bundled": "torch-distributed", "manifest": {}})
    assert [error["property_path"] for error in raised.value.errors or []] == ["manifest", "bundled"]


def test_plain_numbers_leave_fractions_and_outputs_alone() -> None:
    output = pulumi.Output.from_input(1.0)
    assert plain_numbers({"a": [1.0, 1.5, output, "1.0", True]}) == {"a": [1, 1.5, output, "1.0", True]}
