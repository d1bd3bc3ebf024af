"""The Pods of a TrainJob and which step each one is, named as the Kubeflow SDK names them.

JobSet labels every Pod with its JobSet (`jobset.sigs.k8s.io/jobset-name`, the TrainJob's name) and
replicated job; the Job gives the completion index. Steps: `dataset-initializer`,
`model-initializer`, and `node-N` for the trainer nodes, N the node's rank: the completion index in
the trainer job, or, when a `launcher` job runs beside the nodes (MPI), 0 for the launcher and the
node job's index + 1. Rank 0 (`node-0`) is the node whose log a training usually prints to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .kubeclient import KubeAPI
from .trainjobs import LiveTrainJob, trainer_jobs

JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name"
JOB_INDEX_LABEL = "jobset.sigs.k8s.io/job-index"
COMPLETION_INDEX_LABEL = "batch.kubernetes.io/job-completion-index"
NODE, LAUNCHER = "node", "launcher"


@dataclass(frozen=True)
class PodStep:
    """A Pod of the TrainJob: its step (`node-0`, `dataset-initializer`, ...), the container that runs
    the step, and the Pod itself."""

    step: str
    container: str
    pod: dict[str, Any]

    @property
    def name(self) -> str:
        return str((self.pod.get("metadata") or {}).get("name"))

    @property
    def phase(self) -> str:
        return str((self.pod.get("status") or {}).get("phase") or "Unknown")

    @property
    def node_rank(self) -> int | None:
        return int(self.step.rsplit("-", 1)[1]) if self.step.startswith(f"{NODE}-") else None


def pods_of(api: KubeAPI, job: LiveTrainJob) -> list[PodStep]:
    """The TrainJob's Pods, trainer nodes by rank first, then the others; the newest Pod of a step
    that was retried first."""
    pods = api.list("v1", "Pod", job.namespace, label_selector=f"{JOBSET_NAME_LABEL}={job.name}")
    pods.sort(key=lambda pod: (pod.get("metadata") or {}).get("creationTimestamp") or "", reverse=True)
    trainers = trainer_jobs(job.jobset)
    launcher = LAUNCHER in trainers or any(_labels(pod).get(REPLICATED_JOB_LABEL) == LAUNCHER for pod in pods)
    widths = {job.get("name"): int(((job.get("template") or {}).get("spec") or {}).get("parallelism") or 1)
              for job in ((job.jobset or {}).get("spec") or {}).get("replicatedJobs") or []}
    steps = [_step(pod, trainers, launcher, widths) for pod in pods]
    return sorted(steps, key=lambda step: (step.node_rank is None, step.node_rank or 0, step.step))


def _labels(pod: dict[str, Any]) -> dict[str, str]:
    return (pod.get("metadata") or {}).get("labels") or {}


def _step(pod: dict[str, Any], trainers: list[str], launcher: bool, widths: dict[Any, int]) -> PodStep:
    labels = _labels(pod)
    job = labels.get(REPLICATED_JOB_LABEL, "")
    containers = [str(container.get("name")) for container in (pod.get("spec") or {}).get("containers") or []]
    index = int(labels.get(JOB_INDEX_LABEL) or 0) * widths.get(job, 1) + int(labels.get(COMPLETION_INDEX_LABEL) or 0)
    if job == LAUNCHER:
        step = f"{NODE}-0"
    elif job in trainers or job == NODE:
        step = f"{NODE}-{index + 1 if launcher else index}"
    else:
        step = job
    container = NODE if NODE in containers else job if job in containers else (containers[0] if containers else "")
    return PodStep(step, container, pod)


def rank_zero(steps: list[PodStep]) -> PodStep | None:
    return next((step for step in steps if step.node_rank == 0), None)


def node(steps: list[PodStep], rank: int) -> PodStep | None:
    return next((step for step in steps if step.node_rank == rank), None)
