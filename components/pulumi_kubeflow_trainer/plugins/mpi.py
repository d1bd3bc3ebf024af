"""MPI: SSH auth between launcher and nodes, the hostfile, and the launcher's MPI env.

Upstream implements OpenMPI only; the KEP also lists Intel MPI and MPICH, which this plugin supports
with mpi-operator's hostfile format (`host:slots`) and env (apiVersion trainer.kubeflow.org/v2alpha1).
"""

from __future__ import annotations

import base64
from typing import ClassVar

from ..api import constants as c
from ..api.rules import show
from ..api.runtime import MPIMLPolicySource, Runtime
from ..api.trainjob import TrainJob
from ..framework.context import RenderContext
from ..framework.errors import FieldError, PluginError
from ..framework.info import RuntimeInfo
from ..framework.interfaces import NO_FINDINGS, Verdict
from ..framework.kube import Manifest, upsert_env, upsert_volume_mounts, upsert_volumes
from ..framework.ml_policy import FunctionLauncher
from ..framework.objects import child_metadata, reserved_env_error

NAME = "MPI"
SSH_AUTH_VOLUME = "mpi-ssh-auth"
HOSTFILE_VOLUME = "mpi-hostfile"
HOSTFILE_DIR = "/etc/mpi"
HOSTFILE_PATH = f"{HOSTFILE_DIR}/hostfile"
SSH_ARGS = "-o ConnectionAttempts=10"


def _launcher_env(implementation: str, slots: int) -> list[Manifest] | None:
    """The launcher's env per MPI implementation (mpi-operator's sets for Intel and MPICH)."""
    table = {
        "OpenMPI": [
            ("OMPI_MCA_orte_default_hostfile", HOSTFILE_PATH),
            ("OMPI_MCA_orte_keep_fqdn_hostnames", "true"),
            ("OMPI_MCA_orte_set_default_slots", str(slots)),
            ("OMPI_MCA_plm_rsh_args", SSH_ARGS),
        ],
        "Intel": [
            ("I_MPI_HYDRA_HOST_FILE", HOSTFILE_PATH),
            ("I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", SSH_ARGS),
            ("I_MPI_PERHOST", str(slots)),
        ],
        "MPICH": [("HYDRA_HOST_FILE", HOSTFILE_PATH), ("HYDRA_LAUNCH_EXTRA_ARGS", SSH_ARGS)],
    }
    pairs = table.get(implementation)
    return None if pairs is None else [{"name": name, "value": value} for name, value in pairs]


RESERVED_ENV = frozenset(
    name for implementation in ("OpenMPI", "Intel", "MPICH") for name in (e["name"] for e in _launcher_env(implementation, 1) or [])
)


def _hostfile_suffix(implementation: str, slots: int) -> str | None:
    """What follows each host: OpenMPI's `host slots=n`, mpi-operator's `host:n` for Intel and MPICH;
    None (no hostfile lines) otherwise, as upstream."""
    if implementation == "OpenMPI":
        return f" slots={slots}\n"
    return f":{slots}\n" if implementation in ("Intel", "MPICH") else None


def secret_name(trainjob: TrainJob) -> str:
    return f"{trainjob.name}-mpi-ssh-auth"


def hostfile_name(trainjob: TrainJob) -> str:
    return f"{trainjob.name}-mpi-hostfile"


