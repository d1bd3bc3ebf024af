"""RuntimePatches CRD rules (SEMANTICS §1.5): only the listed fields may be patched, list-maps are
unique by their key and bounded in size."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_kubeflow_trainer.api.trainjob import TrainJob
from pulumi_kubeflow_trainer.loading import load
from tests.builders import RefusedManifest as Case
from tests.builders import ValidManifest as Valid
from tests.builders import assert_load_refuses, make_trainjob, named

UNKNOWN = "Unsupported field"
PATCH = "spec.runtimePatches[0].trainingRuntimeSpec"
JOB = f"{PATCH}.template.spec.replicatedJobs[0]"
POD = f"{JOB}.template.spec.template.spec"


def patched_pod(**pod: Any) -> dict[str, Any]:
    """A TrainJob whose one patch sets `pod` on the pod spec of job `node`."""
    job = {"name": "node", "template": {"spec": {"template": {"spec": pod}}}}
    return make_trainjob().runtime_ref("rt").runtime_patch("kueue.x-k8s.io/manager", jobs=[job]).obj()


def patched_job(**job: Any) -> dict[str, Any]:
    return make_trainjob().runtime_ref("rt").runtime_patch("kueue.x-k8s.io/manager", jobs=[{"name": "node", **job}]).obj()


def patch_entry(**entry: Any) -> dict[str, Any]:
    return make_trainjob().runtime_ref("rt").set("spec.runtimePatches", [{"manager": "a.io/b", **entry}]).obj()


def node(**fields: Any) -> dict[str, Any]:
    return {"name": "node", **fields}


INVALID = [
    Case("a container image in a patch is rejected", patched_pod(containers=[node(image="evil:latest")]), f"{POD}.containers[0].image", (UNKNOWN, "evil:latest")),
    Case("a container command in a patch is rejected", patched_pod(containers=[node(command=["sh"])]), f"{POD}.containers[0].command", (UNKNOWN,)),
    Case("container args in a patch are rejected", patched_pod(containers=[node(args=["x"])]), f"{POD}.containers[0].args", (UNKNOWN,)),
    Case(
        "container resources in a patch are rejected",
        patched_pod(containers=[node(resources={"limits": {"cpu": "1"}})]),
        f"{POD}.containers[0].resources",
        (UNKNOWN,),
    ),
    Case("an init container image in a patch is rejected", patched_pod(initContainers=[node(image="x")]), f"{POD}.initContainers[0].image", (UNKNOWN,)),
    Case("hostNetwork is not a patchable pod field", patched_pod(hostNetwork=True), f"{POD}.hostNetwork", (UNKNOWN,)),
    Case("priorityClassName is not a patchable pod field", patched_pod(priorityClassName="high"), f"{POD}.priorityClassName", (UNKNOWN, "high")),
    Case("a job's replicas are not patchable", patched_job(replicas=3), f"{JOB}.replicas", (UNKNOWN,)),
    Case(
        "a job's parallelism is not patchable",
        patched_job(template={"spec": {"parallelism": 4}}),
        f"{JOB}.template.spec.parallelism",
        (UNKNOWN,),
    ),
    Case("a job's dependsOn is not patchable", patched_job(dependsOn=[]), f"{JOB}.dependsOn", (UNKNOWN,)),
    Case(
        "the JobSet network is not patchable",
        patch_entry(trainingRuntimeSpec={"template": {"spec": {"network": {"subdomain": "x"}}}}),
        f"{PATCH}.template.spec.network",
        (UNKNOWN,),
    ),
    Case("the mlPolicy is not patchable", patch_entry(trainingRuntimeSpec={"mlPolicy": {"numNodes": 4}}), f"{PATCH}.mlPolicy", (UNKNOWN,)),
    Case(
        "pod template metadata beyond the ObjectMeta subset is rejected",
        patched_job(template={"spec": {"template": {"metadata": {"uid": "x"}}}}),
        f"{JOB}.template.spec.template.metadata.uid",
        (UNKNOWN,),
    ),
    Case("an unknown patch entry field is rejected", patch_entry(priority=1), "spec.runtimePatches[0].priority", (UNKNOWN,)),
    Case("a patch needs a manager", make_trainjob().runtime_ref("rt").set("spec.runtimePatches", [{}]).obj(), "spec.runtimePatches[0].manager", ("Required value",)),
    Case("an empty manager is rejected", patch_entry(manager=""), "spec.runtimePatches[0].manager", ("at least 1",)),
    Case("a manager over 253 characters is rejected", patch_entry(manager="a.io/" + "m" * 249), "spec.runtimePatches[0].manager", ("at most 253",)),
    Case(
        "replicatedJobs patches are a list-map by name",
        make_trainjob().runtime_ref("rt").runtime_patch("a.io/b", jobs=[{"name": "node"}, {"name": "node"}]).obj(),
        f"{PATCH}.template.spec.replicatedJobs[1]",
        ("Duplicate value", '"node"'),
    ),
    Case(
        "at most 100 replicatedJobs patches are accepted",
        make_trainjob().runtime_ref("rt").runtime_patch("a.io/b", jobs=named("j", 101)).obj(),
        f"{PATCH}.template.spec.replicatedJobs",
        ("at most 100",),
    ),
    Case("a replicatedJob patch needs a non-empty name", patched_job(name=""), f"{JOB}.name", ("at least 1",)),
    Case("container patches are a list-map by name", patched_pod(containers=[node(), node()]), f"{POD}.containers[1]", ("Duplicate value",)),
    Case("at most 64 container patches are accepted", patched_pod(containers=named("c", 65)), f"{POD}.containers", ("at most 64",)),
    Case("init container patches are a list-map by name", patched_pod(initContainers=[node(), node()]), f"{POD}.initContainers[1]", ("Duplicate value",)),
    Case("a container patch needs a name", patched_pod(containers=[{"env": []}]), f"{POD}.containers[0].name", ("Required value",)),
    Case(
        "container env patches are a list-map by name",
        patched_pod(containers=[{"name": "side", "env": [{"name": "A"}, {"name": "A"}]}]),
        f"{POD}.containers[0].env[1]",
        ("Duplicate value", '"A"'),
    ),
    Case(
        "at most 128 env vars per container patch are accepted",
        patched_pod(containers=[{"name": "side", "env": named("E", 129)}]),
        f"{POD}.containers[0].env",
        ("at most 128",),
    ),
    Case(
        "volumeMount patches are a list-map by name",
        patched_pod(containers=[{"name": "side", "volumeMounts": [{"name": "v", "mountPath": "/a"}, {"name": "v", "mountPath": "/b"}]}]),
        f"{POD}.containers[0].volumeMounts[1]",
        ("Duplicate value", '"v"'),
    ),
    Case("a volume patch needs a name", patched_pod(volumes=[{"emptyDir": {}}]), f"{POD}.volumes[0].name", ("Required value",)),
    Case(
        "a volumeMount patch needs a mountPath",
        patched_pod(containers=[{"name": "side", "volumeMounts": [{"name": "v"}]}]),
        f"{POD}.containers[0].volumeMounts[0].mountPath",
        ("Required value",),
    ),
    Case("a scheduling gate needs a name", patched_pod(schedulingGates=[{}]), f"{POD}.schedulingGates[0].name", ("Required value",)),
    Case("an unknown toleration field is rejected", patched_pod(tolerations=[{"key": "k", "tolerate": True}]), f"{POD}.tolerations[0].tolerate", (UNKNOWN,)),
    Case(
        "tolerationSeconds must be an integer",
        patched_pod(tolerations=[{"key": "k", "tolerationSeconds": "60"}]),
        f"{POD}.tolerations[0].tolerationSeconds",
        ('"60"', "integer"),
    ),
    Case("volume patches are a list-map by name", patched_pod(volumes=[{"name": "v"}, {"name": "v"}]), f"{POD}.volumes[1]", ("Duplicate value",)),
    Case("at most 128 volume patches are accepted", patched_pod(volumes=named("v", 129)), f"{POD}.volumes", ("at most 128",)),
    Case("imagePullSecrets are a list-map by name", patched_pod(imagePullSecrets=[{"name": "s"}, {"name": "s"}]), f"{POD}.imagePullSecrets[1]", ("Duplicate value",)),
    Case("at most 64 imagePullSecrets are accepted", patched_pod(imagePullSecrets=named("s", 65)), f"{POD}.imagePullSecrets", ("at most 64",)),
    Case("schedulingGates are a list-map by name", patched_pod(schedulingGates=[{"name": "g"}, {"name": "g"}]), f"{POD}.schedulingGates[1]", ("Duplicate value",)),
    Case("at most 16 schedulingGates are accepted", patched_pod(schedulingGates=named("g", 17)), f"{POD}.schedulingGates", ("at most 16",)),
    Case("at most 128 tolerations are accepted", patched_pod(tolerations=[{"key": "k"}] * 129), f"{POD}.tolerations", ("at most 128",)),
    Case(
        "terminationGracePeriodSeconds is never negative",
        patched_pod(terminationGracePeriodSeconds=-1),
        f"{POD}.terminationGracePeriodSeconds",
        ("greater than or equal to 0",),
    ),
    Case("a serviceAccountName over 253 characters is rejected", patched_pod(serviceAccountName="s" * 254), f"{POD}.serviceAccountName", ("at most 253",)),
    Case("nodeSelector values are strings", patched_pod(nodeSelector={"zone": 1}), f"{POD}.nodeSelector.zone", ("valid string",)),
    Case(
        "JobSet metadata patches are labels and annotations of strings",
        make_trainjob().runtime_ref("rt").runtime_patch("a.io/b", labels={"n": 1}).obj(),
        f"{PATCH}.template.metadata.labels.n",
        ("valid string",),
    ),
]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_invalid_runtime_patches_are_rejected_with_field_path_and_rule(case: Case) -> None:
    assert_load_refuses(case)


KUEUE_POD_PATCH = {
    "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-h100"},
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}},
    "serviceAccountName": "trainer",
    "volumes": [{"name": "cache", "emptyDir": {}}],
    "imagePullSecrets": [{"name": "registry"}],
    "securityContext": {"runAsNonRoot": True},
    "terminationGracePeriodSeconds": 0,
    "containers": [{"name": "sidecar", "env": [{"name": "A", "value": "1"}], "volumeMounts": [{"name": "cache", "mountPath": "/c"}]}],
    "initContainers": [{"name": "warmup", "securityContext": {"privileged": False}}],
}


VALID = [
    Valid("every patchable pod field is accepted", patched_pod(**KUEUE_POD_PATCH)),
    Valid(
        "job and pod template labels and annotations are accepted",
        patched_job(template={"metadata": {"labels": {"a": "b"}}, "spec": {"template": {"metadata": {"annotations": {"c": "d"}}}}}),
    ),
    Valid("JobSet labels and annotations are accepted", make_trainjob().runtime_ref("rt").runtime_patch("a.io/b", labels={"q": "x"}, annotations={"y": "z"}).obj()),
    Valid("a patch with only a manager and a time is accepted", patch_entry(time="2026-01-02T03:04:05Z")),
    Valid("env on the node container passes the CRD (the webhook rejects it)", patched_pod(containers=[node(env=[{"name": "A", "value": "1"}])])),
    Valid("exactly 16 scheduling gates are accepted", patched_pod(schedulingGates=named("g", 16))),
]


@pytest.mark.parametrize("case", VALID, ids=lambda case: case.name)
def test_valid_runtime_patches_load(case: Valid) -> None:
    (model,) = load(case.manifest)
    assert isinstance(model, TrainJob)
    assert model.to_manifest() == case.manifest
