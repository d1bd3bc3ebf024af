"""TrainingRuntime / ClusterTrainingRuntime CRD rules (SEMANTICS §1.2-§1.4, §4.1), including the
embedded JobSet spec's own CEL rules."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.api.runtime import ClusterTrainingRuntime, TrainingRuntime
from pulumi_kubeflow_trainer.loading import load
from tests.builders import RefusedManifest as Case
from tests.builders import RuntimeBuilder, assert_load_refuses, container, make_runtime, replicated_job
from tests.builders import ValidManifest as Valid

ONE_POLICY = "Only one of the policy can be configured"
NOT_NODE = "containerNames must not include the main node container because PET_* envs are always injected into it"
EXCLUSIVE = "StartupPolicy and DependsOn APIs are mutually exclusive"
VCP_NAMESPACE = "namespace cannot be set for VolumeClaimPolicies templates"
UPSTREAM_MPI = 'supported values: "OpenMPI", ""'
UNKNOWN = "Unsupported field"
JOBS = "spec.template.spec.replicatedJobs"


def torch() -> RuntimeBuilder:
    return make_runtime("rt").torch().trainer()


def targets(*items: dict[str, Any]) -> RuntimeBuilder:
    return make_runtime("rt").torch(envInjection={"targets": list(items)}).trainer()


def kep(builder: RuntimeBuilder) -> dict[str, Any]:
    manifest = builder.obj()
    manifest["apiVersion"] = c.API_VERSION_KEP
    return manifest


def with_jobs(*jobs: dict[str, Any], **spec: Any) -> dict[str, Any]:
    builder = make_runtime("rt").torch()
    for job in jobs:
        builder.job(job)
    return builder.template_spec(**spec).obj()


def depends_on(job: dict[str, Any], *entries: dict[str, Any]) -> dict[str, Any]:
    return job | {"dependsOn": list(entries)}


def set_path(manifest: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    *parents, last = path.split(".")
    node = manifest
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return manifest


INVALID = [
    Case("torch and mpi together break the one-policy rule", make_runtime().torch().mpi().trainer().obj(), "spec.mlPolicy", (ONE_POLICY,)),
    Case(
        "jax, xgboost and flux together break the one-policy rule",
        make_runtime().jax().xgboost().flux().trainer().obj(),
        "spec.mlPolicy",
        (ONE_POLICY, "jax, xgboost, flux"),
    ),
    Case("mpi numProcPerNode beyond int32 is rejected", make_runtime().mpi(numProcPerNode=2**31).trainer().obj(), "spec.mlPolicy.mpi.numProcPerNode", ("2147483648", "less than or equal to 2147483647")),
    Case("flux numProcPerNode beyond int32 is rejected", make_runtime().flux(numProcPerNode=-(2**31) - 1).trainer().obj(), "spec.mlPolicy.flux.numProcPerNode", ("-2147483649", "greater than or equal to -2147483648")),
    Case(
        "mpiImplementation Intel is not in the v1alpha1 enum",
        make_runtime().mpi(mpiImplementation="Intel").trainer().obj(),
        "spec.mlPolicy.mpi.mpiImplementation",
        (UPSTREAM_MPI, '"Intel"'),
    ),
    Case(
        "mpiImplementation MPICH is not in the v1alpha1 enum",
        make_runtime().mpi(mpiImplementation="MPICH").trainer().obj(),
        "spec.mlPolicy.mpi.mpiImplementation",
        (UPSTREAM_MPI, '"MPICH"'),
    ),
    Case(
        "an unknown mpiImplementation is rejected with the v1alpha1 enum",
        make_runtime().mpi(mpiImplementation="LAM").trainer().obj(),
        "spec.mlPolicy.mpi.mpiImplementation",
        (f'Unsupported value: "LAM": {UPSTREAM_MPI}',),
    ),
    Case(
        "an unknown mpiImplementation is rejected with the v2alpha1 enum",
        kep(make_runtime().mpi(mpiImplementation="openmpi").trainer()),
        "spec.mlPolicy.mpi.mpiImplementation",
        ('"openmpi"', '"OpenMPI", "Intel", "MPICH", ""'),
    ),
    Case(
        "an sshAuthMountPath over 4096 characters is rejected",
        make_runtime().mpi(sshAuthMountPath="/" + "s" * 4096).trainer().obj(),
        "spec.mlPolicy.mpi.sshAuthMountPath",
        ("at most 4096",),
    ),
    Case(
        "envInjection containerNames must not include node",
        targets({"jobName": "node", "containerNames": ["sidecar", "node"]}).obj(),
        "spec.mlPolicy.torch.envInjection.targets[0].containerNames",
        (NOT_NODE, '["sidecar", "node"]'),
    ),
    Case(
        "envInjection containerNames needs at least one name",
        targets({"jobName": "node", "containerNames": []}).obj(),
        "spec.mlPolicy.torch.envInjection.targets[0].containerNames",
        ("at least 1",),
    ),
    Case(
        "envInjection containerNames holds at most 8 names",
        targets({"jobName": "node", "containerNames": [f"c{index}" for index in range(9)]}).obj(),
        "spec.mlPolicy.torch.envInjection.targets[0].containerNames",
        ("at most 8",),
    ),
    Case(
        "envInjection containerNames is a set",
        targets({"jobName": "node", "containerNames": ["a", "a"]}).obj(),
        "spec.mlPolicy.torch.envInjection.targets[0].containerNames[1]",
        ("Duplicate value", '"a"'),
    ),
    Case(
        "an envInjection container name over 63 characters is rejected",
        targets({"jobName": "node", "containerNames": ["c" * 64]}).obj(),
        "spec.mlPolicy.torch.envInjection.targets[0].containerNames[0]",
        ("63",),
    ),
    Case(
        "envInjection targets are a list-map by jobName",
        targets({"jobName": "node", "containerNames": ["a"]}, {"jobName": "node", "containerNames": ["b"]}).obj(),
        "spec.mlPolicy.torch.envInjection.targets[1]",
        ("Duplicate value", '"node"'),
    ),
    Case(
        "envInjection holds at most 16 targets",
        targets(*({"jobName": f"j{index}", "containerNames": ["a"]} for index in range(17))).obj(),
        "spec.mlPolicy.torch.envInjection.targets",
        ("at most 16",),
    ),
    Case(
        "an envInjection target needs a jobName",
        targets({"jobName": "", "containerNames": ["a"]}).obj(),
        "spec.mlPolicy.torch.envInjection.targets[0].jobName",
        ("at least 1",),
    ),
    Case(
        "startupPolicy InOrder excludes dependsOn",
        with_jobs(
            replicated_job("init", container("init")),
            depends_on(replicated_job("node", container(), ancestor="trainer"), {"name": "init", "status": "Complete"}),
            startupPolicy={"startupPolicyOrder": "InOrder"},
        ),
        "spec.template.spec",
        (EXCLUSIVE,),
    ),
    Case(
        "a successPolicy operator outside the JobSet enum is rejected",
        torch().template_spec(successPolicy={"operator": "Some"}).obj(),
        "spec.template.spec.successPolicy.operator",
        ("'All' or 'Any'", '"Some"'),
    ),
    Case(
        "a successPolicy needs its operator",
        torch().template_spec(successPolicy={"targetReplicatedJobs": ["node"]}).obj(),
        "spec.template.spec.successPolicy.operator",
        ("Required value",),
    ),
    Case(
        "a startupPolicyOrder outside the JobSet enum is rejected",
        torch().template_spec(startupPolicy={"startupPolicyOrder": "Sometimes"}).obj(),
        "spec.template.spec.startupPolicy.startupPolicyOrder",
        ("'AnyOrder' or 'InOrder'",),
    ),
    Case(
        "volumeClaimPolicies templates must not set a namespace",
        torch().template_spec(volumeClaimPolicies=[{"templates": [{"metadata": {"name": "data", "namespace": "other"}}]}]).obj(),
        "spec.template.spec.volumeClaimPolicies[0]",
        (VCP_NAMESPACE,),
    ),
    Case(
        "at most 50 volumeClaimPolicies are accepted",
        torch().template_spec(volumeClaimPolicies=[{"templates": []}] * 51).obj(),
        "spec.template.spec.volumeClaimPolicies",
        ("at most 50",),
    ),
    Case(
        "replicatedJobs are a list-map by name",
        with_jobs(replicated_job("node", container()), replicated_job("node", container())),
        f"{JOBS}[1]",
        ("Duplicate value", '"node"'),
    ),
    Case(
        "dependsOn status must be Ready or Complete",
        with_jobs(replicated_job("a", container()), depends_on(replicated_job("b", container()), {"name": "a", "status": "Running"})),
        f"{JOBS}[1].dependsOn[0].status",
        ("Running",),
    ),
    Case(
        "dependsOn holds at most 5 entries",
        with_jobs(depends_on(replicated_job("b", container()), *({"name": f"a{index}", "status": "Ready"} for index in range(6)))),
        f"{JOBS}[0].dependsOn",
        ("at most 5",),
    ),
    Case(
        "dependsOn is a list-map by name",
        with_jobs(depends_on(replicated_job("b", container()), {"name": "a", "status": "Ready"}, {"name": "a", "status": "Complete"})),
        f"{JOBS}[0].dependsOn[1]",
        ("Duplicate value", '"a"'),
    ),
    Case(
        "containers are a list-map by name",
        make_runtime().torch().trainer(container(), container()).obj(),
        f"{JOBS}[0].template.spec.template.spec.containers[1]",
        ("Duplicate value", '"node"'),
    ),
    Case(
        "init containers are a list-map by name",
        make_runtime().torch().trainer(initContainers=[container("i"), container("i")]).obj(),
        f"{JOBS}[0].template.spec.template.spec.initContainers[1]",
        ("Duplicate value", '"i"'),
    ),
    Case(
        "volumes are a list-map by name",
        make_runtime().torch().trainer(volumes=[{"name": "v", "emptyDir": {}}, {"name": "v", "emptyDir": {}}]).obj(),
        f"{JOBS}[0].template.spec.template.spec.volumes[1]",
        ("Duplicate value", '"v"'),
    ),
    Case(
        "container env is a list-map by name",
        make_runtime().torch().trainer(container(env=[{"name": "A", "value": "1"}, {"name": "A", "value": "2"}])).obj(),
        f"{JOBS}[0].template.spec.template.spec.containers[0].env[1]",
        ("Duplicate value", '"A"'),
    ),
    Case(
        "volume mounts are a list-map by mountPath",
        make_runtime().torch().trainer(container(volumeMounts=[{"name": "a", "mountPath": "/x"}, {"name": "b", "mountPath": "/x"}])).obj(),
        f"{JOBS}[0].template.spec.template.spec.containers[0].volumeMounts[1]",
        ("Duplicate value", '"/x"'),
    ),
    Case(
        "ports are a list-map by containerPort and the defaulted protocol",
        make_runtime().torch().trainer(container(ports=[{"containerPort": 80}, {"containerPort": 80, "protocol": "TCP"}])).obj(),
        f"{JOBS}[0].template.spec.template.spec.containers[0].ports[1]",
        ("Duplicate value", '[80, "TCP"]'),
    ),
    Case("an unknown mlPolicy source is rejected", set_path(torch().obj(), "spec.mlPolicy.pytorch", {}), "spec.mlPolicy.pytorch", (UNKNOWN,)),
    Case(
        "torch numProcPerNode is gone since v2.2 and rejected",
        make_runtime().torch(numProcPerNode="auto").trainer().obj(),
        "spec.mlPolicy.torch.numProcPerNode",
        (UNKNOWN, '"auto"'),
    ),
    Case("an unknown JobSet spec field is rejected", torch().template_spec(replicas=2).obj(), "spec.template.spec.replicas", (UNKNOWN,)),
    Case(
        "an unknown template metadata field is rejected",
        torch().template_metadata(uid="x").obj(),
        "spec.template.metadata.uid",
        (UNKNOWN,),
    ),
    Case(
        "volcano networkTopology mode is hard or soft",
        torch().volcano(networkTopology={"mode": "medium"}).obj(),
        "spec.podGroupPolicy.volcano.networkTopology.mode",
        ('"medium"', "'hard' or 'soft'"),
    ),
    Case(
        "scheduleTimeoutSeconds must be an integer",
        torch().coscheduling(scheduleTimeoutSeconds="60").obj(),
        "spec.podGroupPolicy.coscheduling.scheduleTimeoutSeconds",
        ('"60"', "integer"),
    ),
    Case(
        "an unknown podGroupPolicy source is rejected",
        set_path(torch().obj(), "spec.podGroupPolicy", {"kueue": {}}),
        "spec.podGroupPolicy.kueue",
        (UNKNOWN,),
    ),
    Case("a runtime needs a name", set_path(torch().obj(), "metadata", {"labels": {}}), "metadata.name", ("Required value",)),
    Case("an unknown apiVersion is rejected", set_path(torch().obj(), "apiVersion", "kubeflow.org/v1"), "apiVersion", ('"kubeflow.org/v1"',)),
    Case(
        "ttlSecondsAfterFinished is never negative",
        torch().template_spec(ttlSecondsAfterFinished=-1).obj(),
        "spec.template.spec.ttlSecondsAfterFinished",
        ("greater than or equal to 0",),
    ),
    Case("numNodes must be an integer", set_path(torch().obj(), "spec.mlPolicy.numNodes", 1.5), "spec.mlPolicy.numNodes", ("1.5",)),
]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_invalid_runtimes_are_rejected_with_field_path_and_rule(case: Case) -> None:
    assert_load_refuses(case)


VALID = [
    Valid("an empty mpiImplementation is in the v1alpha1 enum", make_runtime().mpi(mpiImplementation="").trainer().obj()),
    Valid("OpenMPI is in the v1alpha1 enum", make_runtime().mpi(mpiImplementation="OpenMPI").trainer().obj()),
    Valid("Intel is in the v2alpha1 enum", kep(make_runtime().mpi(mpiImplementation="Intel").trainer())),
    Valid("MPICH is in the v2alpha1 enum", kep(make_runtime().mpi(mpiImplementation="MPICH").trainer())),
    Valid("a runtime without any mlPolicy is accepted", make_runtime().trainer().obj()),
    Valid(
        "envInjection of 8 helper containers is accepted",
        targets({"jobName": "node", "containerNames": [f"c{index}" for index in range(8)]}).obj(),
    ),
    Valid(
        "dependsOn without startupPolicy InOrder is accepted",
        with_jobs(
            replicated_job("a", container("a")),
            depends_on(replicated_job("node", container(), ancestor="trainer"), {"name": "a", "status": "Complete"}),
            startupPolicy={"startupPolicyOrder": "AnyOrder"},
        ),
    ),
    Valid(
        "volumeClaimPolicies templates with an empty namespace are accepted",
        torch().template_spec(volumeClaimPolicies=[{"templates": [{"metadata": {"name": "d", "namespace": ""}}]}]).obj(),
    ),
    Valid("coscheduling and volcano together are accepted (no CEL rule, §7.8)", torch().coscheduling().volcano().obj()),
    Valid(
        "the same port with two protocols is accepted",
        make_runtime().torch().trainer(container(ports=[{"containerPort": 53}, {"containerPort": 53, "protocol": "UDP"}])).obj(),
    ),
    Valid(
        "two mounts of one volume at different paths are accepted",
        make_runtime().torch().trainer(container(volumeMounts=[{"name": "a", "mountPath": "/x"}, {"name": "a", "mountPath": "/y"}])).obj(),
    ),
    Valid("unknown container fields pass through to the JobSet", make_runtime().torch().trainer(container(readinessProbe={"exec": {}})).obj()),
]


@pytest.mark.parametrize("case", VALID, ids=lambda case: case.name)
def test_valid_runtimes_load(case: Valid) -> None:
    (model,) = load(case.manifest)
    assert isinstance(model, (TrainingRuntime, ClusterTrainingRuntime))


@pytest.mark.parametrize("api_version", c.API_VERSIONS)
@pytest.mark.parametrize("cluster", [True, False], ids=["ClusterTrainingRuntime", "TrainingRuntime"])
def test_both_api_versions_and_both_kinds_are_accepted(api_version: str, cluster: bool) -> None:
    manifest = make_runtime("rt", cluster=cluster).torch().trainer().obj() | {"apiVersion": api_version}
    (model,) = load(manifest)
    assert (model.api_version, model.kind) == (api_version, manifest["kind"])


def test_crd_defaults_of_the_policies() -> None:
    (model,) = load(make_runtime().mpi().trainer().coscheduling().volcano(networkTopology={}).obj())
    mpi = model.spec.ml_policy.mpi
    assert (mpi.num_proc_per_node, mpi.mpi_implementation, mpi.ssh_auth_mount_path, mpi.run_launcher_as_node) == (
        1,
        "OpenMPI",
        "/root/.ssh",
        False,
    )
    assert model.spec.pod_group_policy.coscheduling.schedule_timeout_seconds == 60
    topology = model.spec.pod_group_policy.volcano.network_topology
    assert (topology.mode, topology.highest_tier_allowed) == ("hard", 1)


def test_flux_numprocpernode_defaults_to_one() -> None:
    (model,) = load(make_runtime().flux().trainer().obj())
    assert model.spec.ml_policy.flux.num_proc_per_node == 1


def test_a_runtime_manifest_round_trips_through_the_model() -> None:
    manifest = make_runtime("rt", cluster=False).mpi(numProcPerNode=2).initializers().trainer(name="launcher").coscheduling().obj()
    (model,) = load(manifest)
    assert model.to_manifest() == manifest
