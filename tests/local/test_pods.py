"""From rendered objects to launches: the plan, the env the kubelet would build, the volumes on disk."""

from __future__ import annotations

import base64
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.local.envs import container_env, expand
from pulumi_kubeflow_trainer.local.plan import LocalRunError, ObjectStore, PodPlan, plan_jobset
from pulumi_kubeflow_trainer.local.pods import HostEnv, declared_ports, prepare_pod
from pulumi_kubeflow_trainer.local.rewrite import PortMap, Rewriter
from tests.builders import container, make_runtime, make_trainjob, render_one, replicated_job

POD = PodPlan("demo-node-0-1", "node", 0, 1, {"metadata": {"labels": {"team": "ml"}}}, "team", "demo")
STORE = ObjectStore([
    {"kind": "Secret", "metadata": {"name": "creds"}, "data": {"token": base64.b64encode(b"s3cr3t").decode()}, "stringData": {"user": "ada"}},
    {"kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"LEVEL": "debug", "RETRIES": "3"}},
])
NO_HOST_ENV = HostEnv({}, {})
INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"


def field(path: str) -> dict[str, Any]:
    return {"valueFrom": {"fieldRef": {"fieldPath": path}}}


def key_ref(source: str, name: str, key: str, **options: Any) -> dict[str, Any]:
    return {"valueFrom": {source: {"name": name, "key": key, **options}}}


def resource_ref(resource: str, **options: Any) -> dict[str, Any]:
    return {"valueFrom": {"resourceFieldRef": {"resource": resource, **options}}}


@dataclass(frozen=True)
class EnvCase:
    name: str
    container: dict[str, Any]
    expected: dict[str, str]


ENV_CASES = [
    EnvCase("a plain value is kept", {"env": [{"name": "A", "value": "1"}]}, {"A": "1"}),
    EnvCase("the completion index annotation is the pod's index", {"env": [{"name": "RANK", **field(INDEX)}]}, {"RANK": "1"}),
    EnvCase("the completion index label too", {"env": [{"name": "R", **field("metadata.labels['batch.kubernetes.io/job-completion-index']")}]}, {"R": "1"}),
    EnvCase("a template label is readable", {"env": [{"name": "T", **field("metadata.labels['team']")}]}, {"T": "ml"}),
    EnvCase("the pod name is its hostname", {"env": [{"name": "P", **field("metadata.name")}]}, {"P": "demo-node-0-1"}),
    EnvCase("the namespace is the JobSet's", {"env": [{"name": "N", **field("metadata.namespace")}]}, {"N": "team"}),
    EnvCase("the pod IP is the loopback address", {"env": [{"name": "IP", **field("status.podIP")}]}, {"IP": "127.0.0.1"}),
    EnvCase("a secret key is decoded", {"env": [{"name": "TOKEN", **key_ref("secretKeyRef", "creds", "token")}]}, {"TOKEN": "s3cr3t"}),
    EnvCase("a config map key is read", {"env": [{"name": "L", **key_ref("configMapKeyRef", "settings", "LEVEL")}]}, {"L": "debug"}),
    EnvCase("an optional missing key is left unset", {"env": [{"name": "X", **key_ref("secretKeyRef", "creds", "nope", optional=True)}]}, {}),
    EnvCase(
        "envFrom takes every key with its prefix",
        {"envFrom": [{"configMapRef": {"name": "settings"}, "prefix": "APP_"}]},
        {"APP_LEVEL": "debug", "APP_RETRIES": "3"},
    ),
    EnvCase("envFrom a secret decodes data and stringData", {"envFrom": [{"secretRef": {"name": "creds"}}]}, {"token": "s3cr3t", "user": "ada"}),
    EnvCase(
        "env wins over envFrom",
        {"envFrom": [{"configMapRef": {"name": "settings"}}], "env": [{"name": "LEVEL", "value": "info"}]},
        {"LEVEL": "info", "RETRIES": "3"},
    ),
    EnvCase(
        "a value may refer to an earlier one",
        {"env": [{"name": "RANK", **field(INDEX)}, {"name": "OUT", "value": "/out/$(RANK)/$$(RANK)/$(LATER)"}, {"name": "LATER", "value": "x"}]},
        {"RANK": "1", "OUT": "/out/1/$(RANK)/$(LATER)", "LATER": "x"},
    ),
    EnvCase("a CPU limit is rounded up to whole cores",
            {"resources": {"limits": {"cpu": "500m"}}, "env": [{"name": "C", **resource_ref("limits.cpu")}]}, {"C": "1"}),
    EnvCase("a memory request honours the divisor",
            {"resources": {"requests": {"memory": "2Gi"}}, "env": [{"name": "M", **resource_ref("requests.memory", divisor="1Mi")}]}, {"M": "2048"}),
]


@pytest.mark.parametrize("case", ENV_CASES, ids=lambda case: case.name)
def test_the_env_is_built_as_the_kubelet_builds_it(case: EnvCase) -> None:
    assert container_env(case.container, POD, STORE) == case.expected


@dataclass(frozen=True)
class EnvError:
    name: str
    container: dict[str, Any]
    message: str


ENV_ERRORS = [
    EnvError("a missing secret is named", {"env": [{"name": "T", **key_ref("secretKeyRef", "gone", "k")}]}, "Secret 'gone' is not among the given objects"),
    EnvError("a missing key is named", {"env": [{"name": "T", **key_ref("configMapKeyRef", "settings", "k")}]}, "key 'k' of ConfigMap 'settings'"),
    EnvError("a missing envFrom source is named", {"envFrom": [{"secretRef": {"name": "gone"}}]}, "envFrom Secret 'gone'"),
    EnvError("a field the host cannot answer is named", {"env": [{"name": "T", **field("metadata.generateName")}]}, "'metadata.generateName' is not emulated"),
    EnvError("an unset resource limit is named", {"env": [{"name": "C", **resource_ref("limits.cpu")}]}, "limits.cpu is unset"),
]


@pytest.mark.parametrize("case", ENV_ERRORS, ids=lambda case: case.name)
def test_env_that_cannot_be_resolved_fails_before_anything_starts(case: EnvError) -> None:
    with pytest.raises(LocalRunError, match=case.message):
        container_env(case.container, POD, STORE)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("$(A)-$(B)", "1-$(B)"), ("$$(A)", "$(A)"), ("$A $", "$A $"), ("$(A", "$(A"), ("cost: $$5", "cost: $5")],
    ids=["a defined name is replaced and an undefined one kept", "a doubled dollar escapes", "a bare dollar is literal",
         "an unclosed reference is literal", "a doubled dollar is one dollar"],
)
def test_references_expand_like_the_kubelet(text: str, expected: str) -> None:
    assert expand(text, {"A": "1"}) == expected