class MPIPlugin:
    name: ClassVar[str] = NAME
    ml_policy: ClassVar[str] = "mpi"
    # Ranks on the hosts of the hostfile this plugin mounts.
    function_launcher: ClassVar[FunctionLauncher] = FunctionLauncher("mpirun", ("mpirun", "--hostfile", HOSTFILE_PATH))

    @staticmethod
    def applies_to(runtime: Runtime) -> bool:
        policy = runtime.spec.ml_policy
        return policy is not None and policy.mpi is not None

    @staticmethod
    def trainer_node_jobs(runtime: Runtime) -> tuple[str, ...]:
        """With the launcher as a node, the node job runs trainer nodes too: the TrainJob's resources and
        env go to both (the launcher is the trainer job)."""
        policy = runtime.spec.ml_policy
        return (c.NODE,) if policy is not None and policy.mpi is not None and policy.mpi.run_launcher_as_node else ()

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        mpi = _policy(info)
        trainer = trainjob.spec.trainer
        if mpi is None or trainer is None:
            return NO_FINDINGS
        verdict = Verdict()
        has_both = info.find_pod_set(name=c.LAUNCHER) is not None and info.find_pod_set(name=c.NODE) is not None
        if mpi.run_launcher_as_node and (trainer.num_nodes or 0) > 1 and not has_both:
            verdict.errors.append(
                FieldError(
                    "spec.trainer.numNodes",
                    f"Invalid value: {trainer.num_nodes}: must have 1 when MPI trainingRuntime with enabled "
                    "runLauncherAsNode does not have either launcher and node; the runtime needs both jobs for more nodes",
                )
            )
        reserved = reserved_env_error(trainer, RESERVED_ENV, "MPI")
        if reserved is not None:
            verdict.errors.append(reserved)
        return verdict

    def enforce_ml_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        mpi = _policy(info)
        if mpi is None:
            return
        self._set_num_nodes(info, trainjob, mpi)
        self._mount_ssh_auth(info, trainjob, mpi)
        self._configure_launcher(info, trainjob, mpi, _slots(info, trainjob, mpi))

    @staticmethod
    def _set_num_nodes(info: RuntimeInfo, trainjob: TrainJob, mpi: MPIMLPolicySource) -> None:
        trainer, node = trainjob.spec.trainer, info.find_pod_set(name=c.NODE)
        if trainer is None or trainer.num_nodes is None or node is None:
            return
        node.count = max(trainer.num_nodes - 1, 1) if mpi.run_launcher_as_node else trainer.num_nodes

    @staticmethod
    def _mount_ssh_auth(info: RuntimeInfo, trainjob: TrainJob, mpi: MPIMLPolicySource) -> None:
        for pod_set in info.pod_sets:
            if pod_set.name not in (c.NODE, c.LAUNCHER):
                continue
            upsert_volumes(pod_set.pod_spec, [_ssh_auth_volume(trainjob)])
            for container in pod_set.containers:
                if container.get("name") == c.NODE:
                    upsert_volume_mounts(container, [{"name": SSH_AUTH_VOLUME, "mountPath": mpi.ssh_auth_mount_path}])

    @staticmethod
    def _configure_launcher(info: RuntimeInfo, trainjob: TrainJob, mpi: MPIMLPolicySource, slots: int) -> None:
        launcher = info.find_pod_set(name=c.LAUNCHER)
        if launcher is None:
            return
        volume = {
            "name": HOSTFILE_VOLUME,
            "configMap": {"name": hostfile_name(trainjob), "items": [{"key": "hostfile", "path": "hostfile", "mode": 0o444}]},
        }
        upsert_volumes(launcher.pod_spec, [volume])
        container = launcher.find_container(c.NODE)
        if container is None:
            return
        upsert_volume_mounts(container, [{"name": HOSTFILE_VOLUME, "mountPath": HOSTFILE_DIR}])
        env = _launcher_env(mpi.mpi_implementation, slots)
        if env is None:
            raise PluginError(NAME, f"MPI implementation for {show(mpi.mpi_implementation)} doesn't supported; use OpenMPI")
        upsert_env(container, env)

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        mpi = _policy(info)
        if mpi is None:
            return []
        return [self._ssh_auth_secret(trainjob, context), self._hostfile_config_map(info, trainjob, mpi)]

    @staticmethod
    def _ssh_auth_secret(trainjob: TrainJob, context: RenderContext) -> Manifest:
        keys = context.key_generator(f"{trainjob.namespace}/{trainjob.name}")
        return {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": child_metadata(trainjob, secret_name(trainjob)),
            "type": "kubernetes.io/ssh-auth",
            "immutable": True,
            "data": {
                "ssh-privatekey": base64.b64encode(keys.private_key_pem.encode()).decode(),
                "ssh-publickey": base64.b64encode(keys.public_key_openssh.encode()).decode(),
            },
        }

    @staticmethod
    def _hostfile_config_map(info: RuntimeInfo, trainjob: TrainJob, mpi: MPIMLPolicySource) -> Manifest:
        suffix = _hostfile_suffix(mpi.mpi_implementation, _slots(info, trainjob, mpi))
        hostfile = "" if suffix is None else "".join(
            pod_set.endpoint_lines(suffix)
            for pod_set in info.pod_sets
            if pod_set.name == c.NODE or (mpi.run_launcher_as_node and pod_set.name == c.LAUNCHER)
        )
        return {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": child_metadata(trainjob, hostfile_name(trainjob)),
            "data": {"hostfile": hostfile},
        }


def _ssh_auth_volume(trainjob: TrainJob) -> Manifest:
    return {
        "name": SSH_AUTH_VOLUME,
        "secret": {
            "secretName": secret_name(trainjob),
            "defaultMode": 0o400,
            "items": [
                {"key": "ssh-privatekey", "path": "id_rsa", "mode": 0o640},
                {"key": "ssh-publickey", "path": "id_rsa.pub", "mode": 0o644},
                {"key": "ssh-publickey", "path": "authorized_keys", "mode": 0o644},
            ],
        },
    }


def _slots(info: RuntimeInfo, trainjob: TrainJob, mpi: MPIMLPolicySource) -> int:
    """Slots per host: the TrainJob's numProcPerNode, else the runtime's, else one per GPU."""
    trainer = trainjob.spec.trainer
    if trainer is not None and trainer.num_proc_per_node is not None:
        return trainer.num_proc_per_node
    gpus = info.gpus_per_node()
    return gpus if mpi.num_proc_per_node == 1 and gpus > 1 else mpi.num_proc_per_node


def _policy(info: RuntimeInfo) -> MPIMLPolicySource | None:
    return info.ml_policy.mpi if info.ml_policy else None
