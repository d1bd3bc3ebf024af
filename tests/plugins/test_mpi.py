"""MPI plugin (SEMANTICS §3.5, §4.2): node count, slots, SSH auth, hostfile, launcher env, validation."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.framework.errors import PluginError
from pulumi_kubeflow_trainer.plugins.mpi import HOSTFILE_VOLUME, SSH_AUTH_VOLUME, hostfile_name, secret_name
from pulumi_kubeflow_trainer.ssh import generate_key_pair, seeded_key_generator
from tests.builders import (
    Invalid,
    RuntimeBuilder,
    TrainJobBuilder,
    assert_rejected,
    by_kind,
    container,
    env_of,
    job_counts,
    jobset_container,
    make_runtime,
    make_trainjob,
    pod_spec,
    render_one,
    replicated_job,
    validate_one,
)

SSHD = container(command=["/usr/sbin/sshd"], args=["-De"])


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("mpi")


def launcher_and_workers(**mpi: Any) -> RuntimeBuilder:
    """The plain OpenMPI layout: a launcher (the trainer) and sshd workers named node."""
    return make_runtime("mpi").mpi(sshAuthMountPath="/home/mpiuser/.ssh", **mpi).trainer(name="launcher").job(replicated_job("node", SSHD))


def launcher_as_node(**mpi: Any) -> RuntimeBuilder:
    """The DeepSpeed/MLX layout: workers first, the launcher (the trainer) is a node too."""
    return make_runtime("mpi").mpi(runLauncherAsNode=True, **mpi).job(replicated_job("node", SSHD)).trainer(name="launcher")


def hostfile(manifests: list[dict[str, Any]]) -> str:
    return next(m for m in manifests if m["metadata"]["name"] == "job-mpi-hostfile")["data"]["hostfile"]


@dataclass(frozen=True)
class Counts:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    want: dict[str, tuple[int, int]]


COUNT_CASES = [
    Counts("trainjob numNodes sizes the job named node", job().num_nodes(3), launcher_and_workers(), {"launcher": (1, 1), "node": (3, 3)}),
    Counts(
        "with runLauncherAsNode the launcher is one of the nodes",
        job().num_nodes(3),
        launcher_as_node(),
        {"node": (2, 2), "launcher": (1, 1)},
    ),
    Counts("one node with runLauncherAsNode still keeps one worker", job().num_nodes(1), launcher_as_node(), {"node": (1, 1), "launcher": (1, 1)}),
    Counts("without trainjob numNodes the workers keep one pod", job(), launcher_and_workers(), {"launcher": (1, 1), "node": (1, 1)}),
    Counts(
        "runtime mlPolicy numNodes sizes the trainer-ancestor launcher, not the node job (§7.13)",
        job(),
        launcher_as_node().num_nodes(3),
        {"node": (1, 1), "launcher": (3, 3)},
    ),
]


@pytest.mark.parametrize("case", COUNT_CASES, ids=lambda case: case.name)
def test_node_count(case: Counts) -> None:
    assert job_counts(render_one(case.trainjob, case.runtime)) == case.want


@dataclass(frozen=True)
class Slots:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    want: int


SLOT_CASES = [
    Slots("trainjob numProcPerNode sets the slots", job().num_proc_per_node(8).resources(limits={"nvidia.com/gpu": 4}), launcher_and_workers(), 8),
    Slots("one process per node becomes one per gpu", job().resources(limits={"nvidia.com/gpu": 4}), launcher_and_workers(), 4),
    Slots("a runtime numProcPerNode above one wins over gpus", job().resources(limits={"nvidia.com/gpu": 4}), launcher_and_workers(numProcPerNode=2), 2),
    Slots("a single gpu keeps the runtime's one slot", job().resources(limits={"nvidia.com/gpu": 1}), launcher_and_workers(), 1),
    Slots("without resources the runtime's value is used", job(), launcher_and_workers(numProcPerNode=3), 3),
    Slots(
        "the first job labelled trainer decides, even when its container has no resources (upstream's "
        "ExtractResourcePerNodeFromRuntime): the workers' gpus do not count",
        job(),
        make_runtime("mpi").mpi().trainer(name="launcher").job(replicated_job("node", container(resources={"limits": {"nvidia.com/gpu": 4}}))),
        1,
    ),
    Slots(
        "the first job named node decides when it comes first",
        job(),
        make_runtime("mpi").mpi().job(replicated_job("node", container(resources={"limits": {"nvidia.com/gpu": 4}}))).trainer(name="launcher"),
        4,
    ),
]


@pytest.mark.parametrize("case", SLOT_CASES, ids=lambda case: case.name)
def test_slots_in_launcher_env_and_hostfile(case: Slots) -> None:
    manifests = render_one(case.trainjob.num_nodes(2), case.runtime)
    assert env_of(jobset_container(manifests, "launcher"))["OMPI_MCA_orte_set_default_slots"] == str(case.want)
    assert hostfile(manifests) == f"job-node-0-0.job slots={case.want}\njob-node-0-1.job slots={case.want}\n"


SSH_VOLUME = {
    "name": SSH_AUTH_VOLUME,
    "secret": {
        "secretName": "job-mpi-ssh-auth",
        "defaultMode": 0o400,
        "items": [
            {"key": "ssh-privatekey", "path": "id_rsa", "mode": 0o640},
            {"key": "ssh-publickey", "path": "id_rsa.pub", "mode": 0o644},
            {"key": "ssh-publickey", "path": "authorized_keys", "mode": 0o644},
        ],
    },
}
HOSTFILE_VOLUME_SPEC = {
    "name": HOSTFILE_VOLUME,
    "configMap": {"name": "job-mpi-hostfile", "items": [{"key": "hostfile", "path": "hostfile", "mode": 0o444}]},
}


def test_workers_get_the_ssh_volume_and_mount() -> None:
    manifests = render_one(job().num_nodes(2), launcher_and_workers())
    assert pod_spec(manifests, "node")["volumes"] == [SSH_VOLUME]
    assert jobset_container(manifests, "node")["volumeMounts"] == [{"name": SSH_AUTH_VOLUME, "mountPath": "/home/mpiuser/.ssh"}]
    assert "env" not in jobset_container(manifests, "node")


def test_the_launcher_gets_ssh_and_hostfile_volumes_mounts_and_openmpi_env_in_order() -> None:
    manifests = render_one(job().num_nodes(2).env(USER="u"), launcher_and_workers())
    assert pod_spec(manifests, "launcher")["volumes"] == [SSH_VOLUME, HOSTFILE_VOLUME_SPEC]
    launcher = jobset_container(manifests, "launcher")
    assert launcher["volumeMounts"] == [
        {"name": SSH_AUTH_VOLUME, "mountPath": "/home/mpiuser/.ssh"},
        {"name": HOSTFILE_VOLUME, "mountPath": "/etc/mpi"},
    ]
    assert launcher["env"] == [
        {"name": "OMPI_MCA_orte_default_hostfile", "value": "/etc/mpi/hostfile"},
        {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "true"},
        {"name": "OMPI_MCA_orte_set_default_slots", "value": "1"},
        {"name": "OMPI_MCA_plm_rsh_args", "value": "-o ConnectionAttempts=10"},
        {"name": "USER", "value": "u"},
    ]


def test_the_default_ssh_mount_path_is_root_ssh() -> None:
    rt = make_runtime("mpi").mpi().trainer(name="launcher").job(replicated_job("node", SSHD))
    mounts = jobset_container(render_one(job(), rt), "node")["volumeMounts"]
    assert mounts == [{"name": SSH_AUTH_VOLUME, "mountPath": "/root/.ssh"}]


def test_only_containers_named_node_get_mounts_and_a_launcher_without_one_gets_no_env() -> None:
    rt = (
        make_runtime("mpi")
        .label(c.LABEL_WEBHOOK_VALIDATION, "disabled")  # a trainer job without a node container
        .mpi()
        .job(replicated_job("launcher", container("mpirun"), ancestor="trainer"))
        .job(replicated_job("node", SSHD, container("metrics", "metrics:1")))
    )
    manifests = render_one(job(), rt)
    assert pod_spec(manifests, "launcher")["volumes"] == [SSH_VOLUME, HOSTFILE_VOLUME_SPEC]
    mpirun = jobset_container(manifests, "launcher", "mpirun")
    assert "volumeMounts" not in mpirun and "env" not in mpirun
    assert "volumeMounts" not in jobset_container(manifests, "node", "metrics")


def test_other_jobs_get_nothing() -> None:
    rt = launcher_and_workers().initializers()
    manifests = render_one(job().dataset("hf://a/b"), rt)
    assert [volume["name"] for volume in pod_spec(manifests, "dataset-initializer").get("volumes", [])] == []


def test_with_launcher_as_node_trainer_env_and_resources_also_reach_the_workers() -> None:
    manifests = render_one(job().num_nodes(2).env(USER="u").resources(limits={"nvidia.com/gpu": 2}), launcher_as_node())
    worker = jobset_container(manifests, "node")
    assert env_of(worker) == {"USER": "u"}
    assert worker["resources"] == {"limits": {"nvidia.com/gpu": "2"}}
    assert worker["command"] == ["/usr/sbin/sshd"], "the worker keeps its own command"


@dataclass(frozen=True)
class Hosts:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    want: str


HOST_CASES = [
    Hosts(
        "the hostfile lists every worker pod",
        job().num_nodes(3),
        launcher_and_workers(),
        "job-node-0-0.job slots=1\njob-node-0-1.job slots=1\njob-node-0-2.job slots=1\n",
    ),
    Hosts(
        "with launcher as node the launcher follows the workers in template order",
        job().num_nodes(3),
        launcher_as_node(),
        "job-node-0-0.job slots=1\njob-node-0-1.job slots=1\njob-launcher-0-0.job slots=1\n",
    ),
    Hosts(
        "endpoints use the runtime's network subdomain",
        job().num_nodes(2),
        launcher_and_workers().template_spec(network={"subdomain": "mpi"}),
        "job-node-0-0.mpi slots=1\njob-node-0-1.mpi slots=1\n",
    ),
]


@pytest.mark.parametrize("case", HOST_CASES, ids=lambda case: case.name)
def test_hostfile(case: Hosts) -> None:
    assert hostfile(render_one(case.trainjob, case.runtime)) == case.want


def test_children_are_named_after_the_trainjob_and_owned_by_it() -> None:
    manifests = render_one(job().uid("u-1"), launcher_and_workers())
    secret, config_map = by_kind(manifests, "Secret"), by_kind(manifests, "ConfigMap")
    trainjob = job().build()
    assert (secret["metadata"]["name"], config_map["metadata"]["name"]) == (secret_name(trainjob), hostfile_name(trainjob))
    for child in (secret, config_map):
        assert child["metadata"]["namespace"] == "team"
        assert child["metadata"]["ownerReferences"] == [
            {"apiVersion": c.API_VERSION_UPSTREAM, "kind": "TrainJob", "name": "job", "uid": "u-1", "controller": True, "blockOwnerDeletion": True}
        ]


def test_the_ssh_secret_holds_a_p521_key_pair_as_the_controller_encodes_it() -> None:
    secret = by_kind(render_one(job(), launcher_and_workers()), "Secret")
    assert (secret["type"], secret["immutable"], sorted(secret["data"])) == ("kubernetes.io/ssh-auth", True, ["ssh-privatekey", "ssh-publickey"])
    private_pem = base64.b64decode(secret["data"]["ssh-privatekey"])
    public_line = base64.b64decode(secret["data"]["ssh-publickey"]).decode()
    assert private_pem.startswith(b"-----BEGIN EC PRIVATE KEY-----\n")
    key = serialization.load_pem_private_key(private_pem, password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == "secp521r1"
    assert public_line.startswith("ecdsa-sha2-nistp521 ") and public_line.endswith("\n")
    expected = key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()
    assert public_line == expected + "\n"


def test_seeded_keys_are_reproducible_per_trainjob_and_random_keys_are_not() -> None:
    generate = seeded_key_generator("seed")
    assert generate("team/job") == seeded_key_generator("seed")("team/job")
    assert generate("team/job") != generate("team/other")
    assert seeded_key_generator("other")("team/job") != generate("team/job")
    assert generate_key_pair() != generate_key_pair()
    assert "PRIVATE" not in repr(generate("team/job"))


def kep(builder: RuntimeBuilder) -> RuntimeBuilder:
    builder.manifest["apiVersion"] = c.API_VERSION_KEP
    return builder


@pytest.mark.parametrize(
    ("implementation", "env", "line"),
    [
        (
            "Intel",
            {"I_MPI_HYDRA_HOST_FILE": "/etc/mpi/hostfile", "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS": "-o ConnectionAttempts=10", "I_MPI_PERHOST": "2"},
            "job-node-0-0.job:2\n",
        ),
        ("MPICH", {"HYDRA_HOST_FILE": "/etc/mpi/hostfile", "HYDRA_LAUNCH_EXTRA_ARGS": "-o ConnectionAttempts=10"}, "job-node-0-0.job:2\n"),
    ],
)
def test_v2alpha1_intel_and_mpich_use_mpi_operator_env_and_hostfile(implementation: str, env: dict[str, str], line: str) -> None:
    manifests = render_one(job().num_proc_per_node(2), kep(launcher_and_workers(mpiImplementation=implementation)))
    assert env_of(jobset_container(manifests, "launcher")) == env
    assert hostfile(manifests) == line


INVALID = [
    Invalid(
        "several nodes with launcher as node need both a launcher and a node job",
        job().num_nodes(2),
        make_runtime("mpi").mpi(runLauncherAsNode=True).trainer(name="launcher"),
        "spec.trainer.numNodes",
        "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have either launcher and node",
    ),
    Invalid(
        "reserved OpenMPI env vars are rejected, listed sorted",
        job().env(OMPI_MCA_plm_rsh_args="x", OMPI_MCA_orte_default_hostfile="y"),
        launcher_and_workers(),
        "spec.trainer.env",
        "must not have reserved envs, invalid envs configured: [OMPI_MCA_orte_default_hostfile OMPI_MCA_plm_rsh_args]",
    ),
]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_validation(case: Invalid) -> None:
    assert_rejected(case)


@dataclass(frozen=True)
class Valid:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder


VALID = [
    Valid("one node is fine without a launcher", job().num_nodes(1), make_runtime("mpi").mpi(runLauncherAsNode=True).trainer(name="launcher")),
    Valid("several nodes are fine without launcher as node", job().num_nodes(4), launcher_and_workers()),
    Valid("OMPI env is fine for runtimes without mpi", job().env(OMPI_MCA_plm_rsh_args="x"), make_runtime("mpi").torch().trainer()),
]


@pytest.mark.parametrize("case", VALID, ids=lambda case: case.name)
def test_valid(case: Valid) -> None:
    assert validate_one(case.trainjob, case.runtime).errors == []


def test_an_empty_mpi_implementation_passes_the_crd_but_the_launcher_cannot_be_configured() -> None:
    with pytest.raises(PluginError, match="MPI implementation for \"\" doesn't supported"):
        render_one(job(), launcher_and_workers(mpiImplementation=""))


def test_an_empty_mpi_implementation_without_launcher_gets_an_empty_hostfile() -> None:
    rt = make_runtime("mpi").mpi(mpiImplementation="").trainer()
    assert hostfile(render_one(job().num_nodes(2), rt)) == ""


def test_a_runtime_mount_at_the_ssh_path_is_replaced() -> None:
    rt = make_runtime("mpi").mpi().trainer(name="launcher").job(
        replicated_job("node", container(volumeMounts=[{"name": "keys", "mountPath": "/root/.ssh"}, {"name": "data", "mountPath": "/data"}]))
    )
    mounts = jobset_container(render_one(job(), rt), "node")["volumeMounts"]
    assert mounts == [{"name": SSH_AUTH_VOLUME, "mountPath": "/root/.ssh"}, {"name": "data", "mountPath": "/data"}]


def test_no_mpi_children_without_an_mpi_policy() -> None:
    manifests = render_one(job(), make_runtime("mpi").torch().trainer())
    assert [manifest["kind"] for manifest in manifests] == ["JobSet"]
