"""The TrainJobs of a cluster, as `trainjob list|get|wait` and TrainerClient see them.

Two kinds live side by side. In the default mode a TrainJob is a JobSet this library rendered: no
TrainJob object exists, so it is found as a JobSet that no TrainJob owns and whose replicated jobs
carry the Trainer's step label (`trainer.kubeflow.org/trainjob-ancestor-step`, which every runtime's
trainer job has; the library adds no label of its own). In controller mode it is a TrainJob object
(trainer.kubeflow.org/v1alpha1), and its JobSet is the one the controller made (same name, owned by
it). The status is `status.compute_status` over the JobSet, as the controller computes it (in
controller mode: the TrainJob's own status, which the controller wrote).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..api import constants as c
from ..status import COMPLETE, FAILED, SUSPENDED, compute_status, find_condition
from .kubeclient import KubeAPI, KubeAPIError
from .kueue_state import QUEUE_LABEL

JOBSET_API_VERSION = "jobset.x-k8s.io/v1alpha2"
TRAINJOB_API_VERSION = f"{c.GROUP}/v1alpha1"
RENDERED, CONTROLLER = "rendered", "controller"
# The states, the Kubeflow SDK's (Created, Running, Complete, Failed) and two of a held TrainJob.
CREATED, RUNNING, QUEUED = "Created", "Running", "Queued"
STATES = (CREATED, RUNNING, COMPLETE, FAILED, SUSPENDED, QUEUED)


@dataclass
class LiveTrainJob:
    """One TrainJob on the cluster: its TrainJob document (the live object in controller mode, one made
    from the JobSet otherwise) with the computed `status`, and its JobSet when there is one."""

    name: str
    namespace: str
    mode: str
    trainjob: dict[str, Any]
    jobset: dict[str, Any] | None
    status: dict[str, Any] = field(default_factory=dict)

    @property
    def queue(self) -> str | None:
        labels = ((self.jobset or self.trainjob).get("metadata") or {}).get("labels") or {}
        return labels.get(QUEUE_LABEL) or ((self.trainjob.get("metadata") or {}).get("labels") or {}).get(QUEUE_LABEL)

    @property
    def queue_owner(self) -> dict[str, Any] | None:
        """What Kueue queues: the JobSet in the default mode, the TrainJob object in controller mode."""
        return self.jobset if self.mode == RENDERED else self.trainjob

    @property
    def created(self) -> str | None:
        return (self.trainjob.get("metadata") or {}).get("creationTimestamp")

    @property
    def runtime(self) -> str | None:
        return ((self.trainjob.get("spec") or {}).get("runtimeRef") or {}).get("name")

    @property
    def state(self) -> str:
        """Complete or Failed once finished; Queued while Kueue holds it, Suspended while the user
        does; Running once the trainer nodes run; Created before."""
        conditions = self.status.get("conditions") or []
        for kind in (FAILED, COMPLETE):
            if (find_condition(conditions, kind) or {}).get("status") == "True":
                return kind
        if (find_condition(conditions, SUSPENDED) or {}).get("status") == "True" or _jobset_suspended(self.jobset):
            return QUEUED if self.queue else SUSPENDED
        if self.jobset is None:
            return QUEUED if self.queue else CREATED
        jobs = (self.jobset.get("status") or {}).get("replicatedJobsStatus") or []
        trainers = trainer_jobs(self.jobset)
        # The SDK's Running: every trainer node's Pod running or done. JobSet counts a Job ready when
        # all its Pods are (Pods pending an image or a node are active, not ready).
        started = any((job.get("ready") or job.get("succeeded")) for job in jobs if job.get("name") in trainers)
        return RUNNING if started else CREATED

    @property
    def nodes(self) -> int:
        """Trainer nodes: the parallelism of the trainer jobs (their replicas counted)."""
        jobs = ((self.jobset or {}).get("spec") or {}).get("replicatedJobs") or []
        total = sum(int(job.get("replicas") or 1) * int(((job.get("template") or {}).get("spec") or {}).get("parallelism") or 1)
                    for job in jobs if job.get("name") in trainer_jobs(self.jobset))
        return total or int(((self.trainjob.get("spec") or {}).get("trainer") or {}).get("numNodes") or 0)


def trainer_jobs(jobset: dict[str, Any] | None) -> list[str]:
    """The replicated jobs whose Pods are trainer nodes (step label `trainer`, else the job `node`)."""
    jobs = ((jobset or {}).get("spec") or {}).get("replicatedJobs") or []
    labelled = [job["name"] for job in jobs if _ancestor(job) == c.ANCESTOR_TRAINER]
    return labelled or [job["name"] for job in jobs if job.get("name") == "node"]


def _ancestor(job: dict[str, Any]) -> str | None:
    return (((job.get("template") or {}).get("metadata") or {}).get("labels") or {}).get(c.LABEL_ANCESTOR)


def _jobset_suspended(jobset: dict[str, Any] | None) -> bool:
    return bool(((jobset or {}).get("spec") or {}).get("suspend")) and not _finished(jobset)


def _finished(jobset: dict[str, Any] | None) -> bool:
    return bool(((jobset or {}).get("status") or {}).get("terminalState"))


def owned_by_trainjob(jobset: dict[str, Any]) -> bool:
    refs = (jobset.get("metadata") or {}).get("ownerReferences") or []
    return any(ref.get("kind") == "TrainJob" and str(ref.get("apiVersion", "")).startswith(f"{c.GROUP}/") for ref in refs)


def rendered_here(jobset: dict[str, Any]) -> bool:
    """A JobSet of the default mode: no TrainJob owns it, and its jobs carry the Trainer's step label."""
    jobs = (jobset.get("spec") or {}).get("replicatedJobs") or []
    return not owned_by_trainjob(jobset) and any(_ancestor(job) for job in jobs)


