"""`TrainerClient`: the Kubeflow SDK's read methods (kubeflow 0.5.0's `kubeflow.trainer.TrainerClient`)
over the TrainJobs of a cluster, rendered by this library or run by the Trainer controller.

    from pulumi_kubeflow_trainer.watch import TrainerClient
    client = TrainerClient(namespace="team-a", context="gpu")      # kubeconfig as kubectl reads it
    for job in client.list_jobs():
        print(job.name, job.status, job.num_nodes)
    job = client.wait_for_job_status("mnist", timeout=3600)          # Complete, else RuntimeError / TimeoutError
    print("\\n".join(client.get_job_logs("mnist")))                  # rank 0's log

Same names, arguments and return types as the SDK's (watch/types.py); creating and deleting are
Pulumi's, so `train` and `delete_job` are not offered. Errors: the SDK's (ValueError for bad
arguments, RuntimeError for a Failed TrainJob, TimeoutError), and KubeAPIError when the cluster
cannot be read or has no such TrainJob.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

from ..status import FAILED
from .hints import hints_for
from .kubeclient import KubeconfigSettings
from .logs import log_lines
from .pods import pods_of
from .runtimes import RUNTIME_API_VERSION, runtime_of, trainjob_runtime
from .trainjobs import STATES, LiveTrainJob, find, find_all
from .types import Event, Runtime, Step, TrainJob
from .waiting import wait_for_state

COMPLETE_STATUS = "Complete"


class TrainerClient:
    """Reads the TrainJobs of one namespace (default: the kubeconfig context's)."""

    def __init__(self, namespace: str | None = None, *, kubeconfig: str | None = None, context: str | None = None) -> None:
        self._api = KubeconfigSettings(kubeconfig=kubeconfig, context=context).api()
        self.namespace = namespace or self._api.namespace

    def list_runtimes(self) -> list[Runtime]:
        """The namespace's TrainingRuntimes, and the ClusterTrainingRuntimes none of them hides."""
        local = [runtime_of(r) for r in self._api.list(RUNTIME_API_VERSION, "TrainingRuntime", self.namespace)]
        names = {runtime.name for runtime in local}
        cluster = [runtime_of(r) for r in self._api.list(RUNTIME_API_VERSION, "ClusterTrainingRuntime", None)]
        return local + [runtime for runtime in cluster if runtime.name not in names]

    def get_runtime(self, name: str) -> Runtime:
        found = self._api.get(RUNTIME_API_VERSION, "TrainingRuntime", self.namespace, name)
        found = found or self._api.get(RUNTIME_API_VERSION, "ClusterTrainingRuntime", None, name)
        if found is None:
            raise RuntimeError(f"no TrainingRuntime {self.namespace}/{name} nor ClusterTrainingRuntime {name}")
        return runtime_of(found)

    def list_jobs(self, runtime: Runtime | None = None) -> list[TrainJob]:
        jobs = [self._trainjob(job, with_hints=False) for job in find_all(self._api, self.namespace)]
        return [job for job in jobs if runtime is None or job.runtime.name == runtime.name]

    def get_job(self, name: str) -> TrainJob:
        return self._trainjob(find(self._api, self.namespace, name), with_hints=True)

    def get_job_logs(self, name: str, step: str = "node-0", follow: bool | None = False) -> Iterator[str]:
        """The log lines of one step ("node-0", "node-1", ..., "dataset-initializer")."""
        job = find(self._api, self.namespace, name)
        if step.startswith("node-") and step[5:].isdigit():
            yield from log_lines(self._api, job, rank=int(step[5:]), follow=bool(follow))
            return
        pod = next((found for found in pods_of(self._api, job) if found.step == step), None)
        if pod is None:
            raise RuntimeError(f"TrainJob {self.namespace}/{name} has no Pod for step {step!r}")
        yield from self._api.pod_log(self.namespace, pod.name, pod.container, follow=bool(follow))

    def get_job_events(self, name: str) -> list[Event]:
        """The events of the TrainJob, its JobSet, Jobs and Pods, oldest first."""
        job = find(self._api, self.namespace, name)
        names = {name, *(step.name for step in pods_of(self._api, job))}
        events = []
        for event in self._api.list("v1", "Event", self.namespace):
            involved = event.get("involvedObject") or {}
            if involved.get("kind") in ("TrainJob", "JobSet", "Job", "Pod") and (
                    involved.get("name") in names or str(involved.get("name", "")).startswith(f"{name}-")):
                when = event.get("firstTimestamp") or event.get("eventTime") or (event.get("metadata") or {}).get("creationTimestamp")
                events.append(Event(involved.get("kind", ""), involved.get("name", ""), event.get("message") or "",
                                    event.get("reason") or "", _moment(when)))
        return sorted(events, key=lambda event: event.event_time)

    def wait_for_job_status(self, name: str, status: set[str] | None = None, timeout: int = 600, polling_interval: int = 2,
                            callbacks: list[Callable[[TrainJob], None]] | None = None) -> TrainJob:
        """The TrainJob once its status is one of `status` (default Complete); RuntimeError when it
        Failed and Failed was not asked for (the message names the cause), TimeoutError after `timeout` s."""
        wanted = status or {COMPLETE_STATUS}
        if not wanted <= set(STATES):
            raise ValueError(f"Expected status {wanted} must be a subset of {set(STATES)}")
        if polling_interval <= 0 or polling_interval >= timeout:
            raise ValueError(f"polling_interval must be positive and less than timeout, got {polling_interval} and {timeout}")

        def on_poll(live: LiveTrainJob) -> None:
            for callback in callbacks or []:
                callback(self._trainjob(live, with_hints=False))

        live, reached = wait_for_state(self._api, self.namespace, name, wanted, timeout=timeout,
                                       poll_seconds=polling_interval, on_poll=on_poll)
        job = self._trainjob(live, with_hints=not reached or live.state == FAILED)
        if live.state == FAILED and FAILED not in wanted:
            raise RuntimeError(f"TrainJob {name} is Failed" + "".join(f"\n{hint}" for hint in job.hints))
        if not reached:
            raise TimeoutError(f"Timeout waiting for TrainJob {name} to reach status: {wanted} (it is {live.state})"
                               + "".join(f"\n{hint}" for hint in job.hints))
        return job

    def _trainjob(self, job: LiveTrainJob, *, with_hints: bool) -> TrainJob:
        steps = pods_of(self._api, job)
        runtime = trainjob_runtime(self._api, job)
        hints = hints_for(self._api, job.queue_owner, steps, with_logs=True) if with_hints else []
        return TrainJob(name=job.name, runtime=runtime, num_nodes=job.nodes or runtime.trainer.num_nodes,
                        creation_timestamp=_moment(job.created), status=job.state,
                        steps=[Step(step.step, step.phase, step.name) for step in steps], namespace=job.namespace,
                        mode=job.mode, queue=job.queue, conditions=list(job.status.get("conditions") or []),
                        hints=[str(hint) for hint in hints])


def _moment(text: Any) -> datetime:
    if not text:
        return datetime.fromtimestamp(0, timezone.utc)
    return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
