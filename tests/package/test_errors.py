"""The Python components' field paths said the way a program of another language wrote the inputs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pytest

from pulumi_kubeflow_trainer.framework.errors import FieldError, TrainerError, TrainJobInvalidError
from pulumi_kubeflow_trainer.package.errors import RUNTIME_PLACES, TRAINJOB_PLACES, in_package_spelling, input_path, reported_as_properties
from pulumi_kubeflow_trainer.resources.errors import invalid_input


@dataclass(frozen=True)
class Path:
    name: str
    field: str
    given: dict[str, Any]
    want: str


PATHS = [
    Path("a trainer field set by the trainer input", "spec.trainer.numNodes", {"trainer": {}}, "trainer.numNodes"),
    Path("a trainer field from the manifest", "spec.trainer.numNodes", {"manifest": {}}, "manifest.spec.trainer.numNodes"),
    Path("a list item keeps its index", "spec.runtimePatches[1].manager", {"runtime_patches": []}, "runtimePatches[1].manager"),
    Path("the runtime's name", "spec.runtimeRef.name", {"runtime_ref": "x"}, "runtimeRef"),
    Path("the dataset secret, a string here", "spec.initializer.dataset.secretRef.name", {"dataset": {}}, "dataset.secretRef"),
    Path("the namespace", "metadata.namespace", {"namespace": "team"}, "namespace"),
    Path("a field of the manifest given as text", "spec.trainer.numNodes", {"manifest_yaml": "..."}, "manifestYaml"),
    Path("a prefix of another field is no match", "spec.trainerX", {"trainer": {}}, "spec.trainerX"),
]


@pytest.mark.parametrize("case", PATHS, ids=lambda case: case.name)
def test_a_field_path_is_the_path_of_the_input_that_set_it(case: Path) -> None:
    assert input_path(case.field, case.given, TRAINJOB_PLACES) == case.want


def test_runtime_paths_follow_the_runtime_inputs() -> None:
    assert input_path("spec.mlPolicy.torch.numProcPerNode", {"ml_policy": {}}, RUNTIME_PLACES) == "mlPolicy.torch.numProcPerNode"


def test_messages_name_the_arguments_as_the_package_spells_them() -> None:
    text = "pass it as runtime=<the runtime component>, or change runtime_pin; runtime_ref stays, train_t5.py too"
    assert in_package_spelling(text) == "pass it as runtime: <the runtime component>, or change runtimePin; runtimeRef stays, train_t5.py too"


def test_field_errors_become_property_errors_with_the_input_paths() -> None:
    error = TrainJobInvalidError([FieldError("spec.trainer.numNodes", "Invalid value: -1: must be greater than or equal to 1"),
                                  FieldError("spec.suspend", "Invalid value: 'x': not a boolean")], source="TrainJob/mnist")
    with pytest.raises(pulumi.InputPropertiesError) as raised, reported_as_properties({"trainer": {}, "manifest": {}}, TRAINJOB_PLACES):
        raise invalid_input(("kubeflow:trainer:TrainJob", "mnist"), error)
    assert raised.value.message == "invalid input"
    assert raised.value.errors == [
        {"property_path": "trainer.numNodes", "reason": "Invalid value: -1: must be greater than or equal to 1"},
        {"property_path": "manifest.spec.suspend", "reason": "Invalid value: 'x': not a boolean"},
    ]


def test_an_error_about_the_runtime_names_the_runtime_input() -> None:
    error = TrainJobInvalidError([FieldError("spec.template", "Required value: add this field", "ClusterTrainingRuntime torch")])
    with pytest.raises(pulumi.InputPropertiesError) as raised, reported_as_properties({"runtime": object()}, TRAINJOB_PLACES):
        raise invalid_input(("kubeflow:trainer:TrainJob", "mnist"), error)
    assert raised.value.errors == [{"property_path": "runtime", "reason": "ClusterTrainingRuntime torch: spec.template: Required value: add this field"}]


@dataclass(frozen=True)
class Text:
    name: str
    message: str
    given: dict[str, Any]
    want_message: str
    want_errors: list[dict[str, str]]


TEXTS = [
    Text("an argument's line", "wait_for: 'x' is not one of none, completed", {"wait_for": "x"},
         "invalid input", [{"property_path": "waitFor", "reason": "'x' is not one of none, completed"}]),
    Text("a field's line", "spec.suspend: Forbidden: a queued TrainJob in controller mode leaves spec.suspend to Kueue", {"suspend": True},
         "invalid input", [{"property_path": "suspend", "reason": "Forbidden: a queued TrainJob in controller mode leaves spec.suspend to Kueue"}]),
    Text("a message with no path", "TrainJob x: the manifest is a JobSet, not a TrainJob", {"manifest": {}},
         "TrainJob x: the manifest is a JobSet, not a TrainJob", []),
]


@pytest.mark.parametrize("case", TEXTS, ids=lambda case: case.name)
def test_an_error_without_field_errors_is_read_from_its_lines(case: Text) -> None:
    with pytest.raises(pulumi.InputPropertiesError) as raised, reported_as_properties(case.given, TRAINJOB_PLACES):
        raise invalid_input(("kubeflow:trainer:TrainJob", "x"), TrainerError(case.message))
    assert (raised.value.message, raised.value.errors) == (case.want_message, case.want_errors)
