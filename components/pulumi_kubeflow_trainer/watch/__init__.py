"""Watching trainings on a cluster: the read side (issue 23).

`kubeclient` reads a cluster through the official Kubernetes client (every cluster read of the
library goes through it); the rest finds the TrainJobs of a namespace (JobSets this library made,
TrainJob objects in controller mode), derives their state with `status.compute_status`, reads their
Pods, logs and events, names why one fails or waits, and offers the Kubeflow SDK's read methods
(`TrainerClient`). The `trainjob list|get|logs|wait` commands are in `watch/cli.py`.
"""

from .client import TrainerClient
from .kubeclient import KubeAPI, KubeAPIError, KubeconfigSettings

__all__ = ["KubeAPI", "KubeAPIError", "KubeconfigSettings", "TrainerClient"]
