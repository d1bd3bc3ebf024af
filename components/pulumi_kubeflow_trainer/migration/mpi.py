"""MPIJob -> TrainJob and a generated MPI TrainingRuntime.

v1.8.1 (pkg/controller.v1/mpi): a launcher Pod runs mpirun and reaches the worker Pods with
`kubectl exec` (kubexec.sh, a kubectl init container, a ServiceAccount with exec rights), from a
hostfile of `<job>-worker-<i> slots=<slotsPerWorker>`; workers without a command sleep. v2's MPI
policy reaches the nodes over SSH (a generated key, mounted in both) from a hostfile of the nodes'
host names. The workers run the user's image, so the runtime is generated: the bundled
mpi-distributed runtime's nodes run mpioperator/openmpi.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import constants as c
from ..api.rules import show
from .assemble import clean_pod_policy
from .plan import JobPart, Plan
from .report import Losses
from .shared import spec_leftovers
from .templates import node_template, pod_restart_policy
from .v1job import ReplicaSpec, V1Job

RESERVED_ENV = frozenset({"OMPI_MCA_orte_default_hostfile", "OMPI_MCA_orte_keep_fqdn_hostnames", "OMPI_MCA_orte_set_default_slots",
                          "OMPI_MCA_plm_rsh_args"})
SPEC_KEYS = ("runPolicy", "mpiReplicaSpecs", "slotsPerWorker", "cleanPodPolicy", "mainContainer")
SSH_AUTH_MOUNT_PATH = "/root/.ssh"  # v1's examples run mpirun as root (--allow-run-as-root)
SSHD_COMMAND = ["/usr/sbin/sshd"]
SSHD_ARGS = ["-De"]
DISCOVER_HOSTS = "/etc/mpi/discover_hosts.sh"


def convert(job: V1Job, losses: Losses) -> Plan:
    launcher = job.replica("Launcher")
    assert launcher is not None  # v1job: MPIJob requires it
    worker = job.replica("Worker")
    workers = worker.replicas if worker is not None else 0
    spec_leftovers(job, SPEC_KEYS, losses)
    _spec_losses(job, losses)
    gpu_launcher = _has_gpus(launcher)
    launcher_template = node_template(job.rules, launcher, losses, drop_port=False)
    _discover_hosts_losses(launcher, losses)
    jobs = []
    if workers > 0 and worker is not None:
        jobs.append(JobPart(c.NODE, _worker_template(job, worker, losses), pod_restart_policy(worker, losses),
                            container_path=f"{worker.path}.template.spec.containers[0]"))
    launcher_job = JobPart(c.LAUNCHER, launcher_template, pod_restart_policy(launcher, losses), trainer=True,
                           container_path=f"{launcher.path}.template.spec.containers[0]")
    if jobs:
        launcher_job.depends_on = [{"name": c.NODE, "status": "Ready"}]
    jobs.append(launcher_job)
    # A launcher with GPUs ran ranks too: v1's hostfile listed it (a launcher without workers or GPUs has an
    # empty hostfile in both, and mpirun runs the ranks on it).
    as_node = gpu_launcher
    slots = job.spec.get("slotsPerWorker") or 1
    nodes = workers + (1 if as_node else 0)
    policy = {"numProcPerNode": slots, "mpiImplementation": "OpenMPI", "sshAuthMountPath": SSH_AUTH_MOUNT_PATH,
              "runLauncherAsNode": as_node}
    compat = [] if gpu_launcher else [{"name": "NVIDIA_VISIBLE_DEVICES", "value": ""}, {"name": "NVIDIA_DRIVER_CAPABILITIES", "value": ""}]
    return Plan(
        job=job, losses=losses, framework="mpi", bundled=None, ml_policy={"numNodes": 1, "mpi": policy},  # the launcher's count: one, as v1's
        jobs=jobs, num_nodes=nodes, num_proc_per_node=slots, compat_env=compat, reserved_env=RESERVED_ENV,
        jobset_spec={"network": {"publishNotReadyAddresses": True},
                     "successPolicy": {"operator": "All", "targetReplicatedJobs": [c.LAUNCHER]}},
        needs_runtime=["the workers run the job's image (mpi-distributed's run mpioperator/openmpi)"],
        # With the launcher as a node, the TrainJob's resources and env would reach the workers too: they stay in the runtime.
        trainer_fields=("image", "command", "args") if as_node else ("image", "command", "args", "env"),
    )


def _spec_losses(job: V1Job, losses: Losses) -> None:
    if job.spec.get("cleanPodPolicy") is not None:  # the deprecated place of runPolicy.cleanPodPolicy
        clean_pod_policy(job.spec["cleanPodPolicy"], "spec.cleanPodPolicy", losses)
    main = job.spec.get("mainContainer")
    ranks = job.replica("Worker") or job.replica("Launcher")  # where kubexec.sh ran them
    first = ranks.template["spec"]["containers"][0].get("name") if ranks is not None else None
    if main and main != first:
        losses.add("spec.mainContainer", f"{main!r}: v1 ran the ranks in this container (kubexec.sh); v2 runs them in the "
                                         f"first container ({first!r}, named {c.NODE!r} in v2)")


def _worker_template(job: V1Job, worker: ReplicaSpec, losses: Losses) -> dict[str, Any]:
    template = node_template(job.rules, worker, losses, drop_port=False)
    node = next(item for item in template["spec"]["containers"] if item.get("name") == c.NODE)
    path = f"{worker.path}.template.spec.containers[0]"
    if node.get("command"):
        losses.add(f"{path}.command", "v2 reaches the workers over SSH, not kubectl exec: this command must run sshd (as "
                                      f"mpi-distributed's /usr/sbin/sshd -De), with the key v2 mounts at {SSH_AUTH_MOUNT_PATH}")
        return template
    losses.add(f"{path}.command", "unset: v1 ran `sleep 365d` and reached the workers with kubectl exec; v2 reaches them over "
                                  "SSH, so they run `/usr/sbin/sshd -De`: the image needs sshd with host keys, accepting the "
                                  f"key v2 mounts at {SSH_AUTH_MOUNT_PATH}")
    given = f"{show(node['args'])}, which v1 replaced with `365d`" if node.get("args") else "unset: v1's `365d` for `sleep`"
    losses.add(f"{path}.args", f"{given}; v2's workers run `/usr/sbin/sshd -De` (see command)")
    node["command"], node["args"] = list(SSHD_COMMAND), list(SSHD_ARGS)
    return template


def _discover_hosts_losses(launcher: ReplicaSpec, losses: Losses) -> None:
    container = launcher.template["spec"]["containers"][0]
    for key in ("command", "args"):
        for index, item in enumerate(container.get(key) or []):
            if isinstance(item, str) and DISCOVER_HOSTS in item:
                losses.add(f"{launcher.path}.template.spec.containers[0].{key}[{index}]",
                           f"{DISCOVER_HOSTS} (the running workers, for elastic Horovod) was v1's; v2 mounts only the "
                           "hostfile, /etc/mpi/hostfile")


def _has_gpus(launcher: ReplicaSpec) -> bool:
    """v1's isGPULauncher: a limit whose name ends in .com/gpu or contains gpu, in any launcher container."""
    for container in launcher.template["spec"]["containers"]:
        limits = (container.get("resources") or {}).get("limits")
        if isinstance(limits, Mapping) and any(key.endswith(".com/gpu") or "gpu" in key for key in limits):
            return True
    return False