def find_all(api: KubeAPI, namespace: str | None) -> list[LiveTrainJob]:
    """Every TrainJob of `namespace` (None: of all namespaces), by namespace and name."""
    jobsets = api.list(JOBSET_API_VERSION, "JobSet", namespace)
    trainjobs = api.list(TRAINJOB_API_VERSION, "TrainJob", namespace)
    by_key = {_key(jobset): jobset for jobset in jobsets}
    found = [_controller_mode(trainjob, by_key.get(_key(trainjob))) for trainjob in trainjobs]
    found += [_rendered(jobset) for jobset in jobsets if rendered_here(jobset)]
    return sorted(found, key=lambda job: (job.namespace, job.name))


def find(api: KubeAPI, namespace: str, name: str) -> LiveTrainJob:
    """The TrainJob `namespace/name`: the TrainJob object, else the JobSet this library made."""
    trainjob = api.get(TRAINJOB_API_VERSION, "TrainJob", namespace, name)
    jobset = api.get(JOBSET_API_VERSION, "JobSet", namespace, name)
    if trainjob is not None:
        return _controller_mode(trainjob, jobset if jobset is not None and owned_by_trainjob(jobset) else None)
    if jobset is not None and rendered_here(jobset):
        return _rendered(jobset)
    raise KubeAPIError(f"no TrainJob {namespace}/{name}: neither a TrainJob object nor a JobSet this library made "
                       f"(on {api.server}{', context ' + api.context if api.context else ''})")


def _key(document: dict[str, Any]) -> tuple[str, str]:
    metadata = document.get("metadata") or {}
    return metadata.get("namespace") or "", metadata.get("name") or ""


def _controller_mode(trainjob: dict[str, Any], jobset: dict[str, Any] | None) -> LiveTrainJob:
    namespace, name = _key(trainjob)
    return LiveTrainJob(name, namespace, CONTROLLER, trainjob, jobset, dict(trainjob.get("status") or {}))


def _rendered(jobset: dict[str, Any]) -> LiveTrainJob:
    """The TrainJob a JobSet of the default mode was rendered from, as far as the JobSet tells it."""
    namespace, name = _key(jobset)
    metadata = jobset.get("metadata") or {}
    spec = {"suspend": True} if _jobset_suspended(jobset) and not (metadata.get("labels") or {}).get(QUEUE_LABEL) else {}
    trainjob = {"apiVersion": TRAINJOB_API_VERSION, "kind": "TrainJob",
                "metadata": {key: metadata[key] for key in ("name", "namespace", "labels", "creationTimestamp") if key in metadata},
                "spec": spec}
    status = compute_status(trainjob, jobset, runtime_supported=True, now=datetime.now(timezone.utc))
    return LiveTrainJob(name, namespace, RENDERED, trainjob, jobset, status)


def age(created: str | None, now: datetime | None = None) -> str:
    """kubectl's AGE column: 45s, 12m, 5h, 3d."""
    if not created:
        return "<unknown>"
    moment = datetime.fromisoformat(created.replace("Z", "+00:00"))
    seconds = int(((now or datetime.now(timezone.utc)) - moment).total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= 2 * size or (unit == "m" and seconds >= size):
            return f"{seconds // size}{unit}"
    return f"{max(seconds, 0)}s"
