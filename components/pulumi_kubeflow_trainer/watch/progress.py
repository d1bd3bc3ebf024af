"""What `TrainJob(wait_for="completed")` shows during and after `pulumi up`'s wait (resources/completion.py):
the new lines of rank 0's log while it waits, and the failure hints when the TrainJob failed."""

from __future__ import annotations

from .hints import hints_for
from .kubeclient import KubeAPIError, KubeconfigSettings
from .pods import pods_of, rank_zero
from .trainjobs import find

TAIL_LINES = 50


def failure_hints(settings: KubeconfigSettings, namespace: str, name: str) -> list[str]:
    """The hints for a failed TrainJob, one text each; a line saying why when the cluster cannot be read."""
    try:
        api = settings.api()
        job = find(api, namespace or api.namespace, name)
        return [str(hint) for hint in hints_for(api, job.queue_owner, pods_of(api, job))]
    except KubeAPIError as error:
        return [f"(no failure hints: {error})"]


class RankZeroTail:
    """Rank 0's log lines not yet reported, read by polling (the last TAIL_LINES each time, the lines
    already reported recognised by the last one)."""

    def __init__(self, settings: KubeconfigSettings, namespace: str | None, name: str) -> None:
        self.api = settings.api()
        self.namespace, self.name = namespace or self.api.namespace, name
        self.last: str | None = None
        self.finished = False

    def poll(self) -> list[str]:
        """The new lines; `finished` is True once the TrainJob is Complete or Failed."""
        job = find(self.api, self.namespace, self.name)
        self.finished = job.state in ("Complete", "Failed")
        pod = rank_zero(pods_of(self.api, job))
        if pod is None or pod.phase == "Pending":
            return []
        try:
            lines = list(self.api.pod_log(self.namespace, pod.name, pod.container, tail_lines=TAIL_LINES))
        except KubeAPIError:
            return []  # not started, or its kubelet does not serve logs: nothing to show yet
        if self.last in lines:
            lines = lines[len(lines) - lines[::-1].index(self.last):]
        if lines:
            self.last = lines[-1]
        return lines