def test_the_plan_has_one_pod_per_completion_and_replica_with_jobset_names() -> None:
    runtime = make_runtime("r").template_spec(startupPolicy={"startupPolicyOrder": "InOrder"}).job(
        {**replicated_job("init", container("init", command=["true"])), "replicas": 2}
    ).trainer(container(command=["true"]))
    plan = plan_jobset(render_one(make_trainjob("team", "demo").runtime_ref("r").num_nodes(3), runtime))
    assert [pod.name for pod in plan.pods] == ["demo-init-0-0", "demo-init-1-0", "demo-node-0-0", "demo-node-0-1", "demo-node-0-2"]
    assert [job.depends_on for job in plan.replicated_jobs] == [(), (("init", "Ready"),)]
    assert (plan.namespace, plan.subdomain, plan.success_operator, plan.success_targets) == ("team", "demo", "All", ("init", "node"))


def test_a_run_needs_exactly_one_jobset() -> None:
    with pytest.raises(LocalRunError, match="exactly one JobSet"):
        plan_jobset([{"kind": "ConfigMap", "metadata": {"name": "x"}}])


def mpi_manifests(nodes: int = 2) -> list[dict[str, Any]]:
    trainjob = make_trainjob("team", "mj").runtime_ref("mpi-distributed").num_nodes(nodes).command("mpirun", "python", "train.py")
    return render_one(trainjob, bundled_runtime("mpi-distributed"))


