"""TrainJob CRD rules (SEMANTICS §1.1, §4.1): every invalid input names its field and the rule it breaks."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.api.trainjob import TrainJob
from pulumi_kubeflow_trainer.loading import load
from tests.builders import RefusedManifest as Case
from tests.builders import TrainJobBuilder, assert_load_refuses, load_errors, make_trainjob, named
from tests.builders import ValidManifest as Valid

NAME_FORMAT = "metadata.name must match RFC 1035 DNS label format"
NAME_LENGTH = "metadata.name must be no more than 63 characters"
STORAGE_URI = "storageUri may be empty, or it must be a valid URI (scheme://...)"
MANAGED_BY = "ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"
UNKNOWN = "Unsupported field"
NOW = "2026-01-02T03:04:05Z"
JOB_STATUS = {"name": "node", "ready": 1, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0}


def base() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("torch-distributed")


def with_(path: str, value: Any) -> dict[str, Any]:
    return base().set(path, value).obj()


INVALID = [
    Case("a name with upper-case letters is not an RFC 1035 label", with_("metadata.name", "Job"), "metadata.name", (NAME_FORMAT, '"Job"')),
    Case("a name starting with a digit is not an RFC 1035 label", with_("metadata.name", "1job"), "metadata.name", (NAME_FORMAT, '"1job"')),
    Case("a name ending with a dash is not an RFC 1035 label", with_("metadata.name", "job-"), "metadata.name", (NAME_FORMAT,)),
    Case("a name with a dot is not an RFC 1035 label", with_("metadata.name", "my.job"), "metadata.name", (NAME_FORMAT, "my.job")),
    Case("a name of 64 characters is too long", with_("metadata.name", "a" * 64), "metadata.name", (NAME_LENGTH,)),
    Case("a trainjob needs a name", with_("metadata", {"namespace": "team"}), "metadata.name", ("Required value",)),
    Case(
        "a dataset storageUri without a scheme is rejected",
        base().dataset("bucket/path").obj(),
        "spec.initializer.dataset.storageUri",
        (STORAGE_URI, "bucket/path"),
    ),
    Case(
        "a model storageUri with an empty scheme is rejected",
        base().model("://repo").obj(),
        "spec.initializer.model.storageUri",
        (STORAGE_URI, "://repo"),
    ),
    Case(
        "a storageUri whose scheme starts with a digit is rejected",
        base().dataset("3s://bucket").obj(),
        "spec.initializer.dataset.storageUri",
        (STORAGE_URI,),
    ),
    Case(
        "a storageUri with nothing after the scheme is rejected",
        base().model("hf://").obj(),
        "spec.initializer.model.storageUri",
        (STORAGE_URI, '"hf://"'),
    ),
    Case(
        "a storageUri longer than 2048 characters is rejected",
        base().dataset("s3://" + "b" * 2044).obj(),
        "spec.initializer.dataset.storageUri",
        ("at most 2048",),
    ),
    Case("an unknown managedBy is rejected", base().managed_by("kueue").obj(), "spec.managedBy", (MANAGED_BY, '"kueue"')),
    Case("numNodes beyond int32 is rejected", base().num_nodes(2**31).obj(), "spec.trainer.numNodes", ("2147483648", "less than or equal to 2147483647")),
    Case("numProcPerNode beyond int32 is rejected", base().num_proc_per_node(-(2**31) - 1).obj(), "spec.trainer.numProcPerNode", ("-2147483649", "greater than or equal")),
    Case(
        "activeDeadlineSeconds 0 is rejected",
        with_("spec.activeDeadlineSeconds", 0),
        "spec.activeDeadlineSeconds",
        ("greater than or equal to 1",),
    ),
    Case("more than 128 trainer env vars are rejected", with_("spec.trainer.env", named("E", 129, value="x")), "spec.trainer.env", ("at most 128",)),
    Case("more than 128 command items are rejected", with_("spec.trainer.command", ["x"] * 129), "spec.trainer.command", ("at most 128",)),
    Case("more than 128 args are rejected", with_("spec.trainer.args", ["x"] * 129), "spec.trainer.args", ("at most 128",)),
    Case(
        "an arg longer than 1 MiB is rejected",
        with_("spec.trainer.args", ["ok", "x" * 1048577]),
        "spec.trainer.args[1]",
        ("1048576",),
    ),
    Case("an image longer than 500 characters is rejected", base().image("i" * 501).obj(), "spec.trainer.image", ("at most 500",)),
    Case(
        "more than 128 dataset initializer env vars are rejected",
        with_("spec.initializer.dataset", {"env": named("E", 129, value="x")}),
        "spec.initializer.dataset.env",
        ("at most 128",),
    ),
    Case(
        "trainer env is a list-map: a name may appear once",
        base().env(A="1").env(B="2").env(A="3").obj(),
        "spec.trainer.env[2]",
        ("Duplicate value", '"A"'),
    ),
    Case(
        "initializer env is a list-map: a name may appear once",
        with_("spec.initializer.model", {"env": [{"name": "T", "value": "1"}, {"name": "T", "value": "2"}]}),
        "spec.initializer.model.env[1]",
        ("Duplicate value", '"T"'),
    ),
    Case(
        "more than 16 runtime patches are rejected",
        with_("spec.runtimePatches", [{"manager": f"m.io/{index}"} for index in range(17)]),
        "spec.runtimePatches",
        ("at most 16",),
    ),
    Case(
        "runtimePatches is a list-map by manager: a manager may appear once",
        with_("spec.runtimePatches", [{"manager": "a.io/x"}, {"manager": "a.io/x"}]),
        "spec.runtimePatches[1]",
        ("Duplicate value", '"a.io/x"'),
    ),
    Case("an empty runtimeRef name is rejected", base().runtime_ref("").obj(), "spec.runtimeRef.name", ("at least 1",)),
    Case("a runtimeRef name over 253 characters is rejected", base().runtime_ref("r" * 254).obj(), "spec.runtimeRef.name", ("at most 253",)),
    Case(
        "a runtimeRef kind over 253 characters is rejected",
        base().runtime_ref("r", kind="K" * 254).obj(),
        "spec.runtimeRef.kind",
        ("at most 253",),
    ),
    Case("a trainjob needs a runtimeRef", with_("spec", {"trainer": {"numNodes": 1}}), "spec.runtimeRef", ("Required value",)),
    Case("an unknown spec field is rejected", with_("spec.podTemplateOverrides", []), "spec.podTemplateOverrides", (UNKNOWN,)),
    Case("an unknown trainer field is rejected", with_("spec.trainer.replicas", 2), "spec.trainer.replicas", (UNKNOWN, "2")),
    Case("an unknown top-level field is rejected", with_("data", {}), "data", (UNKNOWN,)),
    Case(
        "an unknown secretRef field is rejected",
        with_("spec.initializer.dataset", {"secretRef": {"name": "s", "namespace": "x"}}),
        "spec.initializer.dataset.secretRef.namespace",
        (UNKNOWN,),
    ),
    Case("numNodes given as a string is rejected", with_("spec.trainer.numNodes", "3"), "spec.trainer.numNodes", ('"3"', "integer")),
    Case("suspend given as a string is rejected", with_("spec.suspend", "true"), "spec.suspend", ('"true"', "boolean")),
    Case("an env var needs a name", with_("spec.trainer.env", [{"value": "x"}]), "spec.trainer.env[0].name", ("Required value",)),
    Case(
        "a resource quantity must parse",
        base().resources(limits={"cpu": "two"}).obj(),
        "spec.trainer.resourcesPerNode.limits.cpu",
        ("two",),
    ),
    Case("an unknown apiVersion is rejected", with_("apiVersion", "trainer.kubeflow.org/v1"), "apiVersion", ('"trainer.kubeflow.org/v1"',)),
    Case(
        "status holds at most 8 conditions",
        with_("status", {"conditions": [{"type": f"T{index}", "status": "True"} for index in range(9)]}),
        "status.conditions",
        ("at most 8",),
    ),
    Case(
        "jobsStatus counts are never negative",
        with_("status", {"jobsStatus": [{"name": "node", "ready": -1, "succeeded": 0, "failed": 0, "active": 0, "suspended": 0}]}),
        "status.jobsStatus[0].ready",
        ("greater than or equal to 0",),
    ),
    Case(
        "conditions are a list-map by type",
        with_("status", {"conditions": [{"type": "Suspended", "status": "True"}, {"type": "Suspended", "status": "False"}]}),
        "status.conditions[1]",
        ("Duplicate value", '"Suspended"'),
    ),
    Case(
        "jobsStatus is a list-map by name",
        with_("status", {"jobsStatus": [JOB_STATUS, JOB_STATUS]}),
        "status.jobsStatus[1]",
        ("Duplicate value", '"node"'),
    ),
    Case(
        "trainerStatus needs lastUpdatedTime",
        with_("status", {"trainerStatus": {"progressPercentage": 50}}),
        "status.trainerStatus",
        ("lastUpdatedTime is required when trainerStatus is present",),
    ),
    Case(
        "trainerStatus progress is at most 100 percent",
        with_("status", {"trainerStatus": {"progressPercentage": 101, "lastUpdatedTime": NOW}}),
        "status.trainerStatus.progressPercentage",
        ("101", "less than or equal to 100"),
    ),
    Case(
        "trainerStatus remaining seconds are never negative",
        with_("status", {"trainerStatus": {"estimatedRemainingSeconds": -1, "lastUpdatedTime": NOW}}),
        "status.trainerStatus.estimatedRemainingSeconds",
        ("greater than or equal to 0",),
    ),
    Case(
        "trainerStatus holds at most 256 metrics",
        with_("status", {"trainerStatus": {"metrics": [{"name": "m", "value": "1"}] * 257, "lastUpdatedTime": NOW}}),
        "status.trainerStatus.metrics",
        ("at most 256",),
    ),
    Case(
        "a metric name is at most 64 characters",
        with_("status", {"trainerStatus": {"metrics": [{"name": "m" * 65, "value": "1"}], "lastUpdatedTime": NOW}}),
        "status.trainerStatus.metrics[0].name",
        ("at most 64",),
    ),
    Case(
        "a metric value is never empty",
        with_("status", {"trainerStatus": {"metrics": [{"name": "loss", "value": ""}], "lastUpdatedTime": NOW}}),
        "status.trainerStatus.metrics[0].value",
        ("at least 1",),
    ),
    Case(
        "jobsStatus entries carry every count",
        with_("status", {"jobsStatus": [{"name": "node", "ready": 1}]}),
        "status.jobsStatus[0].succeeded",
        ("Required value",),
    ),
]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_invalid_trainjobs_are_rejected_with_field_path_and_rule(case: Case) -> None:
    assert_load_refuses(case)


def test_every_error_is_reported_not_just_the_first() -> None:
    manifest = base().num_nodes(2**31).num_proc_per_node(2**31).managed_by("me").obj()
    paths = sorted(error.path for error in load_errors(manifest))
    assert paths == ["spec.managedBy", "spec.trainer.numNodes", "spec.trainer.numProcPerNode"]


def test_errors_name_the_document_they_come_from() -> None:
    errors = load_errors(base().num_nodes(2**31).obj())
    assert errors[0].describe().startswith("TrainJob/job: spec.trainer.numNodes: ")


VALID = [
    Valid("a name of exactly 63 characters is accepted", with_("metadata.name", "a" * 63)),
    Valid("a name with digits and inner dashes is accepted", with_("metadata.name", "job-2-b")),
    Valid("an empty storageUri is accepted", base().dataset("").model("").obj()),
    Valid("storageUris with any scheme are accepted", base().dataset("hf://org/data").model("a+b.c-d://x").obj()),
    Valid("managedBy the trainer controller is accepted", base().managed_by(c.MANAGED_BY_TRAINER).obj()),
    Valid("managedBy multikueue is accepted", base().managed_by(c.MANAGED_BY_MULTIKUEUE).obj()),
    Valid("numNodes 0 is accepted (minimum 0)", base().num_nodes(0).obj()),
    Valid("numProcPerNode 1 is accepted", base().num_proc_per_node(1).obj()),
    Valid("activeDeadlineSeconds 1 is accepted", with_("spec.activeDeadlineSeconds", 1)),
    Valid("exactly 128 env vars are accepted", with_("spec.trainer.env", named("E", 128, value="x"))),
    Valid("exactly 16 runtime patches are accepted", with_("spec.runtimePatches", [{"manager": f"m.io/{i}"} for i in range(16)])),
    Valid(
        "env from a field, a resource, a configmap or a secret is accepted",
        with_(
            "spec.trainer.env",
            [
                {"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                {"name": "B", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}},
                {"name": "C", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}},
                {"name": "D", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
            ],
        ),
    ),
    Valid("a trainjob with only a runtimeRef is accepted", base().obj()),
    Valid("server-set metadata passes through", with_("metadata.uid", "1234") | {"status": {"conditions": []}}),
    Valid(
        "a full status is accepted",
        with_(
            "status",
            {
                "conditions": [{"type": "Complete", "status": "True", "reason": "AllJobsCompleted", "message": "done", "lastTransitionTime": NOW}],
                "jobsStatus": [JOB_STATUS],
                "trainerStatus": {"progressPercentage": 100, "estimatedRemainingSeconds": 0, "metrics": [{"name": "loss", "value": "0.1"}], "lastUpdatedTime": NOW},
            },
        ),
    ),
]


@pytest.mark.parametrize("case", VALID, ids=lambda case: case.name)
def test_valid_trainjobs_load(case: Valid) -> None:
    (model,) = load(case.manifest)
    assert isinstance(model, TrainJob)


@pytest.mark.parametrize("api_version", c.API_VERSIONS)
def test_both_api_versions_are_accepted(api_version: str) -> None:
    (model,) = load(with_("apiVersion", api_version))
    assert model.api_version == api_version


def test_crd_defaults_apply_when_fields_are_absent() -> None:
    (model,) = load(base().obj())
    assert (model.spec.suspend, model.spec.managed_by) == (False, c.MANAGED_BY_TRAINER)
    assert (model.spec.runtime_ref.api_group, model.spec.runtime_ref.kind) == (c.GROUP, c.CLUSTER_TRAINING_RUNTIME_KIND)
    assert model.namespace == "team"


def test_a_manifest_round_trips_through_the_model() -> None:
    manifest = base().num_nodes(2).env(A="1").dataset("hf://x/y", secret="s").runtime_patch("a.io/b", labels={"k": "v"}).obj()
    (model,) = load(manifest)
    assert model.to_manifest() == manifest


def test_unquoted_yaml_timestamps_and_dates_stay_strings() -> None:
    text = """
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: job, creationTimestamp: 2026-01-02T03:04:05Z}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {env: [{name: DAY, value: 2026-01-02}]}
  runtimePatches: [{manager: kueue.x-k8s.io/manager, time: 2026-01-02T03:04:05Z}]
