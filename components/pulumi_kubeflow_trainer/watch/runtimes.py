"""Runtimes as the Kubeflow SDK describes them (`Runtime`, `RuntimeTrainer`), from a runtime object of
the cluster, or, for a TrainJob rendered by this library, from its JobSet.

A rendered TrainJob's runtime is no object in the cluster (unless deployed with `deploy=True`): its
name is read from the TrainJob's runtime snapshot ConfigMap when it has one (`runtime_snapshot=True`),
else it is "Unknown", and the trainer is described from the JobSet's trainer container.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..api import constants as c
from .kubeclient import KubeAPI, KubeAPIError
from .trainjobs import CONTROLLER, LiveTrainJob, trainer_jobs
from .types import UNKNOWN, Runtime, RuntimeTrainer

RUNTIME_API_VERSION = c.API_VERSION_UPSTREAM
COMMANDS = {"torch": ("torchrun",), "mpi": ("mpirun",), "torchtune": ("tune", "run")}
DEVICES = (("nvidia.com/gpu", "gpu"), ("amd.com/gpu", "gpu"), ("google.com/tpu", "tpu"), ("cpu", "cpu"))


def runtime_of(manifest: dict[str, Any]) -> Runtime:
    """A ClusterTrainingRuntime or TrainingRuntime object as the SDK describes it."""
    spec = manifest.get("spec") or {}
    framework = ((manifest.get("metadata") or {}).get("labels") or {}).get(c.LABEL_FRAMEWORK) or UNKNOWN
    policy = spec.get("mlPolicy") or {}
    jobset = {"spec": (spec.get("template") or {}).get("spec") or {}}
    trainer = _trainer(framework, jobset, int(policy.get("numNodes") or 1), _policy_kind(policy, framework))
    return Runtime(name=(manifest.get("metadata") or {}).get("name") or "", trainer=trainer,
                   kind=manifest.get("kind") or c.CLUSTER_TRAINING_RUNTIME_KIND)


def trainjob_runtime(api: KubeAPI, job: LiveTrainJob) -> Runtime:
    """The runtime of a TrainJob: its runtime object when the cluster has it, else one described from its JobSet."""
    ref = (job.trainjob.get("spec") or {}).get("runtimeRef") or {}
    name = ref.get("name") or _snapshot_runtime(api, job)
    if name:
        kind = ref.get("kind") or c.CLUSTER_TRAINING_RUNTIME_KIND
        try:
            found = api.get(RUNTIME_API_VERSION, kind, job.namespace if kind == c.TRAINING_RUNTIME_KIND else None, name)
        except KubeAPIError:
            found = None
        if found is not None:
            return runtime_of(found)
    trainer = _trainer(UNKNOWN, job.jobset or {}, job.nodes or 1, "")
    return Runtime(name=name or UNKNOWN, trainer=trainer, kind=c.CLUSTER_TRAINING_RUNTIME_KIND)


def _snapshot_runtime(api: KubeAPI, job: LiveTrainJob) -> str | None:
    if job.mode == CONTROLLER:
        return None
    try:
        snapshot = api.get("v1", "ConfigMap", job.namespace, f"{job.name}-runtime-snapshot")
    except KubeAPIError:
        return None
    text = ((snapshot or {}).get("data") or {}).get("runtime")
    try:
        runtime = yaml.safe_load(text) if text else None
    except yaml.YAMLError:
        return None
    return ((runtime or {}).get("metadata") or {}).get("name") if isinstance(runtime, dict) else None


def _policy_kind(policy: dict[str, Any], framework: str) -> str:
    if framework == "torchtune":
        return "torchtune"
    return next((kind for kind in ("torch", "mpi") if policy.get(kind) is not None), "")


def _trainer(framework: str, jobset: dict[str, Any], nodes: int, policy: str) -> RuntimeTrainer:
    container = _trainer_container(jobset)
    limits = (container.get("resources") or {}).get("limits") or {}
    device, count = next(((name, str(limits[key])) for key, name in DEVICES if key in limits), (UNKNOWN, UNKNOWN))
    return RuntimeTrainer(trainer_type="BuiltinTrainer" if framework == "torchtune" else "CustomTrainer",
                          framework=framework, image=container.get("image") or "", num_nodes=nodes, device=device,
                          device_count=count, command=COMMANDS.get(policy, ("python",)))


def _trainer_container(jobset: dict[str, Any]) -> dict[str, Any]:
    """The `node` container of the trainer job (the SDK's get_runtime_trainer_container)."""
    names = trainer_jobs(jobset)
    for job in (jobset.get("spec") or {}).get("replicatedJobs") or []:
        if job.get("name") not in names:
            continue
        pod = ((((job.get("template") or {}).get("spec") or {}).get("template") or {}).get("spec") or {})
        for container in pod.get("containers") or []:
            if container.get("name") == "node":
                return dict(container)
    return {}