def pods_of(plan: Any, replicated_job: str) -> list[Any]:
    return [pod for pod in plan.pods if pod.replicated_job == replicated_job]


def test_the_mpi_launcher_gets_a_local_hostfile_and_ssh_files_with_their_modes(tmp_path: Path) -> None:
    plan = plan_jobset(mpi_manifests())
    rewriter = Rewriter.for_plan(plan, PortMap.for_ports(declared_ports(plan)))
    [launcher_pod] = pods_of(plan, "launcher")
    launcher = prepare_pod(launcher_pod, plan, tmp_path, rewriter, NO_HOST_ENV).containers[0]
    pod_dir = tmp_path / "mj-launcher-0-0"
    assert launcher.env["OMPI_MCA_orte_default_hostfile"] == f"{pod_dir}/etc/mpi/hostfile"
    assert (pod_dir / "etc/mpi/hostfile").read_text() == "127.0.0.1 slots=2\n"  # OpenMPI wants one line per host
    assert stat.S_IMODE((pod_dir / "home/mpiuser/.ssh/id_rsa").stat().st_mode) == 0o640
    assert stat.S_IMODE((pod_dir / "home/mpiuser/.ssh/authorized_keys").stat().st_mode) == 0o644
    assert (pod_dir / "home/mpiuser/.ssh/id_rsa").read_bytes().startswith(b"-----BEGIN EC PRIVATE KEY-----")


def test_sshd_workers_stand_in_for_mpirun_and_are_not_started(tmp_path: Path) -> None:
    plan = plan_jobset(mpi_manifests())
    rewriter = Rewriter.for_plan(plan, PortMap.for_ports(declared_ports(plan)))
    workers = [prepare_pod(pod, plan, tmp_path, rewriter, NO_HOST_ENV).containers[0] for pod in pods_of(plan, "node")]
    assert [(w.pod, w.stand_in) for w in workers] == [("mj-node-0-0", True), ("mj-node-0-1", True)]


ROOT_ALLOWED = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