"""
    (model,) = load(text)
    assert model.spec.runtime_patches[0].time == "2026-01-02T03:04:05Z"
    assert model.spec.trainer.env[0].value == "2026-01-02"


@pytest.mark.parametrize(("value", "want"), [(2.0, "2"), (2, "2"), ("1.5", "1500m"), (1e3, "1k")])
def test_whole_numbers_and_strings_are_quantities(value: object, want: str) -> None:
    trainjob = TrainJob.model_validate({
        "metadata": {"name": "a"}, "spec": {"runtimeRef": {"name": "x"}, "trainer": {"resourcesPerNode": {"limits": {"cpu": value}}}},
    })
    assert trainjob.spec.trainer.resources_per_node.limits == {"cpu": want}


def test_a_number_with_a_fraction_is_refused_as_the_crd_refuses_it() -> None:
    """The CRDs type quantities int-or-string: `cpu: 1.5` never reaches the API server's parser."""
    with pytest.raises(ValidationError, match=r"Invalid value: 1.5: must be an integer or a string .* \(1500m\)"):
        TrainJob.model_validate({
            "metadata": {"name": "a"}, "spec": {"runtimeRef": {"name": "x"}, "trainer": {"resourcesPerNode": {"requests": {"cpu": 1.5}}}},
        })