@pytest.mark.parametrize(
    ("euid", "run_as_user", "expected"),
    [(0, None, ROOT_ALLOWED), (0, 1000, ROOT_ALLOWED), (0, 0, {}), (1000, None, {})],
    ids=[
        "as root, a container with its image's user may run mpirun as root",
        "as root, a container with runAsUser 1000 too",
        "a container that asks for root itself is refused as in the cluster",
        "not root: nothing is added",
    ],
)
def test_open_mpi_may_run_as_root_only_where_the_container_would_not_be_root(
    euid: int, run_as_user: int | None, expected: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pulumi_kubeflow_trainer.local.mpi.os.geteuid", lambda: euid)
    security = {} if run_as_user is None else {"securityContext": {"runAsUser": run_as_user}}
    plan = plan_jobset(render_one(make_trainjob("team", "demo").runtime_ref("r"), make_runtime("r").trainer(container(command=["mpirun", "true"], **security))))
    launch = prepare_pod(plan.pods[0], plan, tmp_path, Rewriter(None), NO_HOST_ENV).containers[0]
    assert {name: value for name, value in launch.env.items() if name.startswith("OMPI_ALLOW")} == expected


def test_the_bundled_mpi_launcher_may_run_mpirun_as_root_and_the_user_env_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pulumi_kubeflow_trainer.local.mpi.os.geteuid", lambda: 0)
    plan = plan_jobset(mpi_manifests())
    rewriter = Rewriter.for_plan(plan, PortMap.for_ports(declared_ports(plan)))
    [launcher_pod] = pods_of(plan, "launcher")
    launcher = prepare_pod(launcher_pod, plan, tmp_path, rewriter, HostEnv({}, {"OMPI_ALLOW_RUN_AS_ROOT": "0"})).containers[0]
    assert (launcher.env["OMPI_ALLOW_RUN_AS_ROOT"], launcher.env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"]) == ("0", "1")


def test_mpirun_gets_a_remote_shell_that_refuses_whatever_the_pod_sets_and_the_user_may_override_it(tmp_path: Path) -> None:
    runtime = make_runtime("r").trainer(container(command=["mpirun", "true"], env=[{"name": "OMPI_MCA_plm_rsh_agent", "value": "ssh"}]))
    plan = plan_jobset(render_one(make_trainjob("team", "demo").runtime_ref("r"), runtime))
    agent = prepare_pod(plan.pods[0], plan, tmp_path, Rewriter(None), NO_HOST_ENV).containers[0].env["OMPI_MCA_plm_rsh_agent"]
    assert agent == str(tmp_path / ".run-local/mpi-rsh-agent")
    assert stat.S_IMODE(Path(agent).stat().st_mode) == 0o755 and Path(agent).read_text().startswith("#!/bin/sh\n")
    chosen = prepare_pod(plan.pods[0], plan, tmp_path, Rewriter(None), HostEnv({}, {"OMPI_MCA_plm_rsh_agent": "rsh"})).containers[0]
    assert chosen.env["OMPI_MCA_plm_rsh_agent"] == "rsh"


def test_a_volume_that_is_not_emulated_is_named(tmp_path: Path) -> None:
    runtime = make_runtime("r").trainer(
        container(command=["true"], volumeMounts=[{"name": "data", "mountPath": "/data"}]),
        volumes=[{"name": "data", "hostPath": {"path": "/srv"}}],
    )
    plan = plan_jobset(render_one(make_trainjob("team", "demo").runtime_ref("r"), runtime))
    with pytest.raises(LocalRunError, match=r"volume 'data' \(hostPath\) is not emulated locally"):
        prepare_pod(plan.pods[0], plan, tmp_path, Rewriter(None), NO_HOST_ENV)


def test_a_container_without_a_command_is_refused(tmp_path: Path) -> None:
    plan = plan_jobset(render_one(make_trainjob("team", "demo").runtime_ref("r"), make_runtime("r").trainer()))
    with pytest.raises(LocalRunError, match="has no command; the image's entrypoint is not emulated"):
        prepare_pod(plan.pods[0], plan, tmp_path, Rewriter(None), NO_HOST_ENV)


def test_a_torch_pod_gets_its_rank_the_local_master_and_the_overrides_last(tmp_path: Path) -> None:
    trainjob = make_trainjob("team", "demo").runtime_ref("torch-distributed").num_nodes(2).command("torchrun", "train.py").env(PET_EXTRA="x")
    plan = plan_jobset(render_one(trainjob, bundled_runtime("torch-distributed")))
    rewriter = Rewriter.for_plan(plan, PortMap({29500: 29500}))
    host = HostEnv({"PATH": "/venv/bin:/bin", "HOSTNAME": "laptop"}, {"PET_MASTER_PORT": "29600"})
    launch = prepare_pod(plan.pods[1], plan, tmp_path, rewriter, host).containers[0]
    pet = {name: value for name, value in launch.env.items() if name.startswith("PET_")}
    assert pet == {"PET_EXTRA": "x", "PET_NNODES": "2", "PET_NPROC_PER_NODE": "1", "PET_NODE_RANK": "1",
                   "PET_MASTER_ADDR": "127.0.0.1", "PET_MASTER_PORT": "29600"}
    assert (launch.env["PATH"], launch.env["HOSTNAME"], launch.argv, launch.prefix) == (
        "/venv/bin:/bin", "demo-node-0-1", ["torchrun", "train.py"], "[demo-node-0-1]"
    )
